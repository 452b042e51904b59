import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

// The same suite: refusals: another endpoint's table, a table notes-page did not write, a second walk at
// once, a wrong password, a role without INSERT, no server.

extension PostgresDestinationTests {
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
        let refusing = try RefusingPort()
        defer { refusing.close() }
        #expect {
            try PostgresDestination(connection: "postgresql://postgres:pw@127.0.0.1:\(refusing.port)/x")
        } throws: { error in
            (error as? StoreError)?.kind == .unavailable
        }
    }
}
