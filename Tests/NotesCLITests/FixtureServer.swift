import Foundation
import TestSupport

/// `Tools/fixture-server/notes-server.mjs` in a child process, on a free loopback port, for end-to-end tests.
final class FixtureServer {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `node` as `command -v node` finds it: the first executable file of that name in a `PATH` entry.
    static let node = TestSupport.executable(
        named: "node", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")
    static let isAvailable = node != nil

    let process = Process()
    let url: String
    private let log = Spawning.pipe()
    /// What the server logs, read as it comes: a pipe nobody reads would stop the server once full.
    private let logged: PipeReader

    /// Starts the server with `arguments` (after the script), e.g. `["--count", "250"]`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let output = Spawning.pipe()
        guard let node = Self.node else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "node"]) }
        process.executableURL = node
        process.arguments =
            [Self.repository.appendingPathComponent("Tools/fixture-server/notes-server.mjs").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = log
        try Spawning.run(process)
        logged = PipeReader(log)
        guard let line = firstLine(of: output) else { throw CocoaError(.fileReadUnknown) }
        url = line
    }

    /// Stops the server and returns what it logged.
    @discardableResult
    func stop() -> String {
        end()
        return logged.text()
    }

    deinit { end() }

    /// SIGTERM, and SIGKILL if the server has not ended within 20 s (its own grace is 2 s at most).
    private func end() {
        guard process.isRunning else { return }
        process.terminate()
        if let stacks = waitOrKill(process, within: 20) { print("notes-server ignored SIGTERM: \(stacks)") }
    }
}

/// The first line a server child writes to `pipe` (its URL), read a byte at a time so that nothing after it
/// is taken from the pipe; `nil` when the pipe ends first (the child exited).
func firstLine(of pipe: Pipe) -> String? {
    var line: [UInt8] = []
    while true {
        guard let byte = pipe.fileHandleForReading.readData(ofLength: 1).first else { return nil }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
}
