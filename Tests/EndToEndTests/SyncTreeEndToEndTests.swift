import Foundation
import TestSupport
import Testing

/// `notes-page sync` of repositories, their issues and the issues' comments from the fixture server's
/// GitHub-shaped API (`--repos`): Link headers, `since`, parents' URLs; three levels into SQLite.
@Suite(
    "notes-page sync of parents and children against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct SyncTreeEndToEndTests {
    static let token = "ghp-\(UUID().uuidString)"

    /// A server of `repos` repositories whose requests need ``token`` (when `checksToken`: the test's
    /// own requests cannot send it), and the token's file in `scratch`.
    static func server(repos: Int, in scratch: Scratch, checksToken: Bool = true) throws -> FixtureServer {
        try Files.write(token + "\n", to: scratch.path("token"))
        return try FixtureServer(
            ["--count", "1", "--repos", "\(repos)", "--seed", "11"],
            environment: checksToken ? ["NOTES_SERVER_TOKEN": token] : [:])
    }

    /// The source: repos in pages of 2; each repo's issues by a path with its name, in pages of 2,
    /// incremental; each issue's comments at its `comments_url`.
    static func source(_ server: FixtureServer, in scratch: Scratch) throws -> String {
        let source = """
            base-url: \(server.url.replacingOccurrences(of: "/notes", with: ""))
            auth:
              type: bearer
              token: "@\(scratch.path("token"))"
            defaults:
              no-title: true
              retries: 2
            resources:
              - name: repos
                path: repos?per_page=2
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues?per_page=2
                since-path: updated_at
                since-param: since
                no-title: false
                include-from-parent: [full_name]
              - name: comments
                parent: issues
                path: "{parent.comments_url}"
                include-from-parent: [id, number]
            """
        try Files.write(source, to: scratch.path("github.yaml"))
        return scratch.path("github.yaml")
    }

    /// Checks that the copy in `database` holds every record once, each child under its parent, as the
    /// server's own counts say: issue ids run from 1000001 with no gap, each issue's `comments` is the
    /// number of its comments' rows.
    static func expectWhole(_ database: String, repos: Int, _ context: String) throws {
        #expect(
            try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM repos") == "\(repos)|\(repos)\n")
        #expect(
            try SQLiteShell.query(
                database, "SELECT count(*) = count(DISTINCT id), count(*) = max(id) - 1000000 FROM issues")
                == "1|1\n", "\(context)")
        #expect(
            try SQLiteShell.query(
                database,
                """
                SELECT count(*) FROM issues i WHERE i.json->>'comments' !=
                    (SELECT count(*) FROM comments c WHERE c.parent_id = i.id)
                """) == "0\n", "\(context)")
        #expect(
            try SQLiteShell.query(
                database,
                """
                SELECT count(*) = count(DISTINCT id), count(*) = (SELECT sum(json->>'comments') FROM issues),
                    sum(json->>'issue_url' NOT LIKE '%/issues/' || parent_number) FROM comments
                """) == "1|1|0\n", "\(context)")
        #expect(
            try SQLiteShell.query(
                database,
                "SELECT count(*) FROM issues i JOIN repos r ON i.parent = r.id WHERE i.parent_full_name = r.json->>'full_name'"
            )
                == SQLiteShell.query(database, "SELECT count(*) FROM issues"))
    }

    @Test("Three levels into SQLite: every record once, each under its parent; the token in no output, log or table")
    func tree() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 12, in: scratch)
        let source = try Self.source(server, in: scratch)
        let database = scratch.path("github.db")
        let run = try await Run(["sync", source, "--sqlite", database, "--parallel", "4"])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectWhole(database, repos: 12, run.stderr)
        let log = server.stop()
        #expect(!log.isEmpty && !log.contains(" 401 "), "\(log)")
        for text in [run.stderr, run.stdout, log, try SQLiteShell.query(database, ".dump")] {
            #expect(!text.contains(Self.token))
        }
    }

    @Test("Touch 3 issues, run again: only those issues' comments are walked; nothing else changes")
    func touched() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 10, in: scratch, checksToken: false)
        defer { server.stop() }
        let source = try Self.source(server, in: scratch)
        let database = scratch.path("github.db")
        try MarkedLog.mark(server, 1)
        let first = try await Run(["sync", source, "--sqlite", database])
        #expect(first.status == 0, "\(first.stderr)")
        let issues = try SQLiteShell.query(
            database,
            "SELECT json->>'comments_url' FROM issues WHERE json->>'comments' > 0 ORDER BY id LIMIT 3 OFFSET 2"
        ).split(separator: "\n").map(String.init)
        try #require(issues.count == 3)
        for url in issues {
            let path = String(URL(string: url)!.path.dropLast("/comments".count))
            _ = try FixtureRequest.post(server, path + "/touch")
        }
        try MarkedLog.mark(server, 2)
        let again = try await Run(["sync", source, "--sqlite", database])
        #expect(again.status == 0, "\(again.stderr)")
        let log = MarkedLog(server.stop())
        let comments = log.targets(after: 2, under: "/repos").filter { $0.contains("/comments") }
        let walked = Set(comments.map { String($0.split(separator: "?")[0]) })
        #expect(walked == Set(issues.map { URL(string: $0)!.path }), "\(comments)")
        #expect(log.targets(after: 1, under: "/repos").count > log.targets(after: 2, under: "/repos").count)
        try Self.expectWhole(database, repos: 10, again.stderr)
        #expect(
            try SQLiteShell.query(database, "SELECT count(*) FROM issues WHERE json->>'updated_at' >= '2026-01-31'")
                == "3\n")
    }

    @Test(
        "kill -9 at random instants, then the same command: every record once; only pages a kill cut short asked again")
    func killed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 200, in: scratch, checksToken: false)
        let source = try Self.source(server, in: scratch)
        // A run never killed, for the copy to compare with.
        try MarkedLog.mark(server, 0)
        let clean = try await Run(["sync", source, "--sqlite", scratch.path("clean.db"), "--parallel", "2"])
        #expect(clean.status == 0, "\(clean.stderr)")
        try MarkedLog.mark(server, 1)
        let database = scratch.path("github.db")
        let arguments = ["sync", source, "--sqlite", database, "--parallel", "2", "--quiet"]
        let (finished, kills, replay) = try KillLoop.run(arguments, rounds: 12, delays: 30_000...300_000)
        if !finished {
            let run = try await Run(arguments)
            #expect(run.status == 0, "\(replay): \(run.stderr)")
        }
        #expect(kills.count >= 10, "\(replay)")
        try Self.expectWhole(database, repos: 200, replay)
        for table in ["repos", "issues", "comments"] {
            let columns = table == "repos" ? "id, json" : "parent, id, json"
            let query = "SELECT \(columns) FROM \(table) ORDER BY \(columns)"
            #expect(
                try SQLiteShell.query(database, query) == SQLiteShell.query(scratch.path("clean.db"), query),
                "\(table): \(replay)")
        }
        // Each kill cuts short what two walks had in flight: a page fetched, one committing, one asked
        // ahead. Nothing else is asked twice: no page committed before a kill is asked after it.
        let log = MarkedLog(server.stop())
        let cleanTargets = log.targets(after: 0, under: "/repos")
        let targets = log.targets(after: 1, under: "/repos")
        // The same pages as the run never killed, but for pages past the end that a walk asked ahead
        // for (either may), as a server of the same data says.
        let same = try Self.server(repos: 200, in: scratch, checksToken: false)
        defer { same.stop() }
        for target in Set(targets).symmetricDifference(cleanTargets).sorted() {
            #expect(try FixtureRequest.send("GET", same, target) == (200, "[]"), "\(replay): \(target)")
        }
        #expect(targets.count - Set(targets).count <= 6 * kills.count, "\(replay): \(targets.count) requests")
    }
}
