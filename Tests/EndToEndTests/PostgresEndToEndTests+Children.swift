import Foundation
import TestSupport
import Testing

// The same suite: a sync of parents and their children into PostgreSQL.

extension PostgresEndToEndTests {
    /// Repos, each one's issues and each issue's comments, from the fixture server's GitHub-shaped API.
    static func tree(_ fixture: FixtureServer, in scratch: Scratch) throws -> String {
        try Files.write(
            """
            base-url: \(fixture.url.replacingOccurrences(of: "/notes", with: ""))
            defaults:
              no-title: true
            resources:
              - name: repos
                path: repos?per_page=5
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues?per_page=2
                since-path: updated_at
                since-param: since
                include-from-parent: [full_name]
              - name: comments
                parent: issues
                path: "{parent.comments_url}"
                include-from-parent: [id]
            """, to: scratch.path("tree.yaml"))
        return scratch.path("tree.yaml")
    }

    @Test(
        "sync --postgres of three levels: every record once under its parent; killed and run again, the same; touched issues alone walked again"
    )
    func children() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "40", "--seed", "5"])
        _ = try database.psql("DROP SCHEMA IF EXISTS tree CASCADE; CREATE SCHEMA tree")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.tree(fixture, in: scratch)
        let arguments = ["sync", source, "--postgres", database.url(), "--schema", "tree", "--parallel", "2"]
        let (_, kills, replay) = try KillLoop.run(arguments + ["--quiet"], rounds: 5, delays: 100_000...400_000)
        try MarkedLog.mark(fixture, 1)
        let run = try await Run(arguments)
        #expect(run.status == 0, "\(replay): \(run.stderr)")
        #expect(!kills.isEmpty, "\(replay)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM tree.repos") == "40|40\n")
        #expect(
            try database.psql(
                """
                SELECT count(*) = count(DISTINCT id), count(*) = max(id::int) - 1000000,
                    count(*) FILTER (WHERE parent_full_name = 'octo/repo-' || parent) = count(*)
                FROM tree.issues
                """) == "t|t|t\n", "\(replay)")
        #expect(
            try database.psql(
                """
                SELECT count(*) FROM tree.issues i WHERE (i.json->>'comments')::int !=
                    (SELECT count(*) FROM tree.comments c WHERE c.parent_id = i.id)
                """) == "0\n", "\(replay)")
        #expect(
            try database.psql(
                "SELECT count(*) = count(DISTINCT id), count(*) = (SELECT sum((json->>'comments')::int) FROM tree.issues) FROM tree.comments"
            ) == "t|t\n")
        // Three issues touched: their comments alone are walked again.
        let touched = try database.psql(
            "SELECT json->>'comments_url' FROM tree.issues WHERE (json->>'comments')::int > 0 ORDER BY id LIMIT 3"
        ).split(separator: "\n").map { String(URL(string: String($0))!.path) }
        for path in touched {
            #expect(
                try FixtureRequest.send("POST", fixture, String(path.dropLast("/comments".count)) + "/touch").status
                    == 200)
        }
        try MarkedLog.mark(fixture, 2)
        let again = try await Run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        let log = MarkedLog(fixture.stop())
        let walked = Set(
            log.targets(after: 2, under: "/repos").filter { $0.contains("/comments") }.map {
                String($0.split(separator: "?")[0])
            })
        #expect(walked == Set(touched), "\(walked)")
        // A walk per issue, each with its checkpoint, in the schema's table of checkpoints.
        #expect(
            try database.psql(
                "SELECT count(*) = (SELECT count(*) FROM tree.issues) FROM tree.notes_page_walks WHERE \"table\" LIKE 'comments#%'"
            )
                == "t\n")
    }
}

extension PostgresEndToEndTests {
    @Test(
        "sync --postgres --parallel 8 into a schema that does not exist yet: the child walks that make its tables at once never collide"
    )
    func parallelFirstSync() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "24", "--issues", "20", "--fixed", "--quiet"])
        defer { fixture.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Self.source(
            """
              - name: repos
                path: repos?per_page=100
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues?per_page=100
            """, named: "first", fixture, in: scratch)
        // Each time a new schema, its tables made by eight walks at once.
        for round in 1...4 {
            _ = try database.psql("DROP SCHEMA IF EXISTS first\(round) CASCADE")
            let run = try await Run([
                "sync", scratch.path("first.yaml"), "--postgres", database.url(), "--schema", "first\(round)",
                "--parallel", "8", "--quiet",
            ])
            #expect(run.status == 0, "round \(round): \(run.stderr)")
            #expect(try database.psql("SELECT count(*) FROM first\(round).issues") == "480\n")
        }
    }
}
