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

    @Test("The connection terminated mid-transaction: opened again, the page committed once, the walk goes on")
    func terminatedMidTransaction() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var terminated = false
        let (walk, _) = try await Self.walk(api, table: "terminated") { destination in
            destination.afterStep = { done throws(CommitStop) in
                guard done == .rows, !terminated else { return }
                terminated = true
                _ = try? Self.server().psql("SELECT pg_terminate_backend(\(destination.backendPID))")
            }
        }
        #expect(terminated)
        #expect(walk.checkpoint.isDone && walk.checkpoint.notes == 10)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM terminated") == "10|10\n")
    }

    @Test("The server gone mid-walk and not back: the walk stops as unavailable (exit 69), its pages kept")
    func serverGoneMidWalk() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var stopped = false
        let error = await #expect(throws: FetchError.self) {
            _ = try await Self.walk(api, table: "gone") { destination in
                destination.afterStep = { done throws(CommitStop) in
                    guard done == .committed, !stopped else { return }
                    stopped = true
                    try? Self.server().stop(removing: false)
                }
            }.walk.checkpoint
        }
        try Self.server().start()
        #expect(stopped)
        #expect(error?.kind == .unavailable && error?.page == 2, "\(String(describing: error))")
        if case .output(let failure) = error?.code.base { #expect(failure.kind == .unavailable) }
        #expect(try Self.server().psql("SELECT count(*) FROM gone") == "4\n")
    }

    /// A small filesystem of its own (tmpfs, 2 MiB), mounted where root may mount; `nil` (the test says why)
    /// where it cannot be.
    static func smallFilesystem() -> (path: String, unmount: () -> Void)? {
        var template = Array("/tmp/notes-pg-full-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let path = String(cString: made)
        guard
            let mount = try? Finished(
                URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m", "tmpfs", path]),
            mount.status == 0,
            (try? Finished(URL(fileURLWithPath: "/usr/bin/chown"), ["postgres", path]))?.status == 0
        else {
            rmdir(path)
            return nil
        }
        return (
            path,
            {
                _ = try? Finished(URL(fileURLWithPath: "/bin/umount"), [path])
                rmdir(path)
            }
        )
    }

    @Test(
        "A full disk (a tablespace on a 2 MiB filesystem) fails the page that does not fit, naming SQLSTATE 53100; with room again, the run resumes: every note once"
    )
    func fullDisk() async throws {
        guard let filesystem = Self.smallFilesystem() else {
            print("fullDisk: no tmpfs could be mounted here (not root, or no mount in this container): not tested")
            return
        }
        defer { filesystem.unmount() }
        try Self.server().psql("CREATE TABLESPACE small LOCATION '\(filesystem.path)'")
        defer { _ = try? Self.server().psql("DROP TABLESPACE IF EXISTS small") }
        // 2,000 notes of 100 a page, each with a title of 1,500 random characters: 9 MB as the table keeps them.
        let api = SyncAPI(count: 2000, size: 100)
        var random = SeededRandom(seed: 53100)
        for record in api.records {
            let title = String(
                (0..<1500).map { _ in "0123456789abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)! })
            api.put(.init(id: record.id, title: title, updatedAt: record.updatedAt))
        }
        // The table and its index go to the small tablespace; the walk's own tables were made before.
        try await Self.walk(SyncAPI(count: 1, size: 1), table: "before_full")
        let small = try Self.server().url() + "?options=-c%20default_tablespace%3Dsmall"
        let error = await #expect(throws: FetchError.self) {
            _ = try await Self.walk(api, table: "filled", connection: small).walk.checkpoint
        }
        #expect(error?.kind == .output, "\(String(describing: error))")
        #expect("\(String(describing: error))".contains("(SQLSTATE 53100)"), "\(String(describing: error))")
        let committed = try Self.server().psql(
            "SELECT checkpoint::jsonb->>'pages' FROM notes_page_walks WHERE \"table\" = 'filled'")
        let pages = Int(committed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(pages >= 1 && pages < 20, "\(committed)")
        #expect(try Self.server().psql("SELECT count(*) FROM filled") == "\(pages * 100)\n")
        // Room again: the table moves to the default tablespace, and the same walk goes on.
        try Self.server().psql("ALTER TABLE filled SET TABLESPACE pg_default")
        let (walk, transport) = try await Self.walk(api, table: "filled")
        #expect(walk.opening == .resumed && transport.requests.count == 20 - pages)
        #expect(
            try Self.server().psql("SELECT count(*), count(DISTINCT id), count(json) FROM filled") == "2000|2000|2000\n"
        )
    }

    @Test("Another endpoint's table, a table notes-page did not write: refused, nothing changed")
    func refusals() async throws {
        let api = SyncAPI(count: 4, size: 4)
        try await Self.walk(api, table: "theirs")
        let other = try PostgresDestination(connection: Self.server().url(), table: "theirs")
        #expect {
            try other.open(url: "http://other.example/notes", pagination: "auto", ids: IDSet(), visited: IDSet())
        } throws: { error in
            "\(error)".contains("holds the notes of another endpoint")
        }
        try Self.server().psql("CREATE TABLE IF NOT EXISTS plain (id int)")
        let plain = try PostgresDestination(connection: Self.server().url(), table: "plain")
        #expect {
            try plain.open(url: SyncAPI.endpoint.absoluteString, pagination: "auto", ids: IDSet(), visited: IDSet())
        } throws: { error in
            "\(error)".contains("exists that notes-page did not write")
        }
    }

    @Test("Two walks of one table at once: the second is refused, naming the first's connection")
    func lockHeld() async throws {
        let first = try PostgresDestination(connection: Self.server().url(), table: "locked")
        _ = try first.open(url: SyncAPI.endpoint.absoluteString, pagination: "auto", ids: IDSet(), visited: IDSet())
        let second = try PostgresDestination(connection: Self.server().url(), table: "locked")
        #expect {
            try second.open(url: SyncAPI.endpoint.absoluteString, pagination: "auto", ids: IDSet(), visited: IDSet())
        } throws: { error in
            "\(error)".contains("another walk of public.locked is running: notes-page (pid ")
                && "\(error)".contains("(backend \(first.backendPID),")
        }
    }

    @Test("A wrong password is a credentials error that never shows it; a role without INSERT names SQLSTATE 42501")
    func credentialsAndPrivileges() async throws {
        let server = try Self.server()
        #expect {
            try PostgresDestination(connection: server.url(password: "not-the-password-1234"), table: "x")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .credentials && !error.description.contains("not-the-password-1234")
                && error.description.contains("password authentication failed")
        }
        try server.psql(
            "DROP ROLE IF EXISTS reader; CREATE ROLE reader LOGIN PASSWORD 'reader-pw-5678'; GRANT USAGE, CREATE ON SCHEMA public TO reader"
        )
        try await Self.walk(SyncAPI(count: 4, size: 4), table: "guarded")
        try server.psql("GRANT SELECT, UPDATE ON ALL TABLES IN SCHEMA public TO reader")
        let reader = server.url(user: "reader", password: "reader-pw-5678")
        await #expect {
            try await Self.walk(SyncAPI(count: 4, size: 4), table: "guarded", connection: reader)
        } throws: { error in
            "\(error)".contains("SQLSTATE 42501") && !"\(error)".contains("reader-pw-5678")
        }
        #expect {
            try PostgresDestination(
                connection: "postgresql://postgres:pw@127.0.0.1:\(try LoopbackListener.freePort())/x")
        } throws: { error in
            (error as? StoreError)?.kind == .unavailable
        }
    }

    @Test("The server restarted mid-walk: the walk goes on over a new connection, every note once")
    func restartMidWalk() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var restarted = false
        let (walk, _) = try await Self.walk(api, table: "restarted") { destination in
            destination.afterStep = { done throws(CommitStop) in
                guard done == .committed, !restarted else { return }
                restarted = true
                do { try Self.server().restart() } catch { print("the restart failed: \(error)") }
            }
        }
        #expect(restarted && walk.checkpoint.isDone && walk.checkpoint.notes == 10)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM restarted") == "10|10\n")
    }
}
