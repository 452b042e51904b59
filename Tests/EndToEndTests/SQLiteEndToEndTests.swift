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

    /// A fixture server whose notes change (`--updates`), with three notes added and four edited after the
    /// first sync: the answers of `POST /admin/add` and `/admin/touch`, the notes as the server now serves them.
    static func change(_ server: FixtureServer) throws -> (added: [NSDictionary], touched: [NSDictionary]) {
        let added = try FixtureRequest.post(server, "/admin/add?count=3")
        let touched = try FixtureRequest.post(server, "/admin/touch?count=4")
        return (added["added"] as? [NSDictionary] ?? [], touched["touched"] as? [NSDictionary] ?? [])
    }

    @Test(
        "An incremental sync into --sqlite asks from the highest updated_at: only what changed, edits applied; nothing new, one request"
    )
    func incrementalSync() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        let server = try FixtureServer(Self.notes + ["--updates"])
        defer { server.stop() }
        let command = ["fetch", "--all", "--sqlite", database, server.url] + Self.sync
        try MarkedLog.mark(server, 0)
        let first = try await Run(command)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.messages.hasPrefix("first sync: 1000 notes, 10 pages, "), "\(first.stderr)")
        let highest = try SQLiteShell.query(database, "SELECT max(json->>'updated_at') FROM notes")
        #expect(highest == "2026-12-01T00:39:00Z\n")
        let before = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")

        let (added, touched) = try Self.change(server)
        #expect(added.count == 3 && touched.count == 4)
        let changed = Set((added + touched).compactMap { $0["id"] as? String })
        let others =
            "SELECT id, json FROM notes WHERE id NOT IN (\(changed.map { "'\($0)'" }.joined(separator: ","))) ORDER BY id"
        let othersBefore = try SQLiteShell.query(database, others)
        let newest = (added + touched).compactMap { $0["updated_at"] as? String }.max() ?? "?"
        try MarkedLog.mark(server, 1)
        let second = try await Run(command)
        #expect(second.status == 0, "\(second.stderr)")
        // The note at the highest value comes again (since is inclusive) unless it was edited: the upsert absorbs it.
        let fetched = changed.contains("n999") ? 7 : 8
        #expect(second.messages.hasPrefix("since 2026-12-01T00:39:00Z: \(fetched) notes, 1 page, "), "\(second.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM notes") == "1003|1003\n")
        for note in added + touched {
            let id = note["id"] as? String ?? "?"
            let row = try SQLiteShell.rows(database, "SELECT title, json, run FROM notes WHERE id = '\(id)'")
            #expect(row.first?["title"] as? String == note["title"] as? String, "\(id): \(row)")
            #expect(row.first.flatMap { Self.value($0["json"] as? String ?? "") } == note, "\(id): \(row)")
            #expect(row.first?["run"] as? Int == 2, "\(id)")
        }
        // The rows nobody changed are as the first sync wrote them.
        #expect(try SQLiteShell.query(database, others) == othersBefore)
        #expect(othersBefore.split(separator: "\n").count == 1000 - touched.count && before != othersBefore)

        let afterSecond = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")
        try MarkedLog.mark(server, 2)
        let third = try await Run(command)
        let afterThird = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")
        try MarkedLog.mark(server, 3)
        let withLookback = try await Run(command + ["--lookback", "5m"])
        let log = MarkedLog(server.stop())

        #expect(log.targets(after: 0).count == 10, "\(log.targets(after: 0))")
        #expect(log.since(after: 0).allSatisfy { $0 == nil }, "\(log.targets(after: 0))")
        #expect(log.since(after: 1) == ["2026-12-01T00:39:00Z"], "\(log.targets(after: 1))")
        #expect(log.targets(after: 1).count == 1, "only the changed records' page: \(log.targets(after: 1))")

        // Nothing new: one request from the newest value, one note, no row changed.
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.messages.hasPrefix("since \(newest): 1 note, 1 page, "), "\(third.stderr)")
        #expect(log.since(after: 2) == [newest], "\(log.targets(after: 2))")
        #expect(afterThird == afterSecond)
        // A lookback asks from that much before: the last five minutes' notes come again, and change nothing.
        #expect(withLookback.status == 0, "\(withLookback.stderr)")
        #expect(log.since(after: 3) == ["2026-12-01T00:41:00Z"], "\(log.targets(after: 3))")
        #expect(
            withLookback.messages.hasPrefix("since 2026-12-01T00:41:00Z: 6 notes, 1 page, "), "\(withLookback.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id") == afterSecond)
    }

    @Test("An incremental sync into NDJSON (-o, --state): the new notes appended, the overlap never written twice")
    func incrementalNDJSON() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(Self.notes + ["--updates"])
        defer { server.stop() }
        let command =
            ["fetch", "--all", "-o", scratch.path("out"), "--state", scratch.path("state"), server.url] + Self.sync
        let first = try await Run(command)
        #expect(first.status == 0, "\(first.stderr)")
        let firstLines = try scratch.read("out")
        #expect(firstLines.split(separator: "\n").count == 1000)

        let (added, touched) = try Self.change(server)
        let kept = touched.count + (touched.contains { $0["id"] as? String == "n999" } ? 0 : 1)
        try MarkedLog.mark(server, 1)
        let second = try await Run(command)
        try MarkedLog.mark(server, 2)
        let third = try await Run(command)
        let log = MarkedLog(server.stop())

        #expect(second.status == 0, "\(second.stderr)")
        #expect(log.since(after: 1) == ["2026-12-01T00:39:00Z"], "\(log.targets(after: 1))")
        #expect(
            second.messages.hasPrefix("since 2026-12-01T00:39:00Z: 3 notes, 1 page, \(kept) already kept, "),
            "\(second.stderr)")
        let output = try scratch.read("out")
        #expect(output.hasPrefix(firstLines))
        let ids = FetchCommandTests.ids(output)
        #expect(ids.count == 1003 && Set(ids).count == 1003)
        #expect(Array(ids.suffix(3)) == added.compactMap { $0["id"] as? String })
        #expect(
            output.split(separator: "\n").suffix(3).map { Self.value($0) } == added.map { Optional($0) })

        // Nothing new since the second run: one request, from the newest updated_at the server sent.
        // The edited notes, skipped as already kept, raise the highest value too: the third run asks from
        // the newest edit and gets that one note again.
        let newest = (added + touched).compactMap { $0["updated_at"] as? String }.max() ?? "?"
        #expect(third.status == 0, "\(third.stderr)")
        #expect(log.since(after: 2) == [newest], "\(log.targets(after: 2))")
        #expect(third.messages.hasPrefix("since \(newest): No notes, 1 page, 1 already kept, "), "\(third.stderr)")
        #expect(try scratch.read("out") == output)
    }

    @Test(
        "A database locked by another writer: exit 74 naming the lock, the committed pages kept; resumed after the release"
    )
    func locked() async throws {
        let (expected, pages) = try await Self.cleanWalk()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        // Pages of about 0.25 s each, so that the walk is under way when the lock is taken.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:256/10"])
        defer { server.stop() }
        let walk = Process()
        walk.executableURL = Run.binary
        walk.arguments = ["fetch", "--all", "--sqlite", database, server.url]
        let errors = Spawning.pipe()
        walk.standardError = errors
        let said = PipeReader(errors)
        try Spawning.run(walk)
        let deadline = Date().addingTimeInterval(30)
        // The shell may find the database busy while notes-page creates it.
        while ((try? Self.committedPages(database)) ?? 0) < 1 && walk.isRunning && Date() < deadline { usleep(20_000) }

        // Another writer: the sqlite3 shell in a transaction of its own, which it holds while its input is open.
        let holder = Process()
        holder.executableURL = SQLiteShell.executable
        holder.arguments = [database]
        let input = Spawning.pipe()
        let output = Spawning.pipe()
        holder.standardInput = input
        holder.standardOutput = output
        holder.standardError = output
        try Spawning.run(holder)
        input.fileHandleForWriting.write(Data(".timeout 10000\nBEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        let answer = firstLine(of: output)
        #expect(answer == "locked")
        #expect(walk.isRunning, "the walk ended before the lock was taken: \(said.text())")
        let hang = waitOrKill(walk, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        let stderr = said.text()
        let committed = try Self.committedPages(database)
        #expect(walk.terminationStatus == 74, "\(stderr)")
        #expect(
            try Regex(
                #"Error: page \#(committed + 1) \(cursor \S+\): '.*': .*the database is locked by another writer"#
            )
            .firstMatch(in: stderr) != nil, "\(stderr)")
        #expect(
            stderr.contains(
                "Stopped after \(committed) committed page\(committed == 1 ? "" : "s") (\(committed * 100) notes). Resume with: notes-page fetch --all --sqlite \(database) \(server.url)\n"
            ), "\(stderr)")
        #expect((1..<10).contains(committed))
        #expect(try SQLiteShell.query(database, "SELECT count(*) FROM notes") == "\(committed * 100)\n")

        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        #expect(waitOrKill(holder, within: 20) == nil)
        try MarkedLog.mark(server, 1)
        let resumed = try await Run(["fetch", "--all", "--quiet", "--sqlite", database, server.url])
        let log = MarkedLog(server.stop())
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT json FROM notes ORDER BY rowid") == expected)
        let asked = log.targets(after: 1).map { pages[$0] ?? 0 }
        #expect(asked == Array(committed + 1...10), "\(asked)")
    }

    @Test(
        "A file that is not SQLite, a table notes-page did not write, a copy of another endpoint: exit 74, nothing asked or changed"
    )
    func foreign() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(Self.notes)
        defer { server.stop() }
        let text = scratch.path("notes.txt")
        let words = "Just some text, not a database at all, and long enough to be read as a SQLite header.\n"
        try Files.write(words, to: text)
        try MarkedLog.mark(server, 0)
        let notADatabase = try await Run(["fetch", "--all", "--sqlite", text, server.url])
        #expect(notADatabase.status == 74)
        #expect(notADatabase.messages.hasPrefix("Error: '\(text)': "), "\(notADatabase.stderr)")
        #expect(notADatabase.messages.hasSuffix(": not a SQLite database\n"), "\(notADatabase.stderr)")
        #expect(try scratch.read("notes.txt") == words)

        let theirs = scratch.path("theirs.db")
        _ = try SQLiteShell.query(theirs, "CREATE TABLE notes (a, b); INSERT INTO notes VALUES (1, 2)")
        let foreignTable = try await Run(["fetch", "--all", "--sqlite", theirs, server.url])
        #expect(foreignTable.status == 74)
        #expect(
            foreignTable.messages
                == "Error: '\(theirs)': a table notes exists that notes-page did not write; use --table\n")
        #expect(try SQLiteShell.query(theirs, "SELECT * FROM notes") == "1|2\n")
        try MarkedLog.mark(server, 1)
        let beside = try await Run([
            "fetch", "--all", "--quiet", "--max-pages", "1", "--sqlite", theirs, "--table", "mine", server.url,
        ])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(
            try SQLiteShell.query(theirs, "SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM mine)")
                == "1|100\n")

        let other = server.url + "?style=drf"
        try MarkedLog.mark(server, 2)
        let otherEndpoint = try await Run(["fetch", "--all", "--sqlite", theirs, "--table", "mine", other])
        let log = MarkedLog(server.stop())
        #expect(otherEndpoint.status == 74)
        #expect(
            otherEndpoint.messages
                == "Error: '\(theirs)': table mine holds the notes of another endpoint (\(server.url))\n")
        #expect(try SQLiteShell.query(theirs, "SELECT count(*) FROM mine") == "100\n")
        #expect(log.targets(after: 0).isEmpty && log.targets(after: 2).isEmpty, "\(log.requests)")
        #expect(!log.targets(after: 1).isEmpty)
    }

    @Test(
        "Options that cannot go together, or values that cannot be: exit 64 with the message, no file made",
        arguments: [
            (["-o", "out"], "--sqlite and --output cannot go together: the database holds the notes and the state"),
            (
                ["--state", "state"],
                "--sqlite and --state cannot go together: the database holds the notes and the state"
            ),
            (["--since-path", "updated_at"], "--since-path needs --since-param: the query parameter that sends it"),
            (["--since-param", "since"], "--since-param needs --since-path: the field it is the highest of"),
            (["--lookback", "5m"], "--lookback needs --since-path and --since-param"),
            (
                ["--since-path", "updated_at", "--since-param", "since", "--lookback", "5x"],
                "Invalid --lookback '5x': expected a duration such as 30s, 5m, 2h or 1d"
            ),
            (
                ["--since-path", "updated_at", "--since-param", "since", "--lookback", "367d"],
                "Invalid --lookback '367d': expected a duration such as 30s, 5m, 2h or 1d"
            ),
            (
                ["--table", "1notes"],
                "Invalid --table '1notes': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
            (
                ["--table", "notes_page_walks"],
                "Invalid --table 'notes_page_walks': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
            (
                ["--table", "x; DROP TABLE notes"],
                "Invalid --table 'x; DROP TABLE notes': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
        ] as [([String], String)]
    )
    func usage(options: [String], message: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Run(
            ["fetch", "--all", "--sqlite", scratch.path("notes.db"), "http://127.0.0.1:9/notes"] + options)
        #expect(run.status == 64)
        #expect(run.stderr == "Error: \(message)\nSee 'notes-page fetch --help' for more information.\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("notes.db")))
    }

    @Test(
        "Without --sqlite: --since-path needs --state, --table needs --sqlite or --postgres",
        arguments: [
            (
                ["--since-path", "updated_at", "--since-param", "since"],
                "--since-path needs --sqlite, --postgres or --state: somewhere to keep the highest value between runs"
            ),
            (["--table", "notes"], "--table needs --sqlite or --postgres"),
        ] as [([String], String)]
    )
    func usageWithoutSQLite(options: [String], message: String) async throws {
        let run = try await Run(["fetch", "--all", "http://127.0.0.1:9/notes"] + options)
        #expect(run.status == 64)
        #expect(run.stderr == "Error: \(message)\nSee 'notes-page fetch --help' for more information.\n")
    }
}
