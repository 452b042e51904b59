import Foundation
import TestSupport
import Testing

// The same suite: the recipes that keep a copy in a database (SQLite, Postgres) and sync it incrementally
// (a Datasette whose rows change, GitHub's nightly sync).

extension ReadmeRecipeTests {
    @Test(
        "A SQLite copy: a row per id in notes.db, queried with sqlite3",
        .enabled(
            if: DjangoServer.isAvailable,
            "python3 does not import django and rest_framework (Tools/apps/drf/install.sh installs them)"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the recipe queries with it")
    )
    func sqliteCopy() async throws {
        let server = try DjangoServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Self.runRecipe(
            "sqlite", replacing: ["https://api.example.com/api/notes/": server.url + "/limitoffset/"], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        // The recipe's own query: three titles.
        let titles = run.stdout.split(separator: "\n")
        #expect(titles.count == 3 && titles.allSatisfy { $0.hasPrefix("Note ") }, "\(run.stdout)")
        let columns = try await Self.sqlite(scratch, "notes.db", "select name from pragma_table_info('notes')")
        // As the README lists them; no title column, as the recipe says --no-title.
        #expect(columns == ["id", "json", "fetched_at", "run"])
        let ids = try await Self.sqlite(scratch, "notes.db", "select id from notes order by cast(id as integer)")
        Self.expectEachOnce(ids, expected: Self.appIDs(1000), context: "sqlite")
    }

    @Test(
        "A sync: a source file of two resources of one API, each into its table of api.db",
        .enabled(
            if: DjangoServer.isAvailable,
            "python3 does not import django and rest_framework (Tools/apps/drf/install.sh installs them)"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the recipe queries with it")
    )
    func sync() async throws {
        let server = try DjangoServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Two endpoints of the app, under the names the recipe gives them.
        let run = try await Self.runRecipe(
            "sync",
            replacing: [
                "https://api.example.com/api/": server.url + "/", "path: notes/": "path: limitoffset/",
                "path: archived-notes/": "path: cursor/",
            ], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        // The recipe's own query: each table holds the app's notes.
        let expected = Self.appIDs(1000).count
        #expect(run.stdout == "\(expected)\n\(expected)\n", "\(run.stdout)")
        for table in ["notes", "archived"] {
            let ids = try await Self.sqlite(scratch, "api.db", "select id from \(table) order by cast(id as integer)")
            Self.expectEachOnce(ids, expected: Self.appIDs(1000), context: "sync \(table)")
        }
    }

    @Test(
        "A Postgres copy: a row per id in a cluster of the test's own, queried with psql",
        .enabled(
            if: DjangoServer.isAvailable && PostgresCluster.isAvailable,
            "no Django REST framework, or no PostgreSQL server programs (make deps installs postgresql-15)")
    )
    func postgresCopy() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let server = try DjangoServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Self.runRecipe(
            "postgres",
            replacing: [
                "postgresql://notes@db.example.com/notes": cluster.url(),
                "https://api.example.com/api/notes/": server.url + "/limitoffset/",
            ], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        // The recipe's own query: the first three titles by id.
        #expect(run.stdout.contains(" Note 1\n Note 10\n Note 100\n"), "\(run.stdout)")
        let ids = try cluster.psql("SELECT id FROM notes ORDER BY id::int").split(separator: "\n").map(String.init)
        Self.expectEachOnce(ids, expected: Self.appIDs(1000), context: "postgres")
    }

    /// Two runs of the recipe against a Datasette whose rows change in between: the second asks only from
    /// the highest `updated_at` less five minutes, and the copy ends with every row once, changes applied.
    @Test(
        "An incremental sync: the second run asks from the highest updated_at less 5m, and the copy follows",
        .enabled(
            if: DatasetteServer.isAvailable,
            "python3 does not import datasette (Tools/apps/datasette/install.sh installs it)"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the test reads the copy with it")
    )
    func incrementalSync() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("served"), withIntermediateDirectories: true)
        // Notes 1 to 300, note i updated at 2026-01-01T00:00:00Z plus i minutes: the highest is 05:00.
        let server = try DatasetteServer(count: 300, database: scratch.path("served/notes.db"))
        defer { server.stop() }
        let replacing = ["https://datasette.example.com": server.url]
        let first = try await Self.runRecipe("incremental", replacing: replacing, in: scratch)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("297 notes"), "\(first.stderr)")
        var ids = try await Self.sqlite(scratch, "notes.db", "select id from notes order by cast(id as integer)")
        Self.expectEachOnce(ids, expected: Self.appIDs(300), context: "first sync")

        // An old row changes and a new one arrives.
        _ = try await Self.sqlite(
            scratch, "served/notes.db",
            "update notes set title = 'Changed', updated_at = '2026-06-01T00:00:00Z' where id = 5; "
                + "insert into notes values (1000, 'Note 1000', 'New.', '2026-06-01T00:01:00Z')")
        let second = try await Self.runRecipe("incremental", replacing: replacing, in: scratch)
        #expect(second.status == 0, "\(second.stderr)")
        // From 04:55: notes 295 to 300, 5 and 1000.
        #expect(second.stderr.contains("since 2026-01-01T04:55:00Z: 8 notes"), "\(second.stderr)")
        ids = try await Self.sqlite(scratch, "notes.db", "select id from notes order by cast(id as integer)")
        Self.expectEachOnce(ids, expected: Self.appIDs(300) + ["1000"], context: "second sync")
        let changed = try await Self.sqlite(scratch, "notes.db", "select json->>'title' from notes where id = '5'")
        #expect(changed == ["Changed"])
    }

    /// Two runs of the nightly GitHub sync against the fixture server with `--updates` (GitHub's `since`):
    /// the second asks from the newest `updated_at` less a minute, and the copy takes the edits and the
    /// new issues, each once.
    @Test(
        "GitHub nightly sync: the second run asks since the newest updated_at less 1m; edits and new issues land",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the test reads the copy with it")
    )
    func githubSync() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(
            Self.fixture + ["--style", "link", "--updates", "--fault", "auth"],
            environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        let replacing = ["https://api.github.com/repos/OWNER/REPO/issues": server.url]
        let environment = ["GITHUB_TOKEN": Self.token]
        let first = try await Self.runRecipe("github-sync", replacing: replacing, environment: environment, in: scratch)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("first sync: 250 notes"), "\(first.stderr)")
        #expect(first.stdout.split(separator: "\n").count == 5)

        let added = try FixtureRequest.post(server, "/admin/add?count=2")
        let touched = try FixtureRequest.post(server, "/admin/touch?id=n3")
        let second = try await Self.runRecipe(
            "github-sync", replacing: replacing, environment: environment, in: scratch)
        #expect(second.status == 0, "\(second.stderr)")
        // The highest before was n249's, 2026-11-30T12:09:00Z; a minute before it, n248 comes again too.
        #expect(second.stderr.contains("since 2026-11-30T12:08:00Z: 5 notes, 1 page"), "\(second.stderr)")
        let ids = try await Self.sqlite(scratch, "issues.db", "select id from notes order by rowid")
        let new = ((added["added"] as? [NSDictionary]) ?? []).compactMap { $0["id"] as? String }
        #expect(new == ["new0", "new1"])
        Self.expectEachOnce(ids, expected: Self.fixtureIDs + new, context: "second sync")
        let title = ((touched["touched"] as? [NSDictionary])?.first?["title"] as? String) ?? "?"
        #expect(try await Self.sqlite(scratch, "issues.db", "select title from notes where id = 'n3'") == [title])
    }

    /// The GitHub sync of repositories, issues and comments against the fixture server's GitHub-shaped
    /// API, twice: the second run, after one issue changed, walks that issue's comments alone.
    @Test(
        "GitHub repos, issues and comments: every record once under its parent; run again, one changed issue's comments",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the test reads the copy with it")
    )
    func githubTree() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // No token checked: the test's own touch below could not send it (SyncTreeEndToEndTests check it).
        let server = try FixtureServer(["--count", "1", "--repos", "20", "--quiet"])
        defer { server.stop() }
        let replacing = [
            "https://api.github.com/": server.url.replacingOccurrences(of: "/notes", with: "/"),
            "orgs/OWNER/repos": "repos",
        ]
        let environment = ["GITHUB_TOKEN": Self.token]
        let first = try await Self.runRecipe("github-tree", replacing: replacing, environment: environment, in: scratch)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.split(separator: "\n").count == 3, "\(first.stdout)")
        let counts = try await Self.sqlite(
            scratch, "github.db",
            """
            select (select count(*) from repos), (select count(*) = count(distinct id) from issues),
                (select count(*) from comments) = (select sum(json->>'comments') from issues),
                (select count(*) from comments c join issues i on c.parent = i.parent || '/' || i.id
                    where c.parent_number = i.json->>'number')
                = (select count(*) from comments)
            """)
        #expect(counts == ["20|1|1|1"])
        // One issue touched: its repo's issues walk brings it, and its comments alone are walked again.
        let issue = try await Self.sqlite(
            scratch, "github.db", "select json->>'comments_url' from issues where json->>'comments' > 0 limit 1")
        let url = try #require(issue.first.flatMap { URL(string: $0) })
        let path = String(url.path.dropLast("/comments".count))
        #expect(try FixtureRequest.send("POST", server, path + "/touch").status == 200)
        let second = try await Self.runRecipe(
            "github-tree", replacing: replacing, environment: environment, in: scratch)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            syncSummary(second.stderr).last?.hasPrefix("  comments  complete           1 walk, ") == true,
            "\(second.stderr)")
    }

    /// Stripe's customers and their invoices, from the fixture server's Stripe-shaped lists (`--repos`:
    /// a customer per repository, an invoice per issue).
    @Test(
        "Stripe customers and their invoices: every invoice once under its customer, keyset pages after the last id",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run"),
        .enabled(if: hasSQLite3, "sqlite3 is not installed (make deps installs it): the test reads the copy with it")
    )
    func stripeInvoices() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(
            ["--count", "1", "--repos", "30", "--issues", "150", "--fixed", "--quiet"],
            environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        let run = try await Self.runRecipe(
            "stripe-invoices",
            replacing: ["https://api.stripe.com/v1/": server.url.replacingOccurrences(of: "/notes", with: "/v1/")],
            environment: ["STRIPE_SECRET_KEY": Self.token], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "30|4500\n", "\(run.stdout)")
        #expect(
            try await Self.sqlite(
                scratch, "stripe.db",
                "select count(*), count(distinct id), sum(json->>'customer' = parent) from invoices") == [
                    "4500|4500|4500"
                ])
    }
}
