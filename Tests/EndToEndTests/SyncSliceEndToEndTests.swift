import Foundation
import TestSupport
import Testing

/// `notes-page sync` of a resource in time windows (`slice:`) against the fixture server's Stripe-shaped
/// invoices: a cursor chain (`starting_after`) that cannot be addressed ahead, bounded by Stripe's own
/// `created[gte]` and `created[lt]`, with `--created-round 86400` putting every invoice on a day's edge.
@Suite(
    "notes-page sync of a resource in time windows against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct SyncSliceEndToEndTests {
    /// A server of `repos` customers and their invoices, each invoice created at midnight (UTC) of a day
    /// in January 2026.
    static func server(repos: Int = 60) throws -> FixtureServer {
        try FixtureServer(
            ["--count", "1", "--repos", "\(repos)", "--issues", "5", "--created-round", "86400", "--seed", "7"])
    }

    /// The source: `/v1/invoices` in pages of 7, sliced by `created` with `slice` (its keys inside braces).
    static func source(_ server: FixtureServer, slice: String, in scratch: Scratch) throws -> String {
        let source = """
            base-url: \(server.url.replacingOccurrences(of: "/notes", with: "/v1/"))
            defaults:
              paginate: keyset
              page-size: 7
              items-path: data
              no-title: true
              retries: 2
            resources:
              - name: invoices
                path: invoices
                slice: {path: created, \(slice.contains("format:") ? "" : "format: unix, ")\(slice)}
            """
        try Files.write(source, to: scratch.path("stripe.yaml"))
        return scratch.path("stripe.yaml")
    }

    /// Checks that `database` holds every invoice once (their ids run from in_1000001 with no gap), each
    /// in the window its `created` is in.
    static func expectWhole(_ database: String, _ context: String) throws {
        #expect(
            try SQLiteShell.query(
                database,
                "SELECT count(*) = count(DISTINCT id), count(*) = max(CAST(substr(id, 4) AS INTEGER)) - 1000000, count(*) > 100 FROM invoices"
            ) == "1|1|1\n", "\(context)")
        #expect(
            try SQLiteShell.query(
                database,
                """
                SELECT count(*) FROM invoices WHERE NOT (unixepoch(substr(slice, 1, 20)) <= json->>'created'
                    AND json->>'created' < unixepoch(substr(slice, 22)))
                """) == "0\n", "\(context)")
    }

    @Test("Windows of a cursor chain walked in parallel: every invoice once, many on each edge, each in its own window")
    func windows() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server()
        let source = try Self.source(
            server, slice: #"params: ["created[gte]", "created[lt]"], step: 1d, from: 2026-01-01, to: 2026-02-01"#,
            in: scratch)
        let database = scratch.path("stripe.db")
        let run = try await Run(["sync", source, "--sqlite", database, "--parallel", "4"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("31 windows of created from 2026-01-01T00:00:00Z"), "\(run.stderr)")
        try Self.expectWhole(database, run.stderr)
        // Every invoice on an edge, and many on each: a window that took its end in would have them twice.
        #expect(
            try SQLiteShell.query(database, "SELECT count(*) FROM invoices WHERE json->>'created' % 86400 != 0")
                == "0\n")
        #expect(
            try SQLiteShell.query(
                database, "SELECT min(n) >= 3 FROM (SELECT count(*) AS n FROM invoices GROUP BY json->>'created')")
                == "1\n")
        let requests = MarkedLog(server.stop()).requests.map(\.target).filter { $0.hasPrefix("/v1/invoices") }
        #expect(
            requests.allSatisfy { $0.contains("created%5Bgte%5D=") && $0.contains("created%5Blt%5D=") },
            "\(requests.prefix(3))")
        let windows = Set(
            requests.map { $0.split(separator: "&").filter { $0.contains("created") }.joined(separator: "&") })
        #expect(windows.count == 31, "\(windows.sorted().prefix(3))")
    }

    @Test("A later run walks only the windows from where the last ended, less the lookback")
    func later() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 30)
        defer { server.stop() }
        let source = try Self.source(
            server, slice: #"params: ["created[gte]", "created[lt]"], step: 30d, from: 2025-12-01, lookback: 1h"#,
            in: scratch)
        let database = scratch.path("stripe.db")
        try MarkedLog.mark(server, 1)
        let first = try await Run(["sync", source, "--sqlite", database])
        #expect(first.status == 0, "\(first.stderr)")
        try Self.expectWhole(database, first.stderr)
        let ended = try SQLiteShell.query(database, "SELECT max(substr(\"table\", 31)) FROM notes_page_walks")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let end = Int(try #require(ISO8601DateFormatter().date(from: ended)).timeIntervalSince1970)
        try MarkedLog.mark(server, 2)
        let again = try await Run(["sync", source, "--sqlite", database])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("1 window of created"), "\(again.stderr)")
        let log = MarkedLog(server.stop())
        let asked = log.targets(after: 2, under: "/v1/invoices")
        #expect(asked.count == 1 && asked[0].contains("created%5Bgte%5D=\(end - 3600)&"), "\(asked) \(ended)")
        #expect(log.targets(after: 1, under: "/v1/invoices").count > 10)
        try Self.expectWhole(database, again.stderr)
    }

    @Test("A server that ignores the window's parameters: the first record outside its window fails the walk, named")
    func ignored() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 10)
        defer { server.stop() }
        let source = try Self.source(
            server, slice: "params: [created_after, created_before], step: 7d, from: 2026-01-01, to: 2026-02-01",
            in: scratch)
        let run = try await Run(["sync", source, "--sqlite", scratch.path("stripe.db")])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr.contains("created is ") && run.stderr.contains("outside the window 2026-01-")
                && run.stderr.contains("the server did not keep to the window's parameters"), "\(run.stderr)")
    }

    @Test("Slice mistakes are usage errors at their line, before any request")
    func mistakes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 2)
        defer { server.stop() }
        for (slice, expected) in [
            ("params: [a], step: 1d, from: 2026-01-01", "lists the two query parameters"),
            ("params: [a, b], step: 1x, from: 2026-01-01", "a duration such as"),
            ("params: [a, b], step: 1d, from: soon", "a date (2020-01-01)"),
            ("params: [a, b], step: 1s, from: 2000-01-01", "take a larger step"),
            ("params: [a, b], step: 1d", "has no 'from'"),
            ("params: [a, b], step: 1d, from: 2026-01-01, to: 2025-01-01", "'to' must come after 'from'"),
            ("params: [a, b], step: 1d, from: 2026-01-01, format: iso", "rfc3339 or unix"),
            ("params: [a, b], step: 1d, from: 2026-01-01, stepp: 1", "did you mean 'step'?"),
        ] {
            let source = try Self.source(server, slice: slice, in: scratch)
            let run = try await Run(["sync", source, "--sqlite", scratch.path("stripe.db")])
            #expect(
                run.status == 64 && run.stderr.contains("stripe.yaml:") && run.stderr.contains(expected),
                "\(slice): \(run.stderr)")
        }
        let files = try await Run([
            "sync", try Self.source(server, slice: "params: [a, b], step: 1d, from: 2026-01-01", in: scratch), "-o",
            scratch.path("out"),
        ])
        #expect(files.status == 64 && files.stderr.contains("a sliced resource is kept in a table"), "\(files.stderr)")
    }

    /// `fetch`'s arguments for the server's invoices in windows of `step` through January 2026, into the
    /// SQLite file `database`.
    static func fetchArguments(_ server: FixtureServer, into database: String, step: String) -> [String] {
        [
            "fetch", "--all", "--sqlite", database, "--table", "invoices", "--paginate", "keyset", "--page-size", "3",
            "--items-path", "data", "--no-title", "--slice-path", "created", "--slice-params",
            "created[gte],created[lt]", "--slice-step", step, "--slice-from", "2026-01-01", "--slice-to",
            "2026-02-01", "--slice-format", "unix", server.url.replacingOccurrences(of: "/notes", with: "/v1/invoices"),
        ]
    }

    @Test(
        "fetch --slice-*: the windows one after another; killed mid-way, the same command goes on, every invoice once")
    func fetchKilled() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(
            [
                "--count", "1", "--repos", "60", "--issues", "5", "--created-round", "86400", "--seed", "7",
                "--latency", "15",
            ])
        let database = scratch.path("stripe.db")
        let arguments = Self.fetchArguments(server, into: database, step: "4d")
        try MarkedLog.mark(server, 1)
        let killed = try Background(arguments)
        usleep(1_200_000)
        killed.signal(SIGKILL)
        let first = killed.finish()
        #expect(first.status == 137, "\(first.stderr)")
        let done = try SQLiteShell.query(
            database,
            """
            SELECT count(*) FROM notes_page_walks
            WHERE json_extract(checkpoint, '$.next') IS NULL AND json_extract(checkpoint, '$.pages') > 0
            """)
        try MarkedLog.mark(server, 2)
        let again = try await Run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("window") && again.stderr.contains("[2026-01-"), "\(again.stderr)")
        try Self.expectWhole(database, again.stderr)
        // The windows done before the kill were not walked again, and each committed page was asked once.
        let log = MarkedLog(server.stop())
        let firstTargets = log.targets(after: 1, under: "/v1/invoices")
        let secondTargets = log.targets(after: 2, under: "/v1/invoices")
        #expect(Int(done.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0, "\(first.stderr)")
        let pages =
            Int(
                try SQLiteShell.query(
                    database, "SELECT sum(json_extract(checkpoint, '$.pages')) FROM notes_page_walks"
                ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(
            firstTargets.count + secondTargets.count <= pages + 2,
            "\(firstTargets.count) + \(secondTargets.count) requests for \(pages) pages")
        #expect(Set(secondTargets).isDisjoint(with: Set(firstTargets.dropLast(2))))
    }

    @Test("fetch --slice-* needs a table, --all, and its four options; refuses --since-path")
    func fetchUsage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = "http://127.0.0.1:9/v1/invoices"
        for (arguments, expected) in [
            (["--all", "--slice-path", "created", url], "needs --slice-params"),
            (
                [
                    "--all", "--slice-path", "created", "--slice-params", "a,b", "--slice-step", "1d", "--slice-from",
                    "2026-01-01", url,
                ], "give --sqlite FILE or --postgres URL"
            ),
            (
                [
                    "--sqlite", scratch.path("x.db"), "--slice-path", "created", "--slice-params", "a,b",
                    "--slice-step", "1d", "--slice-from", "2026-01-01", url,
                ], "give --all"
            ),
            (
                [
                    "--all", "--sqlite", scratch.path("x.db"), "--slice-path", "created", "--slice-params", "a",
                    "--slice-step", "1d", "--slice-from", "2026-01-01", url,
                ], "Invalid --slice-params"
            ),
            (
                [
                    "--all", "--sqlite", scratch.path("x.db"), "--slice-path", "created", "--slice-params", "a,b",
                    "--slice-step", "1d", "--slice-from", "2026-01-01", "--since-path", "created", "--since-param",
                    "since", url,
                ], "do not go together"
            ),
        ] {
            let run = try await Run(["fetch"] + arguments)
            #expect(run.status == 64 && run.stderr.contains(expected), "\(arguments): \(run.stderr)")
        }
    }
}
