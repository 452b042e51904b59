import Foundation
import TestSupport
import Testing

/// A real web framework's app of `Tools/` (`drf/server.py`, `fastapi/server.py`) over SQLite, in a child
/// process on a free loopback port. Each app seeds `count` notes and deletes every 97th, so ids have gaps.
class PythonAppServer {
    /// Every module the apps import, asked of Python once.
    private static let allModules = [
        "django", "rest_framework", "rest_framework_json_api", "fastapi", "fastapi_pagination", "uvicorn", "sqlalchemy",
        "sqlakeyset", "kinto", "flask_smorest", "eve", "mongomock", "ninja", "tastypie", "wagtail", "litestar",
        "pygeoapi", "moto", "boto3", "botocore", "oauth2_provider",
    ]

    /// The Python interpreter itself and which of ``allModules`` it imports, asked once of `python3` on `PATH`.
    ///
    /// A server is started with the interpreter's own path (`sys.executable`), not with `python3`: a version
    /// manager's `python3` (pyenv's shim) is a shell script that starts Python as its child, so SIGTERM would
    /// end the script and leave the server running.
    private static let python: (interpreter: URL, modules: Set<String>)? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let python3 = TestSupport.executable(named: "python3", searchPath: path) else { return nil }
        let names = allModules.map { "\"\($0)\"" }.joined(separator: ", ")
        // django-ninja reads Django's settings as it is imported.
        let script = """
            import os, sys
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "django.conf.global_settings")
            print(sys.executable)
            for name in (\(names)):
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

    /// Whether `python3` imports all of `modules`.
    static func imports(_ modules: Set<String>) -> Bool { python?.modules.isSuperset(of: modules) ?? false }

    /// The ids an app holds after inserting `count` notes: 1 to `count`, but the multiples of 97.
    static func ids(count: Int) -> [Int] { count < 1 ? [] : (1...count).filter { $0 % 97 != 0 } }

    let script: String
    let process = Process()
    /// The server's base URL, e.g. `http://127.0.0.1:41234`: endpoints are `url + "/limitoffset/"` and so on.
    let url: String
    private let log = Spawning.pipe()
    /// What the server logs (a line per request), read as it comes: a pipe nobody reads would stop the server.
    private let logged: PipeReader

    /// Starts `script` (relative to the repository) with `count` notes (`nil`: an app that seeds its own)
    /// and `arguments` after it (e.g. `["--quiet"]`), and waits until it listens.
    init(script: String, count: Int?, _ arguments: [String]) throws {
        guard let python = Self.python else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "python3"])
        }
        self.script = script
        let output = Spawning.pipe()
        process.executableURL = python.interpreter
        process.arguments =
            [FixtureServer.repository.appendingPathComponent(script).path] + (count.map { ["--count", "\($0)"] } ?? [])
            + arguments
        process.standardOutput = output
        process.standardError = log
        try Spawning.run(process)
        logged = PipeReader(log)
        guard let line = firstLine(of: output) else {
            process.waitUntilExit()
            throw Failed(script: script, status: process.terminationStatus, log: logged.text())
        }
        url = line
    }

    /// The server ended before it printed its URL.
    struct Failed: Error, CustomStringConvertible {
        var script: String
        var status: Int32
        var log: String
        var description: String { "\(script) exited \(status) before it listened:\n\(log)" }
    }

    /// Stops the server and returns what it logged.
    @discardableResult
    func stop() -> String {
        end()
        return logged.text()
    }

    deinit { end() }

    private func end() { terminate(server: process, name: script) }
}

/// `Tools/apps/drf/server.py`: Django REST framework's paginators, and djangorestframework-jsonapi's.
final class DjangoServer: PythonAppServer {
    /// Whether `python3` imports Django and Django REST framework.
    static let isAvailable = imports(["django", "rest_framework"])
    /// Whether it imports djangorestframework-jsonapi too (the server's `/jsonapi/`).
    static let hasJSONAPI = imports(["django", "rest_framework", "rest_framework_json_api"])

    init(count: Int, _ arguments: [String] = []) throws {
        try super.init(script: "Tools/apps/drf/server.py", count: count, arguments)
    }
}

/// `Tools/apps/fastapi/server.py`: fastapi-pagination's pages over SQLAlchemy, served by uvicorn.
final class FastAPIServer: PythonAppServer {
    /// Whether `python3` imports what the server needs to start.
    static let isAvailable = imports(["fastapi", "fastapi_pagination", "uvicorn", "sqlalchemy"])
    /// Whether it imports sqlakeyset too (the server's `/cursor`).
    static let hasCursor = imports(["fastapi", "fastapi_pagination", "uvicorn", "sqlalchemy", "sqlakeyset"])

    init(count: Int, _ arguments: [String] = []) throws {
        try super.init(script: "Tools/apps/fastapi/server.py", count: count, arguments)
    }
}

extension PythonAppServer {
    /// The ids of an NDJSON output's lines, in order: `nil` for a line without an integer id (or, with
    /// `digits`, a string of digits, as JSON:API writes ids).
    static func ids(ofNDJSON text: String, digits: Bool = false) -> [Int?] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }  // after the last newline, or an empty file
        return lines.map { line in
            let id = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
            return digits ? (id as? String).flatMap { Int($0) } : id as? Int
        }
    }

    /// Expects `run` to have exited 0 having written `written`: each of `expected` once, in id order.
    static func expectEachOnce(
        _ written: [Int?], expected: [Int], _ run: Run, context: String, sourceLocation: SourceLocation
    ) {
        #expect(run.status == 0, "\(context): \(run.stderr)", sourceLocation: sourceLocation)
        let ids = written.compactMap { $0 }
        #expect(
            ids.count == written.count, "\(context): \(written.count - ids.count) lines without an id",
            sourceLocation: sourceLocation)
        // Compared apart from the expectation, which would print every id of both sides.
        let eachOnce = ids.sorted() == expected
        let inOrder = ids == ids.sorted()
        #expect(
            eachOnce, "\(context): \(difference(ids, expected: expected)); \(run.stderr)",
            sourceLocation: sourceLocation)
        #expect(inOrder, "\(context): not in id order", sourceLocation: sourceLocation)
        #expect(
            run.stderr.contains("\(expected.count) notes, "), "\(context): \(run.stderr)",
            sourceLocation: sourceLocation)
    }

    /// What `ids` lacks of `expected`, and what it holds twice or should not hold.
    static func difference(_ ids: [Int], expected: [Int]) -> String {
        let wanted = Set(expected)
        var seen = Set<Int>()
        var twice: [Int] = []
        for id in ids where !seen.insert(id).inserted { twice.append(id) }
        let missing = expected.filter { !seen.contains($0) }
        let extra = seen.subtracting(wanted).sorted()
        return "\(ids.count) written of \(expected.count); missing \(missing.count) (\(missing.prefix(5))…), "
            + "twice \(twice.count) (\(twice.prefix(5))…), not the server's \(extra.count) (\(extra.prefix(5))…)"
    }

    /// The `Pagination: …` lines of `stderr`.
    static func pagination(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("Pagination: ") }
    }
}
