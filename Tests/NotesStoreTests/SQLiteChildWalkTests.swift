import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

/// A child resource's table in SQLite: one walk per parent, each with its own checkpoint, its rows kept
/// per parent.
@Suite("SQLite child walks")
struct SQLiteChildWalkTests {
    /// The walk of `api` for `parent` into table `comments` of `path`, to its end or `maxPages`.
    @discardableResult
    static func walk(
        _ api: SyncAPI, parent: String, run: Int = 1, into path: String, maxPages: Int? = nil,
        columns: [ChildUnit.Column] = []
    ) async throws -> (walk: CommittedWalk, transport: MemoryTransport) {
        let destination = try SQLiteDestination(
            path: path, table: "comments", unit: ChildUnit(parent: parent, parentRun: run, columns: columns))
        let walk = try SyncAPI.walk(into: destination)
        let transport = api.transport()
        try await walk.run(fetcher: api.fetcher(walk, transport: transport), from: .start, maxPages: maxPages)
        return (walk, transport)
    }

    @Test("Two parents' walks share the table: an id under each is a row under each, with its parent's columns")
    func twoParents() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("api.db")
        let api = SyncAPI(count: 5, size: 2)
        try await Self.walk(api, parent: "o'r/1", into: path, columns: [.init(name: "parent_id", value: "1")])
        try await Self.walk(api, parent: "2", run: 3, into: path, columns: [.init(name: "parent_id", value: nil)])
        #expect(
            try SQLiteShell.query(
                path, "SELECT parent, count(*), count(DISTINCT id), parent_id FROM comments GROUP BY 1")
                == "2|5|5|\no'r/1|5|5|1\n")
        let table = try SQLiteDestination(path: path, table: "comments")
        let first = try #require(try table.childWalk(parent: "o'r/1"))
        #expect(first.isDone && first.notes == 5 && first.parentRun == 1)
        #expect(try table.childWalk(parent: "2")?.parentRun == 3)
        #expect(try table.childWalk(parent: "3") == nil)
        #expect(
            try SQLiteShell.query(path, "SELECT \"table\" FROM notes_page_walks ORDER BY 1")
                == "comments#2\ncomments#o'r/1\n")
        var keys: [String] = []
        try table.forEachParentRow(child: true, under: "o'r/1") { keys.append($0.key) }
        #expect(keys == ["o'r%2F1/r1", "o'r%2F1/r2", "o'r%2F1/r3", "o'r%2F1/r4", "o'r%2F1/r5"])
    }

    @Test(
        "A child's rows go in batches too, each with its parent's columns; walked again, a row kept is replaced in place"
    )
    func batches() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("api.db")
        // Pages of 40: a statement of 32 rows, then one of 8.
        let api = SyncAPI(count: 70, size: 40)
        let columns: [ChildUnit.Column] = [.init(name: "parent_id", value: "7"), .init(name: "owner", value: nil)]
        try await Self.walk(api, parent: "p", into: path, columns: columns)
        try await Self.walk(api, parent: "q", into: path, columns: columns)
        api.put(.init(id: "n1", title: "new", updatedAt: SyncAPI.minute(0)))
        try await Self.walk(api, parent: "p", run: 2, into: path, columns: columns)
        #expect(
            try SQLiteShell.query(
                path,
                "SELECT parent, count(*), count(DISTINCT id), sum(parent_id = '7'), sum(owner IS NULL), max(run) FROM comments GROUP BY 1"
            ) == "p|71|71|71|71|2\nq|70|70|70|70|1\n")
        let order = try SQLiteShell.query(path, "SELECT id FROM comments WHERE parent = 'p' ORDER BY rowid")
        #expect(order.split(separator: "\n") == (1...70).map { "r\($0)" }[...] + ["n1"])
        #expect(throws: StoreError.self) {
            try SQLiteDestination(
                path: path, table: "both", unit: ChildUnit(parent: "p", parentRun: 1),
                window: SliceWindow(path: FieldPath("updated_at"), start: 0, end: 60))
        }
    }

    @Test("A parent's walk stopped and resumed restores its own ids only, and goes on after its last page")
    func resumeOne() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("api.db")
        let api = SyncAPI(count: 5, size: 2)
        try await Self.walk(api, parent: "a", into: path)
        try await Self.walk(api, parent: "b", into: path, maxPages: 1)
        let (walk, transport) = try await Self.walk(api, parent: "b", into: path)
        #expect(walk.opening == .resumed)
        #expect(walk.ids.count == 5)  // b's 2 committed then its 3 more; a's 5 are not b's
        #expect(transport.requests.count == 2)
        #expect(try SQLiteShell.query(path, "SELECT parent, count(*) FROM comments GROUP BY 1") == "a|5\nb|5\n")
        // Walked again for a newer parent row: a new run of b's walk, the rows replaced, a's as they were.
        let (again, _) = try await Self.walk(api, parent: "b", run: 2, into: path)
        #expect(again.opening == .again)
        #expect(try SQLiteDestination(path: path, table: "comments").childWalk(parent: "b")?.parentRun == 2)
        #expect(try SQLiteShell.query(path, "SELECT parent, max(run) FROM comments GROUP BY 1") == "a|1\nb|2\n")
    }

    @Test(
        "A child resource's table and an endpoint's are never each other's; a table notes-page did not write is refused"
    )
    func refusals() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("api.db")
        let api = SyncAPI(count: 3, size: 2)
        try await Self.walk(api, parent: "a", into: path)
        let endpoint = try SQLiteDestination(path: path, table: "comments")
        #expect(throws: StoreError.self) { try SyncAPI.walk(into: endpoint) }
        try await SQLiteDestinationTests.walk(api, into: path, table: "notes")
        let child = try SQLiteDestination(path: path, table: "notes", unit: ChildUnit(parent: "a", parentRun: 1))
        let error = #expect(throws: StoreError.self) { try SyncAPI.walk(into: child) }
        #expect(error?.description.contains("holds the notes of one endpoint") == true, "\(String(describing: error))")
        _ = try SQLiteShell.query(path, "CREATE TABLE mine (x)")
        let foreign = try SQLiteDestination(path: path, table: "mine", unit: ChildUnit(parent: "a", parentRun: 1))
        #expect(throws: StoreError.self) { try SyncAPI.walk(into: foreign) }
        #expect(throws: StoreError.self) {
            try SQLiteDestination(
                path: path, table: "c",
                unit: ChildUnit(parent: "a", parentRun: 1, columns: [.init(name: "x\"", value: nil)]))
        }
    }
}
