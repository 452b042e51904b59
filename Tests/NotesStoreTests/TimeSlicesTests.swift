import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

@Suite("Time windows of a sliced resource")
struct TimeSlicesTests {
    static let day = 86_400
    /// 2020-01-01T00:00:00Z.
    static let from = 1_577_836_800
    static let slices = TimeSlices(
        path: FieldPath("created"), lower: "created__gte", upper: "created__lt", step: day, from: from)

    @Test("Windows lie on the grid from 'from': contiguous, half-open, the first from the start, the last to the end")
    func grid() throws {
        let windows = try Self.slices.windows(
            from: Self.from + Self.day + 3 * 3600, until: Self.from + 4 * Self.day + 5)
        #expect(
            windows.map(\.start) == [
                Self.from + Self.day + 3 * 3600, Self.from + 2 * Self.day, Self.from + 3 * Self.day,
                Self.from + 4 * Self.day,
            ])
        #expect(
            windows.map(\.end) == [
                Self.from + 2 * Self.day, Self.from + 3 * Self.day, Self.from + 4 * Self.day,
                Self.from + 4 * Self.day + 5,
            ])
        for (earlier, later) in zip(windows, windows.dropFirst()) { #expect(earlier.end == later.start) }
        #expect(windows[1].key == "2020-01-03T00:00:00Z/2020-01-04T00:00:00Z")
        #expect(SliceWindow(path: FieldPath("created"), key: windows[1].key) == windows[1])
        #expect(SliceWindow(path: FieldPath("created"), key: "2020-01-04T00:00:00Z/2020-01-03T00:00:00Z") == nil)
        #expect(try Self.slices.windows(from: Self.from, until: Self.from).isEmpty)
        // A start before 'from' still meets the grid at its points.
        #expect(
            try Self.slices.windows(from: Self.from - 3600, until: Self.from + 10).map(\.end) == [
                Self.from, Self.from + 10,
            ])
    }

    @Test("The bounds as the query sends them: RFC 3339 in UTC, or seconds since 1970")
    func texts() {
        #expect(Self.slices.text(Self.from) == "2020-01-01T00:00:00Z")
        var unix = Self.slices
        unix.format = .unix
        #expect(unix.text(Self.from) == "1577836800")
        #expect(TimeSlices.seconds("2020-01-01") == Self.from)
        #expect(TimeSlices.seconds("2020-01-01T01:00:00+01:00") == Self.from)
        #expect(TimeSlices.seconds("1577836800") == Self.from)
        #expect(TimeSlices.seconds("2020-01-01T00:00:00.5Z") == nil)
        #expect(TimeSlices.seconds("yesterday") == nil)
        // Years 1 to 9999 only: every window's key reads back.
        #expect(TimeSlices.seconds("999999999999") == nil)
        #expect(TimeSlices.seconds("253402300799") != nil)
    }

    @Test(
        "A run plans the windows a run before left unfinished, then new ones from where the last ended, less the lookback"
    )
    func plan() throws {
        let now = Self.from + 10 * Self.day + 600
        let first = try Self.slices.plan(existing: [], now: now)
        #expect(first.count == 11 && first.first?.start == Self.from && first.last?.end == now)

        // All done: only what came after, from the last end less the lookback.
        var slices = Self.slices
        slices.lookback = 3600
        let done = first.map { (window: $0, isDone: true) }
        let later = try slices.plan(existing: done, now: now + Self.day)
        #expect(later.first?.start == now - 3600 && later.last?.end == now + Self.day)
        #expect(later.map(\.start) == [now - 3600, Self.from + 10 * Self.day, Self.from + 11 * Self.day])

        // One left unfinished: walked again as it was planned, ahead of the new ones, never twice.
        var stopped = done
        stopped[4].isDone = false
        let resumed = try slices.plan(existing: stopped, now: now + Self.day)
        #expect(resumed.first == first[4])
        #expect(resumed.count == later.count + 1)
        #expect(Set(resumed.map(\.key)).count == resumed.count)

        // A window whose walk never began (it could not be opened, its run stopped first): planned again,
        // however far behind the others.
        var holed = done
        holed.remove(at: 3)
        let refilled = try Self.slices.plan(existing: holed, now: now + Self.day)
        #expect(refilled.first == first[3], "\(refilled.map(\.key))")
        #expect(refilled.dropFirst().map(\.start) == [now, Self.from + 11 * Self.day])

        // A 'to' after now: never past now, or the windows after it would be counted walked, empty.
        var ahead = Self.slices
        ahead.to = now + 30 * Self.day
        #expect(try ahead.plan(existing: [], now: now).last?.end == now)

        // A fixed end: nothing new once it is reached (but the lookback).
        var bounded = Self.slices
        bounded.to = Self.from + 2 * Self.day
        let all = try bounded.plan(existing: [], now: now)
        #expect(all.count == 2)
        #expect(try bounded.plan(existing: all.map { ($0, true) }, now: now).isEmpty)
    }

    @Test("A step far too small for the range is refused, not planned")
    func tooMany() {
        var slices = Self.slices
        slices.step = 1
        #expect(throws: StoreError.self) { try slices.windows(from: Self.from, until: Self.from + 200_000) }
    }

    /// A window of `SyncAPI`'s records by `updated_at`: minutes `start` to `end` after 08:00.
    static func window(_ start: Int, _ end: Int) -> SliceWindow {
        let base = TimeSlices.seconds("2026-11-30T08:00:00Z")!
        return SliceWindow(path: FieldPath("updated_at"), start: base + start * 60, end: base + end * 60)
    }

    /// Walks `window` of `api` into the SQLite file `path`, its URL bounded as a sync bounds it.
    static func walk(_ api: SyncAPI, _ window: SliceWindow, into path: String, table: String = "notes") async throws
        -> CommittedWalk
    {
        let destination = try SQLiteDestination(path: path, table: table, window: window)
        let url = URL(
            string: PageLocator.setting(
                [
                    ("updated_gte", SinceValue.rfc3339(Double(window.start))),
                    ("updated_lt", SinceValue.rfc3339(Double(window.end))),
                ],
                on: SyncAPI.endpoint.absoluteString))!
        let walk = try CommittedWalk(url: url, pagination: SyncAPI.pagination, destination: destination, window: window)
        try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
        return walk
    }

    @Test("Windows into one table: each record once, by id, with its window's key; a record on an edge in one window")
    func windowsIntoATable() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        let api = SyncAPI(count: 12, size: 2)
        // Records 1…12 at minutes 1…12; windows [0, 4), [4, 8), [8, 13): 4 and 8 are on edges.
        for (start, end) in [(0, 4), (4, 8), (8, 13)] {
            let walk = try await Self.walk(api, Self.window(start, end), into: database)
            #expect(walk.checkpoint.isDone)
        }
        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM notes") == "12|12\n")
        #expect(
            try SQLiteShell.query(database, "SELECT slice FROM notes WHERE id IN ('r4', 'r8') ORDER BY id")
                == "2026-11-30T08:04:00Z/2026-11-30T08:08:00Z\n2026-11-30T08:08:00Z/2026-11-30T08:13:00Z\n")
        #expect(
            try SQLiteShell.query(database, "SELECT \"table\" FROM notes_page_walks ORDER BY 1").split(separator: "\n")
                .count == 3)
        let table = try SQLiteDestination(path: database, table: "notes")
        let walks = try table.windowWalks(path: FieldPath("updated_at"))
        #expect(walks.count == 3 && walks.allSatisfy(\.isDone))
        // The table is the windows' alone: a walk of the whole endpoint is refused, and windows into another's.
        let own = #expect(throws: StoreError.self) {
            try SyncAPI.walk(into: try SQLiteDestination(path: database, table: "notes"))
        }
        #expect(
            own?.description.contains(
                "holds the notes of a resource walked in parts (one walk per time window or range of pages)") == true)
        let whole = try SyncAPI.walk(into: try SQLiteDestination(path: database, table: "plain"))
        try await whole.run(fetcher: api.fetcher(whole, transport: api.transport()), from: .start)
        let window = await #expect(throws: StoreError.self) {
            try await Self.walk(api, Self.window(0, 4), into: database, table: "plain")
        }
        #expect(
            window?.description.contains("holds the notes of one endpoint walked whole") == true,
            "\(String(describing: window))")
    }

    @Test("A server that does not keep to the window: the first record outside it stops the walk, naming it")
    func outside() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = SyncAPI(count: 12, size: 2, honoursWindows: false)
        let error = await #expect(throws: FetchError.self) {
            try await Self.walk(api, Self.window(4, 8), into: scratch.path("notes.db"))
        }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(
            text.contains("id r1") && text.contains("outside the window 2026-11-30T08:04:00Z/2026-11-30T08:08:00Z"),
            "\(text)")
        #expect(try SQLiteShell.query(scratch.path("notes.db"), "SELECT count(*) FROM notes") == "0\n")
    }
}
