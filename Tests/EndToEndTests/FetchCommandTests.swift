import Foundation
import TestSupport
import Testing

/// `notes-page fetch` against `Tools/fixture-server/notes-server.mjs`: every style, every fault, resume and signals.
@Suite(
    "notes-page fetch against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct FetchCommandTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7", "--quiet"]
    /// The same notes, with the server's request log on (for tests that read it).
    static let loggedNotes = Array(notes.dropLast())

    /// The notes of a clean run, as NDJSON: what every recovered run must end up with.
    static func cleanRun() async throws -> String {
        let server = try FixtureServer(notes)
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--quiet", server.url])
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
    func styles() async throws {
        let expected = try await Self.cleanRun()
        let ids = Self.ids(expected)
        #expect(ids.count == 250 && Set(ids).count == 250)
        for (style, paths) in [("drf", ["--items-path", "results", "--next-path", "next"]), ("link", [])] {
            let server = try FixtureServer(Self.notes + ["--style", style])
            defer { server.stop() }
            let run = try await Run(["fetch", "--all", server.url] + paths)
            #expect(run.status == 0, "\(style): \(run.stderr)")
            #expect(run.stdout == expected, "\(style)")
            #expect(run.messages.hasPrefix("250 notes, 3 pages, "), "\(style)")
        }
    }

    @Test("Without --all one page; --max-pages bounds the walk and says how to go on")
    func bounds() async throws {
        let server = try FixtureServer(Self.notes)
        defer { server.stop() }
        let one = try await Run(["fetch", server.url, "--format", "ids"])
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count == 100)
        #expect(one.stderr.contains("More pages remain: the next is cursor "))
        let two = try await Run(["fetch", "--all", "--max-pages", "2", server.url, "--format", "none"])
        #expect(two.status == 0 && two.messages.hasPrefix("200 notes, 2 pages, "))
    }

    @Test("An empty endpoint says No notes and succeeds")
    func empty() async throws {
        let server = try FixtureServer(["--count", "0", "--quiet"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", server.url])
        #expect(run.status == 0)
        #expect(run.stdout == "")
        #expect(run.messages.hasPrefix("No notes, 1 page, "))
    }

    @Test(
        "Faults the client survives: retried, and the output is whole",
        arguments: ["500@2x2", "502x1", "503:0@3x1", "429:0x1", "truncate@2x1", "reset@3x1", "redirect", "delay:50@2"]
    )
    func survived(_ fault: String) async throws {
        let expected = try await Self.cleanRun()
        let server = try FixtureServer(Self.notes + ["--fault", fault])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--quiet", server.url])
        #expect(run.status == 0, "\(fault): \(run.stderr)")
        #expect(run.stdout == expected, "\(fault)")
    }

    /// A cursor of the fixture server, as the error line shows it.
    static let cursor = "cursor [A-Za-z0-9+/=~]+"

    @Test(
        "Faults that end the run: exit code and the whole error line",
        arguments: [
            ("401", 77, #"page 1 \(the first page\): session expired \(HTTP 401\): sign in again or renew the token"#),
            ("403@2", 77, #"page 2 \(\#(cursor)\): session expired \(HTTP 403\): sign in again or renew the token"#),
            ("503:0@2", 69, #"page 2 \(\#(cursor)\): the server is unavailable after 3 attempts: HTTP 503"#),
            ("html", 65, #"page 1 \(the first page\): the response is 'text/html; charset=utf-8', not JSON"#),
            ("content-type@3", 65, #"page 3 \(\#(cursor)\): the response is 'text/plain; charset=utf-8', not JSON"#),
            ("invalid-json@2", 65, #"page 2 \(\#(cursor)\): invalid JSON: parse error: .* \(byte \d+\)"#),
            ("missing-id", 65, #"page 1 \(the first page\): note has no 'id' \(note 1, byte 65\)"#),
            (
                "number-id", 65,
                #"page 1 \(the first page\): id is a number with a fraction \(42.5\), not a string or an integer \(note 0, byte \d+\)"#
            ),
            (
                "duplicate-id@3", 65,
                #"page 3 \(\#(cursor)\): duplicate id "n0", seen on page 1 \(note 49, byte \d+\)"#
            ),
            (
                "cycle@3", 65,
                #"page 3 \(\#(cursor)\): the server sent a next page already visited in this run \(a cursor cycle\)"#
            ),
            (
                "huge-title@2", 65,
                #"page 2 \(\#(cursor)\): string longer than 1048576 bytes \(byte 1048608\)"#
            ),
            ("deep", 65, #"page 1 \(the first page\): nesting deeper than 64 levels \(byte 79\)"#),
            ("404", 65, #"page 1 \(the first page\): the server answered HTTP 404"#),
        ] as [(String, Int32, String)]
    )
    func fatal(_ fault: String, status: Int32, pattern: String) async throws {
        let server = try FixtureServer(Self.notes + ["--fault", fault])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--retries", "2", server.url, "-o", "/dev/null"])
        #expect(run.status == status, "\(fault): \(run.stderr)")
        let line = run.messages.split(separator: "\n").first.map(String.init) ?? ""
        #expect(try Regex("Error: " + pattern).wholeMatch(in: line) != nil, "\(fault): \(line)")
    }

    @Test("401 is never retried: one request")
    func sessionExpiredOnce() async throws {
        let server = try FixtureServer(["--count", "10", "--fault", "401"])
        let run = try await Run(["fetch", "--all", server.url])
        let log = server.stop()
        #expect(run.status == 77)
        #expect(log.split(separator: "\n").filter { $0.contains("GET /notes") }.count == 1)
    }

    @Test("A bearer token is sent, never printed, and dropped on a cross-origin redirect")
    func token() async throws {
        let token = "tok-\(UUID().uuidString)"
        let environment = ["NOTES_SERVER_TOKEN": token]
        let server = try FixtureServer(Self.loggedNotes + ["--fault", "auth"], environment: environment)
        let denied = try await Run(["fetch", "--all", server.url])
        let allowed = try await Run(
            ["fetch", "--all", server.url, "--format", "ids"], environment: ["NOTES_TOKEN": token])
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
        let run = try await Run(
            ["fetch", "--all", redirected.url, "--format", "ids"], environment: ["NOTES_TOKEN": token])
        let redirectLog = redirected.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(redirectLog.contains("[redirect target] GET /notes"))
        #expect(!run.stderr.contains(token) && !redirectLog.contains(token))
    }

    @Test("Credentials over plain http to a host that is not loopback are refused before connecting")
    func plainHTTP() async throws {
        let run = try await Run(["fetch", "http://example.com/notes"], environment: ["NOTES_TOKEN": "secret-value"])
        #expect(run.status == 64)
        #expect(
            run.messages.hasPrefix("Error: Refusing to send credentials over plain http to 'example.com': use https\n"))
        #expect(!run.stderr.contains("secret-value"))
    }

    /// Waits until `path` exists and is not empty, for at most `seconds`.
    func waitForFile(_ path: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: path), !data.isEmpty { return true }
            usleep(10_000)
        }
        return false
    }

    /// The request targets of `log` (the fixture server's), in order.
    static func requests(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            line.hasPrefix("GET /") ? String(line.split(separator: " ")[1]) : nil
        }
    }

    @Test(
        "SIGINT or SIGTERM during a slow drip stops within a second, keeps what is committed; the resumed run goes on from there",
        arguments: [SIGINT, SIGTERM]
    )
    func interrupt(signal: Int32) async throws {
        let expected = try await Self.cleanRun()
        let server = try FixtureServer(Self.loggedNotes + ["--fault", "drip:64/20@2x1"])
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.ndjson").path
        let state = directory.appendingPathComponent("state.json").path
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["fetch", "--all", server.url, "-o", output, "--state", state]
        let errors = Spawning.pipe()
        process.standardError = errors
        try Spawning.run(process)
        // Page 1 arrives at once; page 2 drips. Wait for page 1 to be committed.
        try #require(waitForFile(state), "page 1 was never committed")
        let sent = Date()
        kill(process.processIdentifier, signal)
        let hang = waitOrKill(process, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        // ThreadSanitizer holds an asynchronous signal until a thread reaches a call it intercepts
        // (llvm-project #83561): `make tsan` sets NOTES_SANITIZER=thread and allows a second more.
        let bound = ProcessInfo.processInfo.environment["NOTES_SANITIZER"] == "thread" ? 2.0 : 1.0
        #expect(Date().timeIntervalSince(sent) < bound)
        let stderr = PipeReader(errors).text()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(stderr)")
        let lines = withoutRecognition(stderr).split(separator: "\n").map(String.init)
        #expect(try Regex(#"Error: page 2 \(\#(Self.cursor)\): interrupted"#).wholeMatch(in: lines.first ?? "") != nil)
        #expect(
            lines.dropFirst().first
                == "Interrupted after 1 committed page (100 notes). Resume with: notes-page fetch --all --state \(state) -o \(output) \(server.url)"
        )
        let written = try Files.text(output)
        #expect(written == String(expected.split(separator: "\n").prefix(100).map { $0 + "\n" }.joined()))

        // Resumed: page 2 and page 3 are fetched, page 1 is not fetched again.
        let resumed = try await Run(["fetch", "--all", "--quiet", server.url, "-o", output, "--state", state])
        let log = server.stop()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Files.text(output) == expected)
        // The server logs a request when its response ends, so the one cut off by the signal may be missing.
        let targets = Self.requests(log)
        let pages = targets.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        #expect(pages.count == 3, "\(targets)")
        #expect(targets.filter { $0 == "/notes" }.count == 1, "page 1 fetched again: \(targets)")
        #expect(targets.filter { $0 == pages.last }.count == 1, "\(targets)")
        #expect((3...4).contains(targets.count), "\(targets)")
    }

    @Test(
        "A second signal exits at once, even while the first cannot stop a write that blocks",
        arguments: [SIGINT, SIGTERM])
    func secondSignal(first: Int32) throws {
        // One page of 3,000 notes (about 540 KB) to a pipe nobody reads: the write blocks on a full pipe.
        let server = try FixtureServer(["--count", "3000", "--page-size", "3000", "--quiet"])
        defer { server.stop() }
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["fetch", "--all", "--quiet", server.url]
        let output = Spawning.pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try Spawning.run(process)
        var poller = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        try #require(poll(&poller, 1, 10_000) == 1, "nothing was written")
        kill(process.processIdentifier, first)
        usleep(300_000)
        #expect(process.isRunning, "the write should still block")
        let sent = Date()
        kill(process.processIdentifier, SIGINT)
        let hang = waitOrKill(process, within: 5)
        #expect(hang == nil, "a second signal did not end the process: \(hang ?? "")")
        #expect(Date().timeIntervalSince(sent) < 2)
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    }

    @Test("kill -9 at random moments, then resume: every note exactly once (NOTES_TEST_SEED replays the kill times)")
    func killAndResume() async throws {
        let expected = try await Self.cleanRun()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.ndjson").path
        let state = directory.appendingPathComponent("state.json").path
        // A slow server, so that a kill lands mid-page as often as between pages.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:128/5"])
        defer { server.stop() }
        let arguments = ["fetch", "--all", "--quiet", server.url, "-o", output, "--state", state]
        let (finished, kills, replay) = try KillLoop.run(arguments, rounds: 8, delays: 20_000...600_000)
        if !finished {
            let run = try await Run(["fetch", "--all", "--quiet", server.url, "-o", output, "--state", state])
            #expect(run.status == 0, "\(replay): \(run.stderr)")
        }
        #expect(!kills.isEmpty, "\(replay)")
        #expect(try Files.text(output) == expected, "\(replay)")
        // Run again: the state says the run is complete, and nothing is fetched or written twice.
        let again = try await Run(["fetch", "--all", server.url, "-o", output, "--state", state])
        #expect(again.status == 0)
        #expect(again.messages == "Already complete: 250 notes in 3 pages.\n")
        #expect(try Files.text(output) == expected)
    }

    @Test("A local write that fails exits 74 and names the file", arguments: ["-o", "--state"])
    func localWriteFails(option: String) async throws {
        let server = try FixtureServer(Self.notes)
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run: Run
        if option == "-o" {
            try #require(FileManager.default.isWritableFile(atPath: "/dev/full"), "/dev/full is missing")
            run = try await Run(["fetch", "--all", server.url, "-o", "/dev/full"])
            #expect(
                run.messages.hasPrefix(
                    "Error: page 1 (the first page): cannot write output: No space left on device\n"), "\(run.stderr)")
        } else {
            let missing = directory.appendingPathComponent("no/such/dir/state.json").path
            run = try await Run(["fetch", "--all", server.url, "-o", "/dev/null", "--state", missing])
            #expect(
                run.messages == "Error: cannot open '\(missing).journal' for writing: No such file or directory\n")
        }
        #expect(run.status == 74)
    }

    @Test("--token-file: the token is read from the file (trimmed), sent, and never printed")
    func tokenFile() async throws {
        let token = "tok-\(UUID().uuidString)"
        let server = try FixtureServer(
            Self.loggedNotes + ["--fault", "auth"], environment: ["NOTES_SERVER_TOKEN": token])
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token").path
        try Files.write("  \(token)\n", to: file)
        let run = try await Run(["fetch", "--all", server.url, "--format", "ids", "--token-file", file])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(!run.stderr.contains(token))
        // The token file wins over NOTES_TOKEN.
        let wrong = try await Run(
            ["fetch", "--all", server.url, "--format", "ids", "--token-file", file],
            environment: ["NOTES_TOKEN": "wrong"])
        #expect(wrong.status == 0)
        let missing = try await Run([
            "fetch", server.url, "--token-file", directory.appendingPathComponent("none").path,
        ])
        #expect(missing.status == 64)
        #expect(missing.messages.hasPrefix("Error: Cannot read the token file '\(directory.path)/none'\n"))
        let log = server.stop()
        #expect(!log.contains(token))
    }

    @Test("An Authorization header over plain http is refused like a token, whatever its case")
    func authorizationHeader() async throws {
        for name in ["Authorization", "authorization", "AUTHORIZATION"] {
            let run = try await Run(["fetch", "http://example.com/notes", "--header", "\(name): Bearer secret-value"])
            #expect(run.status == 64)
            #expect(
                run.messages.hasPrefix(
                    "Error: Refusing to send credentials over plain http to 'example.com': use https\n"))
            #expect(!run.stderr.contains("secret-value"))
        }
        let https = try await Run([
            "fetch", "https://127.0.0.1:1/notes", "--header", "Authorization: Bearer x", "--retries", "0",
        ])
        #expect(https.status == 69, "\(https.stderr)")
    }

    @Test("Retry-After from a real server is waited out before the retry")
    func retryAfter() async throws {
        let expected = try await Self.cleanRun()
        let server = try FixtureServer(Self.loggedNotes + ["--fault", "503:2@2x1"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--quiet", server.url])
        let elapsed = run.seconds
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected)
        // A lower bound only: backoff without Retry-After waits at most 0.5 s before the first retry.
        #expect(elapsed >= 2.0, "the retry came after \(elapsed) s")
        let targets = Self.requests(server.stop())
        #expect(targets.count == 4 && targets[1] == targets[2], "\(targets)")
    }

    @Test("notes-page --help lists every subcommand; help fetch and fetch --help agree")
    func help() async throws {
        let top = try await Run(["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("SUBCOMMANDS:\n  fetch "))
        #expect(top.stdout.contains("\n  decode "))
        let helpFetch = try await Run(["help", "fetch"])
        let fetchHelp = try await Run(["fetch", "--help"])
        #expect(helpFetch.status == 0 && fetchHelp.status == 0)
        #expect(helpFetch.stdout == fetchHelp.stdout)
        #expect(fetchHelp.stdout.hasPrefix("OVERVIEW: Fetch notes from a cursor-paginated endpoint"))
        let none = try await Run([])
        #expect(none.status == 64)
        #expect(none.messages == top.stdout)
    }
}
