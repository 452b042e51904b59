import Foundation
import TestSupport
import Testing

/// `notes-page fetch --sqlite` and incremental syncs against `Tools/fixture-server/notes-server.mjs`, the database read
/// back with the `sqlite3` shell: a full walk, `kill -9` and resume, syncs over notes that change while
/// the server runs (`--updates`, `POST /admin/add` and `/admin/touch`), a locked database, files that are
/// not the walk's, and the usage errors of the options.
@Suite(
    "--sqlite and incremental syncs against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct SQLiteEndToEndTests {
    /// 1,000 notes in 10 pages of 100.
    static let notes = ["--count", "1000", "--page-size", "100", "--seed", "7"]
    static let sync = ["--since-path", "updated_at", "--since-param", "since"]

    /// A clean walk of ``notes``, one page at a time: its NDJSON, and the page number of each request
    /// target (`/notes` is page 1), as the client asks for them.
    static func cleanWalk() async throws -> (ndjson: String, pages: [String: Int]) {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(notes)
        let run = try await Run([
            "fetch", "--all", "--quiet", "--no-early-requests", "-o", scratch.path("out"), server.url,
        ])
        let targets = FetchCommandTests.requests(server.stop())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(targets.count == 10 && Set(targets).count == 10, "\(targets)")
        let pages = Dictionary(uniqueKeysWithValues: targets.enumerated().map { ($1, $0 + 1) })
        return (try scratch.read("out"), pages)
    }

    /// The id and title of each NDJSON line.
    static func titles(_ ndjson: String) -> [String: String] {
        var titles: [String: String] = [:]
        for line in ndjson.split(separator: "\n") {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            titles[object?["id"] as? String ?? "?"] = object?["title"] as? String ?? "?"
        }
        return titles
    }

    /// A note's JSON text as a value, so that two spellings of one note (escapes, `\/`) compare equal.
    static func value(_ json: some StringProtocol) -> NSDictionary? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? NSDictionary
    }

    /// The pages the database's checkpoint counts as committed in its run (0 before there is one), and
    /// whether that run reached the last page.
    static func checkpoint(_ database: String) throws -> (pages: Int, done: Bool) {
        guard FileManager.default.fileExists(atPath: database),
            try SQLiteShell.query(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'notes_page_walks'")
                == "1\n"
        else { return (0, false) }
        let text = try SQLiteShell.query(
            database,
            #"SELECT checkpoint->>'pages', checkpoint->>'next' IS NULL FROM notes_page_walks WHERE "table" = 'notes'"#)
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        let pages = fields.first.flatMap { Int($0) } ?? 0
        return (pages, pages > 0 && fields.last == "1")
    }

    static func committedPages(_ database: String) throws -> Int { try checkpoint(database).pages }

    @Test(
        "A full walk into --sqlite: a row per note, its JSON the NDJSON line of the same walk, its title; run again, refreshed"
    )
    func fullWalk() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        let server = try FixtureServer(Self.notes)
        let stored = try await Run(["fetch", "--all", "--sqlite", database, server.url])
        let written = try await Run(["fetch", "--all", "--quiet", "-o", scratch.path("out.ndjson"), server.url])
        try MarkedLog.mark(server, 1)
        let again = try await Run(["fetch", "--all", "--quiet", "--sqlite", database, server.url])
        let log = MarkedLog(server.stop())
        #expect(stored.status == 0 && written.status == 0, "\(stored.stderr) \(written.stderr)")
        #expect(stored.messages.hasPrefix("1000 notes, 10 pages, "), "\(stored.stderr)")

        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM notes") == "1000|1000\n")
        let ndjson = try scratch.read("out.ndjson")
        let lines = ndjson.split(separator: "\n").map(String.init)
        let rows = try SQLiteShell.query(database, "SELECT json FROM notes").split(separator: "\n").map(String.init)
        #expect(rows.count == 1000 && Set(rows) == Set(lines))
        let titles = try SQLiteShell.rows(database, "SELECT id, title FROM notes")
        let storedTitles = Dictionary(
            uniqueKeysWithValues: titles.map { ($0["id"] as? String ?? "?", $0["title"] as? String ?? "?") })
        #expect(storedTitles == Self.titles(ndjson))
        #expect(
            try SQLiteShell.query(database, "SELECT name FROM pragma_table_info('notes')")
                == "id\njson\ntitle\nfetched_at\nrun\n")
        #expect(try SQLiteShell.query(database, "PRAGMA journal_mode") == "wal\n")
        #expect(
            try SQLiteShell.query(
                database, "SELECT checkpoint->>'pages', checkpoint->>'notes', checkpoint->>'next' FROM notes_page_walks"
            )
                == "10|1000|\n")

        // A complete copy walked again is refreshed: every page asked once more, every row rewritten, none added.
        #expect(again.status == 0, "\(again.stderr)")
        #expect(log.targets(after: 1).count == 10, "\(log.targets(after: 1))")
        #expect(try SQLiteShell.query(database, "SELECT count(*), sum(run = 2) FROM notes") == "1000|1000\n")
        #expect(
            Set(try SQLiteShell.query(database, "SELECT json FROM notes").split(separator: "\n").map(String.init))
                == Set(lines))
    }

    @Test(
        "kill -9 at random moments, then the same command until it exits 0: every note once, no committed page asked again (NOTES_TEST_SEED replays)"
    )
    func killAndResume() async throws {
        let (expected, pages) = try await Self.cleanWalk()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        // A slow server (about 0.15 s a page), so that kills land mid-page as often as between pages.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:512/10"])
        defer { server.stop() }
        let arguments = ["fetch", "--all", "--quiet", "--sqlite", database, server.url]
        var committed: [Int] = []  // before each run
        let (finished, kills, replay) = try KillLoop.run(
            arguments, rounds: 8, delays: 20_000...600_000,
            beforeEachRound: { round in
                let pagesBefore = try Self.committedPages(database)
                // Whole pages only: the rows are exactly the pages the checkpoint counts.
                if pagesBefore > 0 {
                    #expect(try SQLiteShell.query(database, "SELECT count(*) FROM notes") == "\(pagesBefore * 100)\n")
                }
                committed.append(pagesBefore)
                try MarkedLog.mark(server, round)
            },
            // A kill after the last page's commit leaves a complete walk, which the command would walk again
            // (a refresh): the walk is done.
            isDone: { try Self.checkpoint(database).done })
        if !finished {
            committed.append(try Self.committedPages(database))
            try MarkedLog.mark(server, committed.count - 1)
            let run = try await Run(arguments)
            #expect(run.status == 0, "\(replay): \(run.stderr)")
        }
        #expect(!kills.isEmpty, "\(replay)")
        let log = MarkedLog(server.stop())

        #expect(
            try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id), sum(run = 1) FROM notes")
                == "1000|1000|1000\n", "\(replay)")
        // Each row was inserted once, in the walk's order: no page was committed twice.
        let ids = try SQLiteShell.query(database, "SELECT id FROM notes ORDER BY rowid").split(separator: "\n").map(
            String.init)
        #expect(ids == (0..<1000).map { "n\($0)" }, "\(replay)")
        let rows = try SQLiteShell.query(database, "SELECT json FROM notes ORDER BY rowid")
        #expect(rows == expected, "\(replay)")
        #expect(
            try SQLiteShell.query(database, "SELECT checkpoint->>'pages', checkpoint->>'notes' FROM notes_page_walks")
                == "10|1000\n")
        // Each run asked only for pages not committed when it started.
        var asked = Set<Int>()
        for (run, before) in committed.enumerated() {
            let targets = log.targets(after: run)
            let numbers = targets.map { pages[$0] ?? 0 }
            #expect(
                numbers.allSatisfy { $0 > before },
                "\(replay): run \(run + 1) (\(before) pages committed) asked \(numbers)")
            asked.formUnion(numbers)
        }
        #expect(asked == Set(1...10), "\(replay): \(asked.sorted())")
    }
}
