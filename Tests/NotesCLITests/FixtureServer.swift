import Foundation

/// `Tools/notes-server.mjs` in a child process, on a free loopback port, for end-to-end tests.
final class FixtureServer {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let isAvailable =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/node")
        || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/node")

    let process = Process()
    let url: String
    private let log = Pipe()

    /// Starts the server with `arguments` (after the script), e.g. `["--count", "250"]`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", Self.repository.appendingPathComponent("Tools/notes-server.mjs").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = log
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { throw CocoaError(.fileReadUnknown) }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        url = String(decoding: line, as: UTF8.self)
    }

    /// Stops the server and returns what it logged.
    @discardableResult
    func stop() -> String {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
