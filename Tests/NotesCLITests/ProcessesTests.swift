import Foundation
import TestSupport
import Testing

@Suite("The tests' own children")
struct ProcessesTests {
    @Test("Children started at once hold nothing of each other: each has its own streams and Foundation's socket")
    func nothingHandedOn() async throws {
        let children = Children()
        defer {
            // Waited for, too: Foundation lets go of a Process, and of its pipes, only in waitUntilExit().
            for child in children.all { kill(child.processIdentifier, SIGKILL) }
            for child in children.all { child.waitUntilExit() }
        }
        // Eight threads start twenty children each (without the lock, some children held others' pipes and
        // sockets in every one of five runs), every one with pipes of its own, all alive together. Not more,
        // and the read ends of their pipes closed at once: each child costs this process a descriptor or
        // three while it lives, and Foundation's Process.run() can crash reading /proc/self/fd once this
        // process holds over a thousand or so (see Spawning).
        // Room first: the suites running beside this one hold descriptors of their own for a while (each
        // end-to-end test's server and its pipes, from its start until its end: some 850 at once when every
        // test starts together), and 160 children at once need some 500 more. Going ahead without the room
        // pushed the process past the limit and failed other suites' starts, so this waits until those
        // tests end (never more than the whole run takes), and fails by name if the room never comes.
        let room = 450
        var holding = Int.max
        for _ in 0..<9_000 {
            holding = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
            if holding <= room { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(holding <= room, "this process still held \(holding) descriptors after 15 minutes, over \(room)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await offPool {
                        for _ in 0..<20 {
                            let child = Process()
                            child.executableURL = URL(fileURLWithPath: "/bin/sleep")
                            child.arguments = ["300"]  // alive until the test kills them, however slowly 160 start
                            child.standardOutput = Spawning.pipe()
                            child.standardError = Spawning.pipe()
                            try Spawning.run(child)
                            children.add(child)
                            // The child holds its ends; this process lets go of its own (see above).
                            for stream in [child.standardOutput, child.standardError] {
                                try (stream as? Pipe)?.fileHandleForReading.close()
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // What each child holds past its standard streams, against the pipes of all children and everything
        // this process holds (the other end of each child's socket). Only these
        // are the children's: a file or socket another test opens without O_CLOEXEC at the moment of a start
        // still reaches that child (Foundation lists what to close before it starts it; see Spawning), which
        // is that test's to avoid (TestSupport.Files), not a start's.
        func held(_ pid: Int32) throws -> [Int32: String] {
            let directory = "/proc/\(pid)/fd"
            var targets: [Int32: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                guard let descriptor = Int32(name),
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")
                else { continue }
                targets[descriptor] = target
            }
            return targets
        }
        let all = try children.all.map { ($0.processIdentifier, try held($0.processIdentifier)) }
        let streams = Set(all.flatMap { [$0.1[1], $0.1[2]].compactMap { $0 } })
        let ours = Set(try held(getpid()).values.filter { $0.hasPrefix("pipe:[") || $0.hasPrefix("socket:[") })
        #expect(streams.count == 2 * all.count, "every child has pipes of its own for its two streams")
        for (pid, targets) in all {
            let extra = targets.filter { $0.key > 2 }.values
            let others = extra.filter { streams.contains($0) || ours.contains($0) }
            #expect(others.isEmpty, "child \(pid) holds \(others) of other children or of this process")
            #expect(extra.contains { $0.hasPrefix("socket:[") }, "child \(pid) holds Foundation's socket")
        }
    }
}

extension ProcessesTests {
    @Test("A start over the descriptor limit waits for room, and fails by name only when none comes in time")
    func waitsForRoom() throws {
        var counts = [1_005, 1_003, 1_001, 1_000, 2_000]
        var asked = 0
        func held() -> Int {
            asked += 1
            return counts.removeFirst()
        }
        try Spawning.waitForRoom(limit: 1_000, within: .seconds(60), held: held)
        #expect(asked == 4, "it asks again until the count is at the limit, and then goes")

        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: TooManyDescriptors.self) {
            try Spawning.waitForRoom(limit: 1_000, within: .milliseconds(200), held: { 1_001 })
        }
        #expect(clock.now - start >= .milliseconds(200), "it waited the whole time before failing")
    }

    @Test("A child waited for is let go of, and its pipes with it (Foundation keeps one only polled)")
    func waitedForIsFreed() throws {
        weak var gone: Process?
        weak var pipe: Pipe?
        try {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/true")
            let output = Spawning.pipe()
            process.standardOutput = output
            try Spawning.run(process)
            #expect(waitOrKill(process, within: 60) == nil)
            gone = process
            pipe = output
        }()
        #expect(gone == nil, "the Process outlived its last reference")
        #expect(pipe == nil, "its pipe outlived it, with the pipe's descriptor")
    }
}

/// Processes started on several threads, kept together.
private final class Children: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [Process] = []

    var all: [Process] { lock.withLock { processes } }

    func add(_ process: Process) { lock.withLock { processes.append(process) } }
}
