import Foundation

/// `Tools/notes-server.mjs` in a child process, on a free loopback port, for end-to-end tests.
final class FixtureServer {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `node` as `command -v node` finds it: the first executable file of that name in a `PATH` entry.
    static let node = executable(named: "node", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")
    static let isAvailable = node != nil

    /// The first regular, executable file called `name` in the directories of `searchPath` (separated by
    /// `:`; an empty entry is the current directory), or `nil`.
    static func executable(named name: String, searchPath: String) -> URL? {
        for entry in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = URL(fileURLWithPath: entry.isEmpty ? "." : String(entry)).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate.absoluteURL
            }
        }
        return nil
    }

    let process = Process()
    let url: String
    private let log = Pipe()

    /// Starts the server with `arguments` (after the script), e.g. `["--count", "250"]`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let output = Pipe()
        guard let node = Self.node else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "node"]) }
        process.executableURL = node
        process.arguments = [Self.repository.appendingPathComponent("Tools/notes-server.mjs").path] + arguments
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
