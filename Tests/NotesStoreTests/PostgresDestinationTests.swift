import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

/// Walks into a real PostgreSQL 15 server (a cluster of the test's own, `PostgresCluster`), read back with
/// `psql`: rows, resume after a kill at every commit step, a refresh, the faults a server has (a connection
/// terminated mid-transaction, a restart), refusals (another endpoint's table, a second walk at once, a role
/// without INSERT, a wrong password, no server).
@Suite(
    "Postgres destination",
    .enabled(
        if: PostgresCluster.isAvailable,
        "no PostgreSQL server programs, psql or postgres user (make deps installs postgresql-15), or not root"),
    .serialized,
    .timeLimit(.minutes(3))
)
struct PostgresDestinationTests {
    /// One cluster for the suite: each test uses a table of its own.
    static let cluster: PostgresCluster? = try? PostgresCluster()

    static func server() throws -> PostgresCluster {
        guard let cluster else { throw PostgresCluster.Failure("the cluster did not start") }
        return cluster
    }

    /// A walk of `api` into `table`, to its end.
    @discardableResult
    static func walk(
        _ api: SyncAPI, table: String, connection: String? = nil,
        prepare: (PostgresDestination) throws -> Void = { _ in }
    ) async throws -> (walk: CommittedWalk, transport: MemoryTransport) {
        let destination = try PostgresDestination(connection: connection ?? server().url(), table: table)
        try prepare(destination)
        let walk = try SyncAPI.walk(into: destination)
        let transport = api.transport()
        try await walk.run(fetcher: api.fetcher(walk, transport: transport), from: .start)
        return (walk, transport)
    }

    @Test("Every note becomes a row: its exact JSON, jsonb to query, its title; the checkpoint says done")
    func rows() async throws {
        let api = SyncAPI(count: 10, size: 4)
        let (walk, transport) = try await Self.walk(api, table: "rows")
        #expect(transport.requests.count == 3)
        #expect(walk.checkpoint.isDone && walk.checkpoint.pages == 3 && walk.checkpoint.notes == 10)
        let server = try Self.server()
        #expect(try server.psql("SELECT count(*), count(json) FROM rows") == "10|10\n")
        #expect(try server.psql("SELECT json_text FROM rows WHERE id = 'r3'") == api.records[2].json + "\n")
        #expect(
            try server.psql("SELECT title, json->>'updated_at' FROM rows WHERE id = 'r3'")
                == "note 3|2026-11-30T08:03:00Z\n")
        #expect(
            try server.psql("SELECT count(*) FROM rows WHERE run = 1 AND fetched_at > now() - interval '1 hour'")
                == "10\n")
        #expect(try server.psql("SELECT version FROM notes_page_walks WHERE \"table\" = 'rows'") == "1\n")
    }

    @Test("A record jsonb cannot hold (\\u0000 in a string) keeps its exact JSON, with json NULL")
    func nullEscape() async throws {
        let transport = MemoryTransport { _, _ in
            .json(
                #"{"notes":[{"id":"a","title":"t","body":"x\u0000y"},{"id":"b","title":"\\u0000"},{"id":"c","title":"x\u0000y"}],"next_cursor":null}"#
            )
        }
        // The first run copies rows straight into the table, the second (a refresh) upserts them: both alike.
        for run in 1...2 {
            let destination = try PostgresDestination(connection: Self.server().url(), table: "nulls")
            let walk = try SyncAPI.walk(into: destination)
            let fetcher = NotesFetcher(
                locator: walk.locator, configuration: SyncAPI.configuration, transport: transport)
            try await walk.run(fetcher: fetcher, from: .start)
            #expect(
                try Self.server().psql("SELECT id, json IS NULL, title IS NULL, json_text, run FROM nulls ORDER BY id")
                    == #"a|t|f|{"id":"a","title":"t","body":"x\u0000y"}|\#(run)"# + "\n"
                    + #"b|f|f|{"id":"b","title":"\\u0000"}|\#(run)"# + "\n"
                    + #"c|t|t|{"id":"c","title":"x\u0000y"}|\#(run)"#
                    + "\n")
        }
    }

    /// Numbers at the edges of `numeric`'s range, each as its own record's value, with whether jsonb holds it.
    static let numberEdges: [(String, Bool)] = [
        ("1e131071", true), ("1e131072", false), ("123e131070", false), ("0.5e131072", true), ("1e-16383", true),
        ("1e-16384", false), ("1.5e-16383", false), ("-1E+131071", true), ("1e99999999999999999999999", false),
        ("0." + String(repeating: "0", count: 16_382) + "1", true),
        ("0." + String(repeating: "0", count: 16_383) + "1", false), ("-0", true), ("1.5e-7", true),
    ]

    @Test("A number numeric cannot hold leaves json NULL and json_text exact; Postgres agrees on every edge")
    func numbersPastNumeric() async throws {
        let body =
            #"{"notes":["#
            + Self.numberEdges.enumerated().map { #"{"id":"n\#($0)","title":"t","n":\#($1.0)}"# }.joined(separator: ",")
            + #"],"next_cursor":null}"#
        let transport = MemoryTransport { _, _ in .json(body) }
        let destination = try PostgresDestination(connection: Self.server().url(), table: "numbers")
        let walk = try SyncAPI.walk(into: destination)
        let fetcher = NotesFetcher(locator: walk.locator, configuration: SyncAPI.configuration, transport: transport)
        try await walk.run(fetcher: fetcher, from: .start)
        for (index, (number, holds)) in Self.numberEdges.enumerated() {
            let record = #"{"id":"n\#(index)","title":"t","n":\#(number)}"#
            #expect(
                record.utf8.withContiguousStorageIfAvailable { PostgresRows.jsonbRefuses(.init($0)) } == !holds)
            // What Postgres itself says of the same JSON.
            let cast = try? Self.server().psql("SELECT '\(record)'::jsonb IS NOT NULL")
            #expect((cast == "t\n") == holds, "\(number.prefix(40))")
            #expect(
                try Self.server().psql(
                    "SELECT json IS NOT NULL, json_text = '\(record)' FROM numbers WHERE id = 'n\(index)'")
                    == "\(holds ? "t" : "f")|t\n", "\(number.prefix(40))")
        }
    }

    @Test("An id with U+0000 in it is an error naming the note and its page, and nothing of the page is kept")
    func nullInID() async throws {
        let transport = MemoryTransport { _, _ in
            .json(#"{"notes":[{"id":"a","title":"t"},{"id":"b\u0000c","title":"t"}],"next_cursor":null}"#)
        }
        let destination = try PostgresDestination(connection: Self.server().url(), table: "null_ids")
        let walk = try SyncAPI.walk(into: destination)
        let fetcher = NotesFetcher(locator: walk.locator, configuration: SyncAPI.configuration, transport: transport)
        await #expect {
            try await walk.run(fetcher: fetcher, from: .start)
        } throws: { error in
            "\(error)".contains(#"the note "b\u0000c" of page 1 has an id with U+0000"#)
        }
        #expect(try Self.server().psql("SELECT count(*) FROM null_ids") == "0\n")
    }
}
