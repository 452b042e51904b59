public import Foundation

/// `Tools/fixture-server/notes-server.mjs` in a child process, on a free loopback port, for end-to-end tests.
public final class FixtureServer {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `node` as `command -v node` finds it: the first executable file of that name in a `PATH` entry.
    public static let node = TestSupport.executable(
        named: "node", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")
    public static let isAvailable = node != nil

    public let process = Process()
    public let url: String
    private let log = Spawning.pipe()
    /// What the server logs, read as it comes: a pipe nobody reads would stop the server once full.
    private let logged: PipeReader

    /// Starts the server with `arguments` (after the script), e.g. `["--count", "250"]`.
    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
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
    public func stop() -> String {
        end()
        return logged.text()
    }

    deinit { end() }

    private func end() { terminate(server: process, name: "notes-server") }
}

/// The first line a server child writes to `pipe` (its URL), read a byte at a time so that nothing after it
/// is taken from the pipe; `nil` when the pipe ends first (the child exited).
public func firstLine(of pipe: Pipe) -> String? {
    var line: [UInt8] = []
    var byte: [UInt8] = [0]
    while readSome(pipe.fileHandleForReading.fileDescriptor, into: &byte) == 1 {
        if byte[0] == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte[0])
    }
    return nil
}

/// A request to the fixture server from a `node` child (its `fetch`), on a connection of its own.
public enum FixtureRequest {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private static let script = """
        fetch(process.argv[2], { method: process.argv[1] }).then(
          async (response) => process.stdout.write(`${response.status}\\n${await response.text()}`),
          (error) => { process.stderr.write(`${error.cause ?? error}\\n`); process.exit(1); })
        """

    /// Sends `method` to `path` (with its query) on `server`: the status and the body.
    public static func send(_ method: String, _ server: FixtureServer, _ path: String) throws -> (
        status: Int, body: String
    ) {
        guard let node = FixtureServer.node else { throw CocoaError(.fileNoSuchFile) }
        let target = server.url.replacingOccurrences(of: "/notes", with: path)
        let run = try Finished(node, ["-e", script, method, target], patience: 60)
        let lines = run.stdout.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard run.status == 0, let status = lines.first.flatMap({ Int($0) }) else {
            throw Failure(description: "\(method) \(target): \(run.stderr)")
        }
        return (status, lines.count > 1 ? String(lines[1]) : "")
    }

    /// `POST path` (an `/admin/` change of `--updates`), whose 200 answer is a JSON object.
    public static func post(_ server: FixtureServer, _ path: String) throws -> NSDictionary {
        let (status, body) = try send("POST", server, path)
        guard status == 200, let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? NSDictionary
        else {
            throw Failure(description: "POST \(path): \(status) \(body)")
        }
        return object
    }
}

/// The fixture server's log, split into the runs of a test by marks: ``mark(_:_:)`` asks for
/// `GET /mark?N` before run N, and a request goes with the last mark made before its connection opened.
/// The server numbers its connections as they open (`c=` in each line), and a run's connections all open
/// after the mark before it and before the mark after it, whenever their lines were written.
public struct MarkedLog {
    public struct Request {
        public var method: String
        public var target: String
        public var connection: Int
    }

    public let requests: [Request]
    /// The connection of each mark, by its number.
    public let marks: [Int: Int]

    public init(_ log: String) {
        var requests: [Request] = []
        var marks: [Int: Int] = [:]
        let line = #/^([A-Z]+) (\S+) .* c=(\d+) t=\d+( h2)?$/#
        for text in log.split(separator: "\n") {
            guard let match = try? line.wholeMatch(in: text), let connection = Int(match.3) else { continue }
            let target = String(match.2)
            if target.hasPrefix("/mark?"), let mark = Int(target.dropFirst(6)) {
                marks[mark] = connection
            } else {
                requests.append(Request(method: String(match.1), target: target, connection: connection))
            }
        }
        self.requests = requests
        self.marks = marks
    }

    /// Marks the start of run `number` in `server`'s log.
    public static func mark(_ server: FixtureServer, _ number: Int) throws {
        _ = try FixtureRequest.send("GET", server, "/mark?\(number)")
    }

    /// The `GET /notes` targets of run `number`: after its mark, before the next mark's.
    public func targets(after number: Int) -> [String] {
        guard let start = marks[number] else { return [] }
        let end = marks.values.filter { $0 > start }.min() ?? .max
        return requests.filter {
            $0.method == "GET" && $0.target.hasPrefix("/notes") && (start..<end).contains($0.connection)
        }
        .map(\.target)
    }

    /// The `GET` targets of run `number` whose path starts with `prefix`.
    public func targets(after number: Int, under prefix: String) -> [String] {
        guard let start = marks[number] else { return [] }
        let end = marks.values.filter { $0 > start }.min() ?? .max
        return requests.filter {
            $0.method == "GET" && $0.target.hasPrefix(prefix) && (start..<end).contains($0.connection)
        }
        .map(\.target)
    }

    /// The `since` each request of run `number` sent (`nil` for none).
    public func since(after number: Int) -> [String?] {
        targets(after: number).map { target in
            URLComponents(string: target)?.queryItems?.first { $0.name == "since" }?.value
        }
    }
}
