import Foundation
import TestSupport

/// `Tools/drf/server.py`, a Django REST framework app over SQLite, in a child process on a free loopback port.
final class DjangoServer {
    /// The Python interpreter itself and the app's packages it imports, asked once of `python3` on `PATH`.
    ///
    /// The server is started with the interpreter's own path (`sys.executable`), not with `python3`: a
    /// version manager's `python3` (pyenv's shim) is a shell script that starts Python as its child, so
    /// SIGTERM would end the script and leave the server running.
    private static let python: (interpreter: URL, packages: Set<String>)? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let python3 = TestSupport.executable(named: "python3", searchPath: path) else { return nil }
        let script = """
            import sys
            print(sys.executable)
            for name in ("django", "rest_framework", "rest_framework_json_api"):
                try:
                    __import__(name)
                    print(name)
                except Exception:
                    pass
            """
        guard let run = try? Finished(python3, ["-c", script], patience: 60), run.status == 0 else { return nil }
        let lines = run.stdout.split(separator: "\n").map(String.init)
        guard let interpreter = lines.first, !interpreter.isEmpty else { return nil }
        return (URL(fileURLWithPath: interpreter), Set(lines.dropFirst()))
    }()

    /// Whether `python3` imports Django and Django REST framework.
    static let isAvailable = python.map { $0.packages.isSuperset(of: ["django", "rest_framework"]) } ?? false
    /// Whether it imports djangorestframework-jsonapi too (the server's `/jsonapi/`).
    static let hasJSONAPI = isAvailable && python!.packages.contains("rest_framework_json_api")

    /// The ids the server holds after inserting `count` notes: 1 to `count`, but the multiples of 97 (the
    /// rule of `Tools/drf/server.py`).
    static func ids(count: Int) -> [Int] { count < 1 ? [] : (1...count).filter { $0 % 97 != 0 } }

    let process = Process()
    /// The server's base URL, e.g. `http://127.0.0.1:41234`: endpoints are `url + "/limitoffset/"` and so on.
    let url: String
    private let log = Spawning.pipe()
    /// What the server logs (a line per request), read as it comes: a pipe nobody reads would stop the server.
    private let logged: PipeReader

    /// Starts the server with `count` notes and `arguments` after it (e.g. `["--quiet"]`), and waits until it
    /// listens.
    init(count: Int, _ arguments: [String] = []) throws {
        guard let python = Self.python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "python3"])
        }
        let output = Spawning.pipe()
        process.executableURL = python.interpreter
        process.arguments =
            [FixtureServer.repository.appendingPathComponent("Tools/drf/server.py").path, "--count", "\(count)"]
            + arguments
        process.standardOutput = output
        process.standardError = log
        try Spawning.run(process)
        logged = PipeReader(log)
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else {
                process.waitUntilExit()
                throw Failed(status: process.terminationStatus, log: logged.text())
            }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        url = String(decoding: line, as: UTF8.self)
    }

    /// The server ended before it printed its URL.
    struct Failed: Error, CustomStringConvertible {
        var status: Int32
        var log: String
        var description: String { "Tools/drf/server.py exited \(status) before it listened:\n\(log)" }
    }

    /// Stops the server and returns what it logged.
    @discardableResult
    func stop() -> String {
        end()
        return logged.text()
    }

    deinit { end() }

    /// SIGTERM, and SIGKILL if the server has not ended within 20 s.
    private func end() {
        guard process.isRunning else { return }
        process.terminate()
        if let stacks = waitOrKill(process, within: 20) { print("Tools/drf/server.py ignored SIGTERM: \(stacks)") }
    }
}
