import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

@Suite("Incremental syncs")
struct IncrementalSyncTests {
    static let sync = IncrementalSync(path: FieldPath("updated_at"), parameter: "since")

    /// The `since` each request sent, `-` for none.
    static func sinces(_ transport: MemoryTransport) -> [String] {
        transport.requests.map { request in
            URLComponents(string: request.url)?.queryItems?.first { $0.name == "since" }?.value ?? "-"
        }
    }

    @Test("The next run asks from the highest value committed: only what changed is fetched, edits applied")
    func asksFromTheHighest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 10, size: 4)
        let (first, firstTransport) = try await SQLiteDestinationTests.walk(api, into: path, incremental: Self.sync)
        #expect(Self.sinces(firstTransport) == ["-", "-", "-"])
        #expect(first.checkpoint.since?.highest == #""2026-11-30T08:10:00Z""#)

        // Two records added and one edited since.
        api.put(.init(id: "r11", title: "new", updatedAt: SyncAPI.minute(20)))
        api.put(.init(id: "r12", title: "newer", updatedAt: SyncAPI.minute(21)))
        api.put(.init(id: "r3", title: "edited", updatedAt: SyncAPI.minute(22)))
        let (second, transport) = try await SQLiteDestinationTests.walk(api, into: path, incremental: Self.sync)
        #expect(second.opening == .again)
        // The record at the highest value comes again (since is inclusive), and the upsert absorbs it.
        #expect(Self.sinces(transport) == ["2026-11-30T08:10:00Z"])
        #expect(second.checkpoint.notes == 4)
        #expect(second.checkpoint.since?.from == "2026-11-30T08:10:00Z")
        #expect(second.checkpoint.since?.highest == #""2026-11-30T08:22:00Z""#)
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "12\n")
        #expect(try SQLiteShell.query(path, "SELECT title FROM notes WHERE id = 'r3'") == "edited\n")

        // Nothing new: one request, and nothing changes.
        let before = try SQLiteShell.query(path, "SELECT id, json, run FROM notes ORDER BY rowid")
        let (third, quiet) = try await SQLiteDestinationTests.walk(api, into: path, incremental: Self.sync)
        #expect(quiet.requests.count == 1)
        #expect(Self.sinces(quiet) == ["2026-11-30T08:22:00Z"])
        #expect(third.checkpoint.since?.highest == #""2026-11-30T08:22:00Z""#)
        #expect(
            try SQLiteShell.query(path, "SELECT id, json FROM notes ORDER BY rowid")
                == before.split(separator: "\n").map {
                    $0.split(separator: "|").dropLast().joined(separator: "|") + "\n"
                }
                .joined())
    }

    @Test("A lookback asks from that much earlier")
    func lookback() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 10, size: 4)
        var sync = Self.sync
        sync.lookback = 300
        try await SQLiteDestinationTests.walk(api, into: path, incremental: sync)
        let (walk, transport) = try await SQLiteDestinationTests.walk(api, into: path, incremental: sync)
        #expect(Self.sinces(transport) == ["2026-11-30T08:05:00Z", "2026-11-30T08:05:00Z"])
        #expect(walk.checkpoint.notes == 6)
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "10\n")
    }

    @Test("A resumed sync asks from what its run asked from, not from the highest value it has reached")
    func resumeKeepsFrom() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 4, size: 4)
        try await SQLiteDestinationTests.walk(api, into: path, incremental: Self.sync)
        for minute in 10..<20 { api.put(.init(id: "n\(minute)", title: "t", updatedAt: SyncAPI.minute(minute))) }
        do {
            let destination = try SQLiteDestination(path: path)
            let walk = try SyncAPI.walk(into: destination, incremental: Self.sync)
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start, maxPages: 1)
        }
        let (walk, transport) = try await SQLiteDestinationTests.walk(api, into: path, incremental: Self.sync)
        #expect(walk.opening == .resumed)
        #expect(Self.sinces(transport) == ["2026-11-30T08:04:00Z", "2026-11-30T08:04:00Z"])
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "14\n")
    }

    @Test("A record without the field, or with one of another type, is a contract error naming it")
    func badField() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for (notes, problem) in [
            (
                #"[{"id":"a","title":"t","updated_at":"2026-11-30T08:00:00Z"},{"id":"b","title":"t"}]"#,
                "note 2 (id b): updated_at is missing"
            ),
            (
                #"[{"id":"a","title":"t","updated_at":true}]"#,
                "note 1 (id a): updated_at is a boolean, not a string or a number"
            ),
            (
                #"[{"id":"a","title":"t","updated_at":5},{"id":"b","title":"t","updated_at":"x"}]"#,
                "note 2 (id b): updated_at is a string, and the values before it were a number"
            ),
        ] {
            let transport = MemoryTransport { _, _ in .json(#"{"notes":\#(notes),"next_cursor":null}"#) }
            let destination = try SQLiteDestination(path: scratch.path("\(UUID().uuidString).db"))
            let walk = try SyncAPI.walk(into: destination, incremental: Self.sync)
            let fetcher = NotesFetcher(
                locator: walk.locator, configuration: SyncAPI.configuration, transport: transport)
            let error = await #expect(throws: FetchError.self) { try await walk.run(fetcher: fetcher, from: .start) }
            #expect(error?.kind == .contract)
            #expect(error?.description == "page 1 (the first page): \(problem)")
        }
    }

    @Test("Values compare as timestamps (offsets and fractions too), numbers, else strings")
    func comparisons() {
        func higher(_ a: String, _ b: String) -> Bool? {
            SinceValue(json: Array(a.utf8))!.isHigher(than: SinceValue(json: Array(b.utf8))!)
        }
        #expect(higher(#""2026-11-30T09:00:00+02:00""#, #""2026-11-30T08:00:00Z""#) == false)
        #expect(higher(#""2026-11-30T08:00:00.5Z""#, #""2026-11-30T08:00:00Z""#) == true)
        #expect(higher("10", "9") == true)  // as numbers, not as text
        #expect(higher("2.5", "10") == false)
        #expect(higher(#""b""#, #""a""#) == true)
        #expect(higher("1", #""a""#) == nil)
        #expect(SinceValue.parseRFC3339("2026-11-30T08:00:00Z") == 1_796_025_600)
        #expect(SinceValue.parseRFC3339("1970-01-01T00:00:00Z") == 0)
        #expect(SinceValue.parseRFC3339("2026-13-30T08:00:00Z") == nil)
        #expect(SinceValue.parseRFC3339("2026-11-30") == nil)
        #expect(SinceValue.rfc3339(1_796_025_600) == "2026-11-30T08:00:00Z")
        #expect(SinceValue.rfc3339(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(SinceValue.rfc3339(1_796_025_600.25) == "2026-11-30T08:00:00.250000Z")
        for day in stride(from: -719_000, to: 2_900_000, by: 997) {
            let seconds = Double(day) * 86_400 + 3_723
            #expect(SinceValue.parseRFC3339(SinceValue.rfc3339(seconds)) == seconds)
        }
    }

    @Test("A lookback of numbers subtracts; of strings that are not timestamps it is refused")
    func lookbackKinds() throws {
        let sync = IncrementalSync(path: FieldPath("v"), parameter: "since", lookback: 60)
        #expect(try sync.from(highest: "1796025600") == "1796025540")
        #expect(try sync.from(highest: #""2026-11-30T08:00:00+01:00""#) == "2026-11-30T06:59:00Z")
        #expect(throws: StoreError.self) { try sync.from(highest: #""abc""#) }
        #expect(try IncrementalSync(path: FieldPath("v"), parameter: "since").from(highest: #""abc""#) == "abc")
    }
}
