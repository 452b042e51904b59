import Foundation
import TestSupport
import Testing

@Suite("The tests' own children")
struct ProcessesTests {
    @Test("Children started at once hold nothing of each other: each has its streams and Foundation's socket, no more")
    func nothingHandedOn() async throws {
        let children = Children()
        defer {
            for child in children.all { kill(child.processIdentifier, SIGKILL) }
        }
        // Eight threads start thirty children each (without the lock, some children held others' pipes and
        // sockets in every one of three runs), every one with pipes of its own, all alive together.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await offPool {
                        for _ in 0..<30 {
                            let child = Process()
                            child.executableURL = URL(fileURLWithPath: "/bin/sleep")
                            child.arguments = ["20"]
                            child.standardOutput = Spawning.pipe()
                            child.standardError = Spawning.pipe()
                            try Spawning.run(child)
                            children.add(child)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for child in children.all {
            let directory = "/proc/\(child.processIdentifier)/fd"
            let held = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap(Int32.init)
                .filter { $0 > 2 }.map {
                    try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")
                }
            #expect(held.count == 1 && held[0].hasPrefix("socket:["), "child \(child.processIdentifier) holds \(held)")
        }
    }
}

/// Processes started on several threads, kept together.
private final class Children: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [Process] = []

    var all: [Process] { lock.withLock { processes } }

    func add(_ process: Process) { lock.withLock { processes.append(process) } }
}
