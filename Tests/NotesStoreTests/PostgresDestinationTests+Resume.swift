import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

// The same suite: a walk killed at every step of a commit and run again, uniqueness across a resume,
// another writer mid-run, a statement past statement_timeout, a complete copy refreshed.

extension PostgresDestinationTests {
    @Test(
        "Killed at each step of pages 1 to 3, then run again: every note once, no committed page asked again",
        arguments: [CommitStep.rows, .checkpoint, .committed], 1...3
    )
    func killedAtEveryStep(step: CommitStep, page: Int) async throws {
        let table = "killed_\(step)_\(page)"
        let api = SyncAPI(count: 10, size: 4)
        let first = api.transport()
        do {
            let destination = try PostgresDestination(connection: Self.server().url(), table: table)
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
        let committed = step == .committed ? page : page - 1
        #expect(try Self.server().psql("SELECT count(*) FROM \(table)") == "\(min(10, committed * 4))\n")
        let (walk, second) = try await Self.walk(api, table: table)
        if committed == 3 {
            #expect(walk.opening == .again)
        } else {
            #expect(walk.opening == (committed == 0 ? .new : .resumed))
            #expect(second.requests.count == 3 - committed)
            #expect(walk.checkpoint.pages == 3 && walk.checkpoint.notes == 10)
        }
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM \(table)") == "10|10\n")
    }

    @Test("Uniqueness holds across a resume: the ids of the run's committed pages are restored")
    func uniquenessAcrossResume() async throws {
        let api = SyncAPI(count: 8, size: 4)
        do {
            let destination = try PostgresDestination(connection: Self.server().url(), table: "unique_resume")
            let walk = try SyncAPI.walk(into: destination)
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start, maxPages: 1)
        }
        // Page 2 now repeats r1, committed on page 1 before the resume.
        let transport = MemoryTransport { _, _ in
            .json(#"{"notes":[{"id":"r1","title":"again"}],"next_cursor":null}"#)
        }
        let destination = try PostgresDestination(connection: Self.server().url(), table: "unique_resume")
        let walk = try SyncAPI.walk(into: destination)
        #expect(walk.opening == .resumed)
        let fetcher = NotesFetcher(locator: walk.locator, configuration: SyncAPI.configuration, transport: transport)
        await #expect {
            try await walk.run(fetcher: fetcher, from: .start)
        } throws: { error in
            "\(error)".contains("duplicate id \"r1\", seen on page 1")
        }
    }

    @Test("A first run copies pages straight in; a row another writer adds meanwhile turns it to upserts")
    func anotherWriterMidRun() async throws {
        let api = SyncAPI(count: 8, size: 4)
        let (walk, transport) = try await Self.walk(api, table: "other_writer") { destination in
            destination.afterStep = { done throws(CommitStop) in
                // r6 is on page 2: another writer's row is there, once page 1 is in, before the walk writes it.
                guard done == .committed, (try? Self.server().psql("SELECT count(*) FROM other_writer")) == "4\n"
                else { return }
                _ = try? Self.server().psql(
                    "INSERT INTO other_writer (id, json_text, title, fetched_at, run) VALUES ('r6', '{}', 'theirs', now(), 9)"
                )
            }
        }
        #expect(walk.opening == .new && transport.requests.count == 2)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM other_writer") == "8|8\n")
        #expect(
            try Self.server().psql("SELECT title, json->>'id', run FROM other_writer WHERE id = 'r6'")
                == "note 6|r6|1\n")
    }

    @Test("A statement past the server's statement_timeout fails its page (SQLSTATE 57014); the run resumes after it")
    func statementTimeout() async throws {
        let api = SyncAPI(count: 8, size: 4)
        // Once page 1 is in, every row written takes 0.3 s: past the session's 100 ms statement_timeout.
        try Self.server().psql(
            """
            CREATE OR REPLACE FUNCTION slow_rows() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$
            """)
        let timeout = try Self.server().url() + "?options=-c%20statement_timeout%3D100"
        await #expect {
            try await Self.walk(api, table: "timed_out", connection: timeout) { destination in
                destination.afterStep = { done throws(CommitStop) in
                    guard done == .committed else { return }
                    _ = try? Self.server().psql(
                        "CREATE TRIGGER slow BEFORE INSERT ON timed_out FOR EACH ROW EXECUTE FUNCTION slow_rows()")
                }
            }
        } throws: { error in
            "\(error)".contains("writing page 2: ERROR:  canceling statement due to statement timeout")
                && "\(error)".contains("(SQLSTATE 57014)")
        }
        #expect(try Self.server().psql("SELECT count(*) FROM timed_out") == "4\n")
        try Self.server().psql("DROP TRIGGER slow ON timed_out")
        let (walk, second) = try await Self.walk(api, table: "timed_out", connection: timeout)
        #expect(walk.opening == .resumed && second.requests.count == 1)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM timed_out") == "8|8\n")
    }

    @Test("A complete copy walked again is refreshed: an edit replaces its row, none is added twice")
    func refresh() async throws {
        let api = SyncAPI(count: 6, size: 4)
        try await Self.walk(api, table: "refreshed")
        api.put(.init(id: "r2", title: "edited", updatedAt: SyncAPI.minute(2)))
        let (walk, _) = try await Self.walk(api, table: "refreshed")
        #expect(walk.opening == .again && walk.checkpoint.run == 2)
        #expect(try Self.server().psql("SELECT count(*), sum((run = 2)::int) FROM refreshed") == "6|6\n")
        #expect(try Self.server().psql("SELECT title FROM refreshed WHERE id = 'r2'") == "edited\n")
    }
}
