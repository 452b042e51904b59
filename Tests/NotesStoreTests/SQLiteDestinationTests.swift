import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

/// Walks into a real SQLite database (Debian's libsqlite3), read back with the `sqlite3` shell.
@Suite("SQLite destination")
struct SQLiteDestinationTests {
    /// A walk of `api` into `path`, to its end.
    @discardableResult
    static func walk(
        _ api: SyncAPI, into path: String, incremental: IncrementalSync? = nil, table: String = "notes",
        prepare: (SQLiteDestination) throws -> Void = { _ in }
    ) async throws -> (walk: CommittedWalk, transport: MemoryTransport) {
        let destination = try SQLiteDestination(path: path, table: table)
        try prepare(destination)
        let walk = try SyncAPI.walk(into: destination, incremental: incremental)
        let transport = api.transport()
        try await walk.run(fetcher: api.fetcher(walk, transport: transport), from: .start)
        return (walk, transport)
    }

    @Test("Every note becomes a row with its exact JSON and title; the checkpoint says the walk is done")
    func rows() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = SyncAPI(count: 10, size: 4)
        let (walk, transport) = try await Self.walk(api, into: scratch.path("notes.db"))
        #expect(transport.requests.count == 3)
        #expect(walk.checkpoint.isDone && walk.checkpoint.pages == 3 && walk.checkpoint.notes == 10)
        let database = scratch.path("notes.db")
        #expect(try SQLiteShell.query(database, "SELECT count(*) FROM notes") == "10\n")
        #expect(try SQLiteShell.query(database, "SELECT json FROM notes WHERE id = 'r3'") == api.records[2].json + "\n")
        #expect(
            try SQLiteShell.query(database, "SELECT title, json->>'updated_at' FROM notes WHERE id = 'r3'")
                == "note 3|2026-11-30T08:03:00Z\n")
        #expect(try SQLiteShell.query(database, "PRAGMA journal_mode") == "wal\n")
        #expect(
            try SQLiteShell.query(
                database, "SELECT count(*) FROM notes WHERE run = 1 AND fetched_at LIKE '20__-__-__T__:__:__Z'")
                == "10\n")
    }

    @Test("Integer ids are kept as their digits, and 42 and \"42\" are one row")
    func integerIDs() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let transport = MemoryTransport { request, _ in
            request.url.hasSuffix("cursor=2")
                ? .json(#"{"notes":[{"id":"42","title":"again"}],"next_cursor":null}"#)
                : .json(#"{"notes":[{"id":42,"title":"first"},{"id":7,"title":"x"}],"next_cursor":"2"}"#)
        }
        var configuration = SyncAPI.configuration
        configuration.page.duplicates = .skip
        let destination = try SQLiteDestination(path: scratch.path("ids.db"))
        let walk = try SyncAPI.walk(into: destination)
        let fetcher = NotesFetcher(locator: walk.locator, configuration: configuration, transport: transport)
        try await walk.run(fetcher: fetcher, from: .start)
        #expect(
            try SQLiteShell.query(scratch.path("ids.db"), "SELECT id, typeof(id), title FROM notes ORDER BY rowid")
                == "42|text|first\n7|text|x\n")
    }

    @Test("A complete copy walked again is refreshed: a changed record replaces its row, none is added twice")
    func refresh() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = SyncAPI(count: 6, size: 4)
        try await Self.walk(api, into: scratch.path("notes.db"))
        api.put(.init(id: "r2", title: "edited", updatedAt: SyncAPI.minute(2)))
        let (walk, transport) = try await Self.walk(api, into: scratch.path("notes.db"))
        #expect(walk.opening == .again)
        #expect(walk.checkpoint.run == 2 && walk.checkpoint.notes == 6)
        #expect(transport.requests.count == 2)
        let database = scratch.path("notes.db")
        #expect(try SQLiteShell.query(database, "SELECT count(*), sum(run = 2) FROM notes") == "6|6\n")
        #expect(try SQLiteShell.query(database, "SELECT title FROM notes WHERE id = 'r2'") == "edited\n")
    }

    @Test(
        "Pages of many rows go in batches; walked again with new rows ahead of kept ones, each row is there once, in the order rows first arrived"
    )
    func batches() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        // Pages of 80: two statements of 32 rows, then one of 16.
        let api = SyncAPI(count: 150, size: 80)
        try await Self.walk(api, into: path)
        #expect(try SQLiteShell.query(path, "SELECT count(*), count(DISTINCT id) FROM notes") == "150|150\n")
        // Two new records sort first: the first batch of the next run inserts them, then stops at r1, which
        // the table holds; the page goes on one row at a time.
        api.put(.init(id: "n1", title: "new 1", updatedAt: SyncAPI.minute(0)))
        api.put(.init(id: "n2", title: "new 2", updatedAt: SyncAPI.minute(0)))
        api.put(.init(id: "r70", title: "edited", updatedAt: SyncAPI.minute(70)))
        let (walk, _) = try await Self.walk(api, into: path)
        #expect(walk.checkpoint.run == 2 && walk.checkpoint.notes == 152)
        #expect(
            try SQLiteShell.query(path, "SELECT count(*), count(DISTINCT id), sum(run = 2) FROM notes")
                == "152|152|152\n")
        #expect(
            try SQLiteShell.query(path, "SELECT title FROM notes WHERE id IN ('r70', 'n2') ORDER BY id")
                == "new 2\nedited\n")
        let order = try SQLiteShell.query(path, "SELECT id FROM notes ORDER BY rowid").split(separator: "\n")
        #expect(order == (1...150).map { "r\($0)" }[...] + ["n1", "n2"])
    }

    @Test("Rows read while a walk commits are whole pages: a commit holds the connection for its transaction")
    func readWhileCommitting() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let destination = try SQLiteDestination(path: scratch.path("notes.db"))
        let api = SyncAPI(count: 2000, size: 50)
        let walk = try SyncAPI.walk(into: destination)
        let done = CancellationFlag()
        // Read from a thread of its own (not one of the concurrency pool's, which the walk needs) while the
        // commits run on theirs: what the destination's lock is for.
        nonisolated(unsafe) let shared = destination
        nonisolated(unsafe) var counts: [Int] = []
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !done.isCancelled {
                counts.append((try? shared.rows().count) ?? -1)
                Thread.sleep(forTimeInterval: 0.000_2)  // the lock is not fair: the commits get their turn
            }
            finished.signal()
        }
        try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
        done.cancel()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
        }
        #expect(!counts.isEmpty)
        #expect(counts.allSatisfy { $0 >= 0 && $0 % 50 == 0 }, "\(Set(counts.filter { $0 < 0 || $0 % 50 != 0 }))")
        #expect(try destination.rows().count == 2000)
    }

    @Test(
        "Killed after any step of any page's commit, then resumed: each page once, every row once",
        arguments: [CommitStep.rows, .checkpoint, .committed], 1...3
    )
    func killedAtEveryStep(step: CommitStep, page: Int) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = SyncAPI(count: 10, size: 4)
        let path = scratch.path("notes.db")
        let first = api.transport()
        do {
            let destination = try SQLiteDestination(path: path)
            var commits = 0
            destination.afterStep = { done throws(CommitStop) in
                if done == .rows { commits += 1 }
                if commits == page && done == step { throw CommitStop("killed") }
            }
            let walk = try SyncAPI.walk(into: destination)
            await #expect(throws: FetchError.self) {
                try await walk.run(fetcher: api.fetcher(walk, transport: first), from: .start)
            }
        }  // the connection closes here, as the process's would: an open transaction is rolled back
        // A page commits while the next is fetched: the walk stops at the page after the failed commit.
        #expect(first.requests.count == min(page + 1, 3))
        let committed = step == .committed ? page : page - 1
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "\(min(10, committed * 4))\n")

        let (walk, second) = try await Self.walk(api, into: path)
        if committed == 3 {
            #expect(walk.opening == .again)  // complete: a copy walked again is refreshed
        } else {
            #expect(walk.opening == (committed == 0 ? .new : .resumed))
            #expect(second.requests.count == 3 - committed)
            #expect(walk.checkpoint.pages == 3 && walk.checkpoint.notes == 10)
        }
        #expect(try SQLiteShell.query(path, "SELECT count(*), count(DISTINCT id) FROM notes") == "10|10\n")
        #expect(
            try SQLiteShell.query(path, "SELECT group_concat(id, ',') FROM (SELECT id FROM notes ORDER BY rowid)")
                == "r1,r2,r3,r4,r5,r6,r7,r8,r9,r10\n")
    }

    @Test("Uniqueness holds across a resume: the ids of the run's committed pages are restored")
    func uniquenessAcrossResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 8, size: 4)
        do {
            let destination = try SQLiteDestination(path: path)
            let walk = try SyncAPI.walk(into: destination)
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start, maxPages: 1)
        }
        // Page 2 now repeats r1, committed on page 1 before the resume.
        let transport = MemoryTransport { _, _ in
            .json(#"{"notes":[{"id":"r1","title":"again"}],"next_cursor":null}"#)
        }
        let destination = try SQLiteDestination(path: path)
        let walk = try SyncAPI.walk(into: destination)
        #expect(walk.opening == .resumed && walk.ids.count == 4)
        let error = await #expect(throws: FetchError.self) {
            try await walk.run(fetcher: api.fetcher(walk, transport: transport), from: .start)
        }
        #expect(error?.description.contains(#"duplicate id "r1""#) == true, "\(String(describing: error))")
        #expect(try SQLiteShell.query(path, "SELECT title FROM notes WHERE id = 'r1'") == "note 1\n")
    }

    @Test("A torn write-ahead log (a crash in the middle of a commit's frames) loses no committed page")
    func tornWAL() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 8, size: 4)
        do {
            let destination = try SQLiteDestination(path: path)
            let walk = try SyncAPI.walk(into: destination)
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start, maxPages: 1)
            // Half a frame of garbage after the committed frames, as a write cut short leaves it.
            try Files.write((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }, to: path + "-wal", append: true)
        }
        let (walk, transport) = try await Self.walk(api, into: path)
        #expect(walk.opening == .resumed)
        #expect(transport.requests.count == 1)
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "8\n")
    }

    @Test("Readers see whole pages appear while the walk runs")
    func readersSeeWholePages() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 12, size: 4)
        let destination = try SQLiteDestination(path: path)
        let walk = try SyncAPI.walk(into: destination)
        var seen: [String] = []
        try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start) { _, _ in
            seen.append((try? SQLiteShell.query(path, "SELECT count(*) FROM notes")) ?? "?")
        }
        #expect(seen == ["4\n", "8\n", "12\n"])
    }

    @Test("Another writer holding the lock is a clear error; the committed pages stay, and the walk resumes")
    func locked() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 8, size: 4)
        let destination = try SQLiteDestination(path: path, busyTimeout: 0.2)
        let walk = try SyncAPI.walk(into: destination)
        let other = try SQLiteDatabase(path: path)
        let error = await #expect(throws: FetchError.self) {
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start) { page, _ in
                if page.number == 1 { try? other.execute("BEGIN IMMEDIATE") }
            }
        }
        #expect(error?.kind == .output)
        #expect(error?.page == 2)
        #expect(error?.reason.contains("locked by another writer") == true, "\(String(describing: error))")
        try other.execute("ROLLBACK")
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "4\n")
        let (resumed, transport) = try await Self.walk(api, into: path)
        #expect(resumed.opening == .resumed && transport.requests.count == 1)
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "8\n")
    }

    @Test("A full database (SQLITE_FULL) is a clear error that loses no committed page")
    func full() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 400, size: 100)
        let destination = try SQLiteDestination(path: path)
        let walk = try SyncAPI.walk(into: destination)
        var committed = 0
        let error = await #expect(throws: FetchError.self) {
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start) { page, _ in
                committed = page.number
                // After page 1, the database may not grow: page 2's rows do not fit.
                if page.number == 1 { try? destination.set("max_page_count = \(try! pageCount(path))") }
            }
        }
        #expect(committed == 1)
        #expect(error?.kind == .output && error?.page == 2)
        #expect(error?.reason.contains("full") == true, "\(String(describing: error))")
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "100\n")
        let (resumed, _) = try await Self.walk(api, into: path)
        #expect(resumed.opening == .resumed)
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "400\n")
    }

    @Test("A file that is not SQLite, a table notes-page did not write, another endpoint's copy: refused")
    func foreign() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let text = scratch.path("notes.txt")
        try Files.write("just some text, not a database at all, long enough to be read as a header", to: text)
        let notADatabase = #expect(throws: StoreError.self) {
            let destination = try SQLiteDestination(path: text)
            _ = try SyncAPI.walk(into: destination)
        }
        #expect(
            notADatabase?.description.contains("not a SQLite database") == true, "\(String(describing: notADatabase))")

        let theirs = scratch.path("theirs.db")
        _ = try SQLiteShell.query(theirs, "CREATE TABLE notes (a, b); INSERT INTO notes VALUES (1, 2)")
        let foreignTable = #expect(throws: StoreError.self) {
            let destination = try SQLiteDestination(path: theirs)
            _ = try SyncAPI.walk(into: destination)
        }
        #expect(foreignTable?.description.contains("a table notes exists that notes-page did not write") == true)
        #expect(try SQLiteShell.query(theirs, "SELECT * FROM notes") == "1|2\n")

        let ours = scratch.path("ours.db")
        try await Self.walk(SyncAPI(count: 2, size: 4), into: ours)
        let otherEndpoint = #expect(throws: StoreError.self) {
            let destination = try SQLiteDestination(path: ours)
            _ = try CommittedWalk(
                url: URL(string: "http://127.0.0.1:9/other")!, pagination: SyncAPI.pagination, destination: destination)
        }
        #expect(otherEndpoint?.description.contains("holds the notes of another endpoint") == true)
        #expect(throws: StoreError.self) { try SQLiteDestination(path: ours, table: "sqlite_master") }
        #expect(throws: StoreError.self) { try SQLiteDestination(path: ours, table: "x; DROP TABLE notes") }
    }

    @Test("Two tables in one database are two walks, each with its own checkpoint")
    func tables() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        try await Self.walk(SyncAPI(count: 3, size: 4), into: path, table: "first")
        try await Self.walk(SyncAPI(count: 5, size: 4), into: path, table: "second")
        #expect(
            try SQLiteShell.query(path, "SELECT (SELECT count(*) FROM first), (SELECT count(*) FROM second)") == "3|5\n"
        )
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes_page_walks") == "2\n")
    }
}

/// The pages of the database file (what `max_page_count` bounds).
func pageCount(_ path: String) throws -> Int {
    Int(try SQLiteShell.query(path, "PRAGMA page_count").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}
