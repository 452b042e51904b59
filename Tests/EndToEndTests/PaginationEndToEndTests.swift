import Foundation
import TestSupport
import Testing

/// `notes-page fetch --paginate …` against `Tools/fixture-server/notes-server.mjs` in each of its styles:
/// the same 250 notes whatever the scheme, a resume in the scheme's own terms, a retried middle page.
@Suite(
    "Every pagination scheme against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct PaginationEndToEndTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7"]

    /// Server style, client options, and the line `auto` writes (when the client runs auto).
    static let styles: [(server: String, client: [String], recognition: String?)] = [
        (
            "offset",
            ["--paginate", "offset", "--page-size", "100", "--items-path", "results", "--total-path", "count"], nil
        ),
        (
            "offset", ["--items-path", "results", "--next-path", "next"],
            "Pagination: auto follows the body's 'next', a URL, which walks offset pages (offset)"
        ),
        (
            "page", ["--paginate", "page", "--page-size", "100", "--items-path", "results", "--total-path", "count"],
            nil
        ),
        (
            "page", ["--items-path", "results", "--next-path", "next"],
            "Pagination: auto follows the body's 'next', a URL, which walks page numbers (page)"
        ),
        ("page", ["--paginate", "link", "--items-path", "results"], nil),
        ("keyset", ["--paginate", "keyset", "--page-size", "100", "--items-path", "data"], nil),
        ("header", ["--paginate", "header", "--next-header", "X-Next-Cursor"], nil),
    ]

    static func cleanRun() async throws -> String {
        let server = try FixtureServer(notes + ["--quiet"])
        defer { server.stop() }
        return try await Run(["fetch", "--all", "--quiet", server.url]).stdout
    }

    @Test("Each scheme gives the contract style's 250 notes, each once, in order; a failing middle page is retried")
    func walks() async throws {
        let expected = try await Self.cleanRun()
        for (style, client, recognition) in Self.styles {
            let server = try FixtureServer(Self.notes + ["--style", style, "--fault", "503:0@2x1"])
            let run = try await Run(["fetch", "--all", server.url] + client)
            let log = server.stop()
            #expect(run.status == 0, "\(style) \(client): \(run.stderr)")
            #expect(run.stdout == expected, "\(style) \(client)")
            #expect(run.messages.hasPrefix("250 notes, 3 pages, "), "\(style) \(client): \(run.stderr)")
            // What auto recognised; the paths found on the first page are said before it.
            let said = run.stderr.split(separator: "\n").filter {
                $0.hasPrefix("Pagination: ") && !$0.hasPrefix("Pagination: found ")
            }
            #expect(said == (recognition.map { [Substring($0)] } ?? []), "\(style) \(client): \(run.stderr)")
            #expect(FetchCommandTests.requests(log).count == 4, "\(style) \(client): the retry: \(log)")
        }
    }

    @Test("Each scheme resumes where it stopped: page 1 is never fetched again")
    func resumes() async throws {
        let expected = try await Self.cleanRun()
        for (style, client, _) in Self.styles {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let files = [
                "-o", scratch.path("out"), "--state",
                scratch.path("state"),
            ]
            let server = try FixtureServer(Self.notes + ["--style", style])
            let first = try await Run(["fetch", "--all", "--quiet", "--max-pages", "1", server.url] + files + client)
            let second = try await Run(["fetch", "--all", "--quiet", server.url] + files + client)
            let log = server.stop()
            #expect(first.status == 0 && second.status == 0, "\(style) \(client): \(first.stderr) \(second.stderr)")
            #expect(
                try scratch.read("out") == expected,
                "\(style) \(client)")
            let targets = FetchCommandTests.requests(log)
            #expect(targets.count == 3 && Set(targets).count == 3, "\(style) \(client): \(targets)")
        }
    }

    @Test("A total that says more than the server sends is a contract error: exit 65, never 0 with notes missing")
    func totalDisagrees() async throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--style", "offset", "--total-lie", "5"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", server.url, "-o", "/dev/null"] + Self.styles[0].client)
        #expect(run.status == 65)
        #expect(
            run.messages.hasSuffix(
                " MB/s\nError: the server announced 255 notes, but its last page came after 250: 5 are missing\n"),
            "\(run.stderr)")
    }

    @Test("Offsets over a dataset that shifts: fail names the duplicate; skip writes each id once and counts the rest")
    func shiftingDataset() async throws {
        let client = Self.styles[0].client + ["--format", "ids", "--parallel", "1"]
        let failing = try FixtureServer(Self.notes + ["--quiet", "--style", "offset", "--fault", "shift:3@2"])
        let failed = try await Run(["fetch", "--all", failing.url] + client)
        failing.stop()
        #expect(failed.status == 65)
        #expect(
            failed.messages.hasPrefix(#"Error: page 2 (offset 100): duplicate id "n97", seen on page 1 (note 0, "#),
            "\(failed.stderr)")

        let skipping = try FixtureServer(Self.notes + ["--quiet", "--style", "offset", "--fault", "shift:3@2"])
        let skipped = try await Run(["fetch", "--all", skipping.url, "--on-duplicate", "skip"] + client)
        skipping.stop()
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let ids = skipped.stdout.split(separator: "\n").map(String.init)
        #expect(ids == (0..<250).map { "n\($0)" })
        #expect(skipped.messages.hasPrefix("250 notes, 3 pages, 3 duplicates skipped, "), "\(skipped.stderr)")
        #expect(!skipped.messages.contains("announced"), "253 announced, 250 written and 3 skipped: they agree")
    }

    @Test(
        "The README's recipes for GitHub (bare arrays, Link) and Stripe (keyset): integer ids, no title, every note once",
        arguments: [
            ("link", ["--no-title"]),
            ("keyset", ["--no-title", "--paginate", "keyset", "--page-size", "100", "--items-path", "data"]),
            ("drf", ["--no-title"]),
            ("jsonapi", ["--items-path", "data", "--title-path", "attributes.title", "--next-path", "links.next"]),
        ])
    func recipes(style: String, client: [String]) async throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--style", style, "--id-kind", "int"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--format", "ids", server.url] + client)
        #expect(run.status == 0, "\(style): \(run.stderr)")
        let ids = run.stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(ids.count == 250 && Set(ids).count == 250 && ids == ids.sorted(), "\(style): \(run.stdout.prefix(200))")
        #expect(run.messages.hasPrefix("250 notes, "), "\(style): \(run.stderr)")
    }

    static let parallel = [
        "--paginate", "offset", "--page-size", "100", "--items-path", "results", "--total-path", "count",
        "--parallel", "4",
    ]

    @Test("In parallel: kill -9 at random moments, then resume: every note exactly once (NOTES_TEST_SEED replays)")
    func parallelKillAndResume() async throws {
        let notes = ["--count", "1000", "--page-size", "100", "--seed", "7"]
        let clean = try FixtureServer(notes + ["--quiet"])
        let expected = try await Run(["fetch", "--all", "--quiet", clean.url]).stdout
        clean.stop()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let files = [
            "-o", scratch.path("out"), "--state",
            scratch.path("state"),
        ]
        let server = try FixtureServer(notes + ["--quiet", "--style", "offset", "--fault", "drip:128/10"])
        defer { server.stop() }
        let (_, kills, replay) = try KillLoop.run(
            ["fetch", "--all", "--quiet", server.url] + files + Self.parallel, rounds: 6, delays: 50_000...700_000)
        let last = try await Run(["fetch", "--all", "--quiet", server.url] + files + Self.parallel)
        #expect(last.status == 0, "\(replay): \(last.stderr)")
        #expect(!kills.isEmpty, "\(replay)")
        #expect(
            try scratch.read("out") == expected, "\(replay)")
    }

    @Test("In parallel: a 401 on a page in flight ends the run with 77 after the pages before it")
    func parallelSessionExpired() async throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--style", "offset", "--fault", "401@3"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", server.url, "--format", "ids"] + Self.parallel)
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 200)
        #expect(run.messages.hasPrefix("Error: page 3 (offset 200): session expired (HTTP 401)"), "\(run.stderr)")
    }

    @Test("Ctrl-C while the next page was requested early: exit 130 within a second, only page 1 written")
    func interruptWithEarlyPages() throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--style", "link", "--fault", "drip:64/20@2"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let output = scratch.path("out")
        let state = scratch.path("state")
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = [
            "fetch", "--all", "--quiet", "--paginate", "link", server.url, "-o", output, "--state", state,
        ]
        try Spawning.run(process)
        let deadline = Date().addingTimeInterval(10)
        while (FileManager.default.contents(atPath: state)?.isEmpty ?? true) && Date() < deadline { usleep(10_000) }
        try #require(FileManager.default.contents(atPath: state)?.isEmpty == false, "page 1 was never committed")
        let sent = Date()
        process.interrupt()
        let hang = waitOrKill(process, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        let bound = ProcessInfo.processInfo.environment["NOTES_SANITIZER"] == "thread" ? 2.0 : 1.0
        #expect(Date().timeIntervalSince(sent) < bound)
        #expect(process.terminationStatus == 130)
        #expect(try Files.text(output).split(separator: "\n").count == 100)
    }

    @Test("In parallel: Ctrl-C stops every page in flight within a second; the committed prefix resumes exactly")
    func parallelInterrupt() async throws {
        let expected = try await Self.cleanRun()
        let server = try FixtureServer(Self.notes + ["--quiet", "--style", "offset", "--fault", "drip:64/20@3x1"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let files = [
            "-o", scratch.path("out"), "--state",
            scratch.path("state"),
        ]
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["fetch", "--all", "--quiet", server.url] + files + Self.parallel
        try Spawning.run(process)
        // Pages 1 and 2 are committed at once; page 3 drips, so page 4 waits for it.
        let state = scratch.path("state")
        let deadline = Date().addingTimeInterval(10)
        while (try? RunStateProbe.pages(state)) ?? 0 < 2 && Date() < deadline { usleep(10_000) }
        try #require((try? RunStateProbe.pages(state)) == 2, "pages 1 and 2 were never committed")
        let sent = Date()
        process.interrupt()
        let hang = waitOrKill(process, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        let bound = ProcessInfo.processInfo.environment["NOTES_SANITIZER"] == "thread" ? 2.0 : 1.0
        #expect(Date().timeIntervalSince(sent) < bound)
        #expect(process.terminationStatus == 130)
        let prefix = expected.split(separator: "\n").prefix(200).map { $0 + "\n" }.joined()
        #expect(try scratch.read("out") == prefix)
        let resumed = try await Run(["fetch", "--all", "--quiet", server.url] + files + Self.parallel)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try scratch.read("out") == expected)
    }
}

/// Reads the page count of a state file, for tests that wait for a commit.
enum RunStateProbe {
    static func pages(_ path: String) throws -> Int {
        let data = try Files.data(URL(fileURLWithPath: path))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["pages"] as? Int ?? 0
    }
}
