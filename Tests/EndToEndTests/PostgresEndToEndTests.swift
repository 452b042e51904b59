import Foundation
import TestSupport
import Testing

/// `notes-page fetch --all --postgres URL` as a user runs it, into a PostgreSQL 15 server of the test's own
/// (`PostgresCluster`), read back with `psql`: the fixture server and the real Django REST framework app,
/// `kill -9` at random moments then the same command until it exits 0, and the exit codes of a wrong
/// password, no server and options that cannot go together.
@Suite(
    "Postgres end to end",
    .enabled(
        if: PostgresCluster.isAvailable && FixtureServer.isAvailable,
        "no PostgreSQL server programs or psql (make deps installs postgresql-15), not root, or no node"),
    .serialized,
    .timeLimit(.minutes(3))
)
struct PostgresEndToEndTests {
    static let cluster: PostgresCluster? = try? PostgresCluster()

    static func server() throws -> PostgresCluster {
        guard let cluster else { throw PostgresCluster.Failure("the cluster did not start") }
        return cluster
    }

    static let notes = ["--count", "1000", "--page-size", "100", "--seed", "7"]

    @Test("The fixture server's 1,000 notes into a table: each once, their exact JSON, the walk's checkpoint")
    func walk() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(Self.notes + ["--quiet"])
        defer { fixture.stop() }
        let expected = try await Run(["fetch", "--all", "--quiet", fixture.url]).stdout
        let run = try await Run(["fetch", "--all", "--postgres", database.url(), "--table", "walked", fixture.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("1000 notes, 10 pages"), "\(run.stderr)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id), count(json) FROM walked") == "1000|1000|1000\n")
        // Each note's exact JSON, in the walk's order.
        let rows = try database.psql("SELECT json_text FROM walked ORDER BY (substr(id, 2))::int")
        #expect(rows == expected)
        #expect(
            try database.psql(
                "SELECT checkpoint::jsonb->>'pages', checkpoint::jsonb->>'notes' FROM notes_page_walks WHERE \"table\" = 'walked'"
            )
                == "10|1000\n")
        // The same command again refreshes the copy: run 2, no row twice.
        let again = try await Run(["fetch", "--all", "--postgres", database.url(), "--table", "walked", fixture.url])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try database.psql("SELECT count(*), sum((run = 2)::int) FROM walked") == "1000|1000\n")
    }

    @Test("sync --postgres: each resource into a table of its own in the schema given, every record once")
    func sync() async throws {
        let database = try Self.server()
        let projects = try FixtureServer(["--count", "300", "--page-size", "50", "--seed", "3", "--quiet"])
        let notes = try FixtureServer(Self.notes + ["--quiet"])
        defer {
            projects.stop()
            notes.stop()
        }
        _ = try database.psql("CREATE SCHEMA IF NOT EXISTS synced")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Files.write(
            "resources:\n  - name: projects\n    path: \(projects.url)\n  - name: notes\n    path: \(notes.url)\n",
            to: scratch.path("api.yaml"))
        let run = try await Run(["sync", scratch.path("api.yaml"), "--postgres", database.url(), "--schema", "synced"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM synced.projects") == "300|300\n")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM synced.notes") == "1000|1000\n")
        let both = try await Run(["sync", scratch.path("api.yaml"), "--postgres", database.url(), "-o", "x"])
        #expect(both.status == 64 && both.stderr.contains("Give one of --sqlite FILE, --postgres URL and -o DIR"))
    }

    @Test(
        "kill -9 at random moments, then the same command until it exits 0: every note once (NOTES_TEST_SEED replays)")
    func killAndResume() async throws {
        let database = try Self.server()
        // A slow server (about 0.15 s a page), so that kills land mid-page as often as between pages.
        let fixture = try FixtureServer(Self.notes + ["--fault", "drip:512/10", "--quiet"])
        defer { fixture.stop() }
        let arguments = ["fetch", "--all", "--quiet", "--postgres", database.url(), "--table", "killed", fixture.url]
        let (finished, kills, replay) = try KillLoop.run(
            arguments, rounds: 8, delays: 20_000...600_000,
            beforeEachRound: { _ in
                // No walk table yet when no walk of the cluster has got as far as creating it.
                let hasWalks = try database.psql("SELECT to_regclass('notes_page_walks') IS NOT NULL") == "t\n"
                let pages =
                    hasWalks
                    ? try database.psql(
                        "SELECT coalesce((SELECT checkpoint::jsonb->>'pages' FROM notes_page_walks WHERE \"table\" = 'killed'), '0')"
                    ) : "0"
                // Whole pages only: the rows are exactly the pages the checkpoint counts.
                if let committed = Int(pages.trimmingCharacters(in: .whitespacesAndNewlines)), committed > 0 {
                    #expect(try database.psql("SELECT count(*) FROM killed") == "\(committed * 100)\n")
                }
            })
        if !finished {
            let run = try await Run(arguments)
            #expect(run.status == 0, "\(replay): \(run.stderr)")
        }
        #expect(!kills.isEmpty, "\(replay)")
        #expect(
            try database.psql("SELECT count(*), count(DISTINCT id) FROM killed") == "1000|1000\n", "\(replay)")
    }

    @Test(
        "The README's Django REST framework copy into Postgres, and a query over json->>",
        .enabled(if: DjangoServer.isAvailable, "python3 does not import django and rest_framework")
    )
    func drf() async throws {
        let database = try Self.server()
        let app = try DjangoServer(count: 1000, ["--quiet"])
        defer { app.stop() }
        let run = try await Run(["fetch", "--all", "--postgres", database.url(), app.url + "/limitoffset/"])
        #expect(run.status == 0, "\(run.stderr)")
        let ids = try database.psql("SELECT id FROM notes ORDER BY id::int").split(separator: "\n").compactMap {
            Int($0)
        }
        #expect(ids == PythonAppServer.ids(count: 1000))
        #expect(try database.psql("SELECT json->>'title' FROM notes WHERE id = '3'") == "Note 3\n")
    }

    @Test(
        "An incremental sync into Postgres asks from the highest updated_at: the changes upserted, the rest as it was")
    func incrementalSync() async throws {
        let database = try Self.server()
        let server = try FixtureServer(Self.notes + ["--updates"])
        defer { server.stop() }
        let command =
            ["fetch", "--all", "--postgres", database.url(), "--table", "synced", server.url]
            + SQLiteEndToEndTests.sync
        try MarkedLog.mark(server, 0)
        let first = try await Run(command)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.messages.hasPrefix("first sync: 1000 notes, 10 pages, "), "\(first.stderr)")
        #expect(try database.psql("SELECT max(json->>'updated_at') FROM synced") == "2026-12-01T00:39:00Z\n")

        let (added, touched) = try SQLiteEndToEndTests.change(server)
        let changed = Set((added + touched).compactMap { $0["id"] as? String })
        let others =
            "SELECT id, json_text FROM synced WHERE id NOT IN (\(changed.map { "'\($0)'" }.joined(separator: ","))) ORDER BY id"
        let othersBefore = try database.psql(others)
        try MarkedLog.mark(server, 1)
        let second = try await Run(command)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM synced") == "1003|1003\n")
        for note in added + touched {
            let id = note["id"] as? String ?? "?"
            let row = try database.psql("SELECT title, json_text, run, json->>'id' FROM synced WHERE id = '\(id)'")
            let fields = row.dropLast().split(separator: "|", omittingEmptySubsequences: false)
            #expect(fields.count == 4 && fields[0] == (note["title"] as? String ?? "?")[...], "\(id): \(row)")
            #expect(fields.count == 4 && SQLiteEndToEndTests.value(fields[1]) == note, "\(id): \(row)")
            #expect(fields.count == 4 && fields[2] == "2" && fields[3] == id[...], "\(id): \(row)")
        }
        // The rows nobody changed are as the first sync wrote them.
        #expect(try database.psql(others) == othersBefore)
        #expect(othersBefore.split(separator: "\n").count == 1000 - touched.count)

        // Nothing new: one request from the newest value, and no row changed but its own.
        let afterSecond = try database.psql("SELECT id, json_text FROM synced ORDER BY id")
        try MarkedLog.mark(server, 2)
        let third = try await Run(command)
        let log = MarkedLog(server.stop())
        #expect(log.since(after: 1) == ["2026-12-01T00:39:00Z"], "\(log.targets(after: 1))")
        #expect(third.status == 0, "\(third.stderr)")
        #expect(log.targets(after: 2).count == 1, "\(log.targets(after: 2))")
        #expect(try database.psql("SELECT id, json_text FROM synced ORDER BY id") == afterSecond)
    }

    @Test("Exit codes: a wrong password 77 (never shown), no server 69, --postgres with -o 64")
    func exitCodes() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(Self.notes + ["--quiet"])
        defer { fixture.stop() }
        let wrong = try await Run([
            "fetch", "--all", "--postgres", database.url(password: "wrong-password-4242"), fixture.url,
        ])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("password authentication failed"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong-password-4242"), "\(wrong.stderr)")
        // A port held and refusing for the whole run (a port merely freed can go to another test's server).
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let nothing = try await Run([
            "fetch", "--all", "--postgres", "postgresql://postgres:pw@127.0.0.1:\(refusing.port)/postgres", fixture.url,
        ])
        #expect(nothing.status == 69, "\(nothing.stderr)")
        let both = try await Run(["fetch", "--all", "--postgres", database.url(), "-o", "/dev/null", fixture.url])
        #expect(both.status == 64, "\(both.stderr)")
        #expect(both.stderr.contains("--postgres and --output cannot go together"), "\(both.stderr)")
    }
}
