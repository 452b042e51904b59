import Foundation
import Testing

/// `notes-page fetch` against `Tools/notes-server.mjs`: every style, every fault, resume and signals.
@Suite(
    "notes-page fetch against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct FetchCommandTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7", "--quiet"]
    /// The same notes, with the server's request log on (for tests that read it).
    static let loggedNotes = Array(notes.dropLast())

    /// The notes of a clean run, as NDJSON: what every recovered run must end up with.
    static func cleanRun() throws -> String {
        let server = try FixtureServer(notes)
        defer { server.stop() }
        let run = try Run(["fetch", "--all", "--quiet", server.url])
        #expect(run.status == 0)
        return run.stdout
    }

    static func ids(_ ndjson: String) -> [String] {
        ndjson.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String ?? "?"
        }
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-page-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("Every page of every style gives the same notes, each once")
    func styles() throws {
        let expected = try Self.cleanRun()
        let ids = Self.ids(expected)
        #expect(ids.count == 250 && Set(ids).count == 250)
        for (style, paths) in [("drf", ["--items-path", "results", "--next-path", "next"]), ("link", [])] {
            let server = try FixtureServer(Self.notes + ["--style", style])
            defer { server.stop() }
            let run = try Run(["fetch", "--all", server.url] + paths)
            #expect(run.status == 0, "\(style): \(run.stderr)")
            #expect(run.stdout == expected, "\(style)")
            #expect(run.stderr.hasPrefix("250 notes, 3 pages, "), "\(style)")
        }
    }

    @Test("Without --all one page; --max-pages bounds the walk and says how to go on")
    func bounds() throws {
        let server = try FixtureServer(Self.notes)
        defer { server.stop() }
        let one = try Run(["fetch", server.url, "--format", "ids"])
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count == 100)
        #expect(one.stderr.contains("More pages remain: the next is cursor "))
        let two = try Run(["fetch", "--all", "--max-pages", "2", server.url, "--format", "none"])
        #expect(two.status == 0 && two.stderr.hasPrefix("200 notes, 2 pages, "))
    }

    @Test("An empty endpoint says No notes and succeeds")
    func empty() throws {
        let server = try FixtureServer(["--count", "0", "--quiet"])
        defer { server.stop() }
        let run = try Run(["fetch", "--all", server.url])
        #expect(run.status == 0)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("No notes, 1 page, "))
    }

    @Test(
        "Faults the client survives: retried, and the output is whole",
        arguments: ["500@2x2", "502x1", "503:0@3x1", "429:0x1", "truncate@2x1", "reset@3x1", "redirect", "delay:50@2"]
    )
    func survived(_ fault: String) throws {
        let expected = try Self.cleanRun()
        let server = try FixtureServer(Self.notes + ["--fault", fault])
        defer { server.stop() }
        let run = try Run(["fetch", "--all", "--quiet", server.url])
        #expect(run.status == 0, "\(fault): \(run.stderr)")
        #expect(run.stdout == expected, "\(fault)")
    }

    @Test(
        "Faults that end the run: exit code and message",
        arguments: [
            ("401", 77, "Error: page 1 (the first page): session expired (HTTP 401): sign in again or renew the token"),
            ("403@2", 77, "Error: page 2 (cursor "),
            ("503:0@2", 69, "the server is unavailable after 3 attempts: HTTP 503"),
            ("html", 65, "Error: page 1 (the first page): the response is 'text/html; charset=utf-8', not JSON"),
            ("content-type@3", 65, "Error: page 3 (cursor "),
            ("invalid-json@2", 65, "invalid JSON: parse error"),
            ("missing-id", 65, "note has no 'id'"),
            ("number-id", 65, "id is a number, not a string"),
            ("duplicate-id@3", 65, ", seen on page 1 ("),
            ("cycle@3", 65, "a next page already visited in this run (a cursor cycle)"),
            ("huge-title@2", 65, "string longer than 1048576 bytes"),
            ("deep", 65, "nesting deeper than 64 levels"),
            ("404", 65, "the server answered HTTP 404"),
        ] as [(String, Int32, String)]
    )
    func fatal(_ fault: String, status: Int32, message: String) throws {
        let server = try FixtureServer(Self.notes + ["--fault", fault])
        defer { server.stop() }
        let run = try Run(["fetch", "--all", "--retries", "2", server.url, "-o", "/dev/null"])
        #expect(run.status == status, "\(fault): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(fault): \(run.stderr)")
    }

    @Test("401 is never retried: one request")
    func sessionExpiredOnce() throws {
        let server = try FixtureServer(["--count", "10", "--fault", "401"])
        let run = try Run(["fetch", "--all", server.url])
        let log = server.stop()
        #expect(run.status == 77)
        #expect(log.split(separator: "\n").filter { $0.contains("GET /notes") }.count == 1)
    }

    @Test("A bearer token is sent, never printed, and dropped on a cross-origin redirect")
    func token() throws {
        let token = "tok-\(UUID().uuidString)"
        let environment = ["NOTES_SERVER_TOKEN": token]
        let server = try FixtureServer(Self.loggedNotes + ["--fault", "auth"], environment: environment)
        let denied = try Run(["fetch", "--all", server.url])
        let allowed = try Run(["fetch", "--all", server.url, "--format", "ids"], environment: ["NOTES_TOKEN": token])
        let log = server.stop()
        #expect(denied.status == 77)
        #expect(allowed.status == 0)
        #expect(allowed.stdout.split(separator: "\n").count == 250)
        for text in [denied.stdout, denied.stderr, allowed.stderr, log] { #expect(!text.contains(token)) }

        // The redirect goes to another port, which answers 400 to any request that carries an
        // Authorization header: the walk succeeds only if the token stayed behind.
        let redirected = try FixtureServer(
            Self.loggedNotes + ["--fault", "auth", "--fault", "redirect"],
            environment: environment
        )
        let run = try Run(["fetch", "--all", redirected.url, "--format", "ids"], environment: ["NOTES_TOKEN": token])
        let redirectLog = redirected.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(redirectLog.contains("[redirect target] GET /notes"))
        #expect(!run.stderr.contains(token) && !redirectLog.contains(token))
    }

    @Test("Credentials over plain http to a host that is not loopback are refused before connecting")
    func plainHTTP() throws {
        let run = try Run(["fetch", "http://example.com/notes"], environment: ["NOTES_TOKEN": "secret-value"])
        #expect(run.status == 64)
        #expect(
            run.stderr.hasPrefix("Error: Refusing to send credentials over plain http to 'example.com': use https\n"))
        #expect(!run.stderr.contains("secret-value"))
    }

    @Test("SIGINT during a slow drip stops within a second, keeps what is committed, says how to resume")
    func interrupt() throws {
        let server = try FixtureServer(Self.notes + ["--fault", "drip:64/20@2"])
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.ndjson").path
        let state = directory.appendingPathComponent("state.json").path
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["fetch", "--all", server.url, "-o", output, "--state", state]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Page 1 arrives at once; page 2 drips. Wait for page 1 to be committed.
        while (try? Data(contentsOf: URL(fileURLWithPath: state)))?.isEmpty ?? true { usleep(10_000) }
        let sent = Date()
        process.interrupt()
        process.waitUntilExit()
        // ThreadSanitizer holds an asynchronous signal until a thread reaches a call it intercepts
        // (llvm-project #83561): `make tsan` sets NOTES_SANITIZER=thread and allows a second more.
        let bound = ProcessInfo.processInfo.environment["NOTES_SANITIZER"] == "thread" ? 2.0 : 1.0
        #expect(Date().timeIntervalSince(sent) < bound)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130)
        #expect(stderr.contains("Error: page 2 (cursor "))
        #expect(
            stderr.contains(
                "Interrupted after 1 committed page (100 notes). Resume with: notes-page fetch --all --state "))
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 100)
    }

    @Test("kill -9 at random moments, then resume: every note exactly once")
    func killAndResume() throws {
        let expected = try Self.cleanRun()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.ndjson").path
        let state = directory.appendingPathComponent("state.json").path
        var generator = SystemRandomNumberGenerator()
        var finished = false
        var kills = 0
        // A slow server, so that a kill lands mid-page as often as between pages.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:128/5"])
        defer { server.stop() }
        for _ in 0..<8 where !finished {
            let process = Process()
            process.executableURL = Run.binary
            process.arguments = ["fetch", "--all", "--quiet", server.url, "-o", output, "--state", state]
            try process.run()
            usleep(UInt32.random(in: 20_000...600_000, using: &generator))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            finished = process.terminationReason == .exit && process.terminationStatus == 0
        }
        if !finished {
            let run = try Run(["fetch", "--all", "--quiet", server.url, "-o", output, "--state", state])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(kills > 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == expected)
        // Run again: the state says the run is complete, and nothing is fetched or written twice.
        let again = try Run(["fetch", "--all", server.url, "-o", output, "--state", state])
        #expect(again.status == 0)
        #expect(again.stderr == "Already complete: 250 notes in 3 pages.\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == expected)
    }
}
