import BenchmarkPairs
import Testing

/// A benchmark's runs take turns with its ceilings', and its ratio is read pair by pair.
@Suite("Benchmarks paired with their ceilings")
struct PairingTests {
    @Test("Each round runs the ceilings, then the benchmark; the warm-up round is not kept")
    func interleaved() {
        var order: [String] = []
        let (runs, ceilingRuns) = Pairing.interleave(samples: 3, ceilings: 2) { ceiling -> String in
            let name = ceiling.map { "c\($0)" } ?? "b"
            order.append(name)
            return "\(name)#\(order.count)"
        }
        #expect(order == Array(repeating: ["c0", "c1", "b"], count: 4).flatMap { $0 })
        #expect(runs == ["b#6", "b#9", "b#12"])
        #expect(ceilingRuns == [["c0#4", "c0#7", "c0#10"], ["c1#5", "c1#8", "c1#11"]])
    }

    @Test("The ratio is the median of each round's ratio to its slowest ceiling, not a ratio of medians")
    func ratio() {
        // Rounds: 2/1, 6/2, 3/3: the median ratio is 2 (medians apart would give 3/2).
        #expect(Pairing.ratio([2, 6, 3], ceilings: [[1, 2, 3]]) == 2)
        // The slower ceiling of each round: 4/2, then 9/3.
        #expect(Pairing.ratio([4, 9], ceilings: [[1, 3], [2, 1]]) == 2.5)
        #expect(Pairing.ratio([1, 2], ceilings: []) == nil)
        #expect(Pairing.ratio([1, 2], ceilings: [[1]]) == nil, "rounds that do not pair up give no ratio")
        #expect(Pairing.median([3, 1, 2]) == 2 && Pairing.median([4, 1, 3, 2]) == 2.5)
    }
}
