import BenchmarkPairs
import Testing

/// A run on a machine slowed by other work is not saved as a baseline.
@Suite("A baseline only from a machine at its usual speed")
struct MachineSpeedTests {
    @Test("yajl more than 1.3 × the fastest saved run of the processor is too slow; within it, or nothing saved, not")
    func slowdown() {
        // The loaded day of the docs: yajl 1.126 s against 0.564 s.
        #expect(MachineSpeed.slowdown(1.126, saved: [0.886, 0.564, 0.931]) == 1.126 / 0.564)
        // Judged by the fastest saved run, not the newest or the slowest.
        #expect(MachineSpeed.slowdown(0.9, saved: [0.5, 0.9, 1.0]) == 0.9 / 0.5)
        #expect(MachineSpeed.slowdown(0.7, saved: [0.564, 0.93]) == nil)
        #expect(MachineSpeed.slowdown(0.564 * 1.3, saved: [0.564]) == nil, "at the limit is still usual")
        #expect(MachineSpeed.slowdown(0.3, saved: [0.564]) == nil, "faster than before is never refused")
        #expect(MachineSpeed.slowdown(5, saved: []) == nil, "nothing saved: nothing to judge by")
        #expect(MachineSpeed.slowdown(5, saved: [0]) == nil, "a time of zero judges nothing")
    }
}
