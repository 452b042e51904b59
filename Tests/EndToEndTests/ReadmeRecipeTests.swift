import Foundation
import NotesFetch
import NotesPage
import NotesURLSession
import TestSupport
import Testing

/// The README's recipes, run as written: each fenced `sh` block after a `<!-- recipe: NAME -->` line goes
/// to `/bin/sh -e` with the built `notes-page` first on `PATH`, the public endpoint replaced by a local
/// server of the same shape and the token variable set, and must end with exit 0 having written every
/// record of the server once, in order. A recipe whose server cannot run here is skipped, saying why.
@Suite("README recipes, run as written against servers of the same shape")
struct ReadmeRecipeTests {
    /// Every recipe the README has, each with a test below.
    static let recipes = [
        "github-rest", "github-graphql", "stripe", "drf", "fastapi", "jsonapi", "datasette", "notion", "sqlite",
        "postgres", "incremental", "github-sync",
    ]
    /// The fixture server's notes: ids `n0` to `n249`, in pages of 100.
    static let fixture = ["--count", "250", "--page-size", "100", "--quiet"]
    static let fixtureIDs = (0..<250).map { "n\($0)" }
    /// What the Python apps serve: ids 1 to `count` but the multiples of 97.
    static func appIDs(_ count: Int) -> [String] { PythonAppServer.ids(count: count).map(String.init) }
    static let token = "tok-\(UUID().uuidString)"
    static let hasGraphQL = FileManager.default.fileExists(atPath: "/usr/share/nodejs/graphql/index.mjs")
    static let hasSQLite3 = SQLiteShell.isAvailable

    // MARK: - The README

    @Test("Every recipe block of the README has a test here, and every test here a recipe block")
    func everyRecipeTested() throws {
        #expect(try Readme.recipeNames() == Self.recipes)
    }

    @Test(
        "GitHub REST: bare arrays and Link headers, the token from GITHUB_TOKEN",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run")
    )
    func githubREST() async throws {
        let server = try FixtureServer(
            Self.fixture + ["--style", "link", "--fault", "auth"], environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        try await Self.expectRecipe(
            "github-rest", replacing: ["https://api.github.com/repos/OWNER/REPO/issues": server.url],
            environment: ["GITHUB_TOKEN": Self.token], output: "issues.ndjson", expected: Self.fixtureIDs)
    }

    /// graphql-js executes the fixture server's schema, which has no `repository(owner:name:)`: the query
    /// the recipe writes is narrowed to the same shape by aliases (`repository: viewer`, `issues: notes`),
    /// so the command line, the connection path and the variables stay the README's.
    @Test(
        "GitHub GraphQL: a Relay connection with pageInfo first, the query written by the recipe",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run"),
        .enabled(if: hasGraphQL, "node-graphql is not installed (make deps installs it): no GraphQL server")
    )
    func githubGraphQL() async throws {
        let server = try FixtureServer(
            Self.fixture + ["--fault", "auth"], environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        try await Self.expectRecipe(
            "github-graphql",
            replacing: [
                "https://api.github.com/graphql": Self.base(server) + "/graphql",
                "query($owner: String!, $name: String!, $after: String)": "query($after: String)",
                "repository(owner: $owner, name: $name) {": "repository: viewer {",
                "issues(first: 100, after: $after)": "issues: notes(first: 100, after: $after)",
            ],
            environment: ["GITHUB_TOKEN": Self.token], output: "issues.ndjson", expected: Self.fixtureIDs)
    }

    @Test(
        "Stripe: starting_after the last id while has_more, the key from STRIPE_SECRET_KEY",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run")
    )
    func stripe() async throws {
        let server = try FixtureServer(
            Self.fixture + ["--style", "keyset", "--fault", "auth"], environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        try await Self.expectRecipe(
            "stripe", replacing: ["https://api.stripe.com/v1/customers": server.url],
            environment: ["STRIPE_SECRET_KEY": Self.token], output: "customers.ndjson", expected: Self.fixtureIDs)
    }

    @Test(
        "Django REST framework: LimitOffsetPagination with no options, results, next and count found",
        .enabled(
            if: DjangoServer.isAvailable,
            "python3 does not import django and rest_framework (Tools/apps/drf/install.sh installs them)")
    )
    func drf() async throws {
        let server = try DjangoServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        try await Self.expectRecipe(
            "drf", replacing: ["https://api.example.com/api/notes/": server.url + "/limitoffset/"],
            output: "notes.ndjson", expected: Self.appIDs(1000))
    }

    @Test(
        "FastAPI: fastapi-pagination's Page by page number, pages in parallel",
        .enabled(
            if: FastAPIServer.isAvailable,
            "python3 does not import fastapi, fastapi_pagination, uvicorn and sqlalchemy (Tools/apps/fastapi/install.sh)"
        )
    )
    func fastAPI() async throws {
        let server = try FastAPIServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        try await Self.expectRecipe(
            "fastapi", replacing: ["https://api.example.com/notes": server.url + "/page"], output: "notes.ndjson",
            expected: Self.appIDs(1000))
    }

    @Test(
        "JSON:API: djangorestframework-jsonapi's data, attributes and links.next",
        .enabled(
            if: DjangoServer.hasJSONAPI,
            "python3 does not import rest_framework_json_api (Tools/apps/drf/install.sh installs it)")
    )
    func jsonAPI() async throws {
        let server = try DjangoServer(count: 1000, ["--quiet"])
        defer { server.stop() }
        try await Self.expectRecipe(
            "jsonapi", replacing: ["https://api.example.com/api/notes": server.url + "/jsonapi/"],
            output: "notes.ndjson", expected: Self.appIDs(1000))
    }

    @Test(
        "Datasette: a table's rows by next_url, pages of 1000",
        .enabled(
            if: DatasetteServer.isAvailable,
            "python3 does not import datasette (Tools/apps/datasette/install.sh installs it)")
    )
    func datasette() async throws {
        let server = try DatasetteServer(count: 2500)
        defer { server.stop() }
        try await Self.expectRecipe(
            "datasette", replacing: ["https://datasette.example.com": server.url], output: "notes.ndjson",
            expected: Self.appIDs(2500))
    }

    @Test(
        "Notion: a cursor in a POST body, the token from NOTION_TOKEN",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run")
    )
    func notion() async throws {
        let server = try FixtureServer(
            Self.fixture + ["--fault", "auth"], environment: ["NOTES_SERVER_TOKEN": Self.token])
        defer { server.stop() }
        try await Self.expectRecipe(
            "notion",
            replacing: [
                "https://api.notion.com/v1/databases/DATABASE_ID/query": Self.base(server) + "/v1/databases/notes/query"
            ],
            environment: ["NOTION_TOKEN": Self.token], output: "pages.ndjson", expected: Self.fixtureIDs)
    }

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

    // MARK: - The Swift example

    @Test(
        "The README's Swift code is this test's, and walks every page of a Django-style API",
        .enabled(if: FixtureServer.isAvailable, "node is not installed: the fixture server cannot run")
    )
    func swiftExample() async throws {
        let readme = try Readme.swiftExample()
        let source = try Files.text(#filePath)
        for line in readme.imports {
            #expect(source.split(separator: "\n").contains(Substring(line)), "\(line) is not imported here")
        }
        #expect(try Readme.lines(between: "// README: begin", and: "// README: end", in: source) == readme.code)
        // docs/library.md shows the same code.
        let library = FixtureServer.repository.appendingPathComponent("docs/library.md").path
        #expect(try Readme.swiftExample(in: library, under: "## Walking an endpoint").code == readme.code)

        let server = try FixtureServer(Self.fixture + ["--style", "drf"])
        defer { server.stop() }
        let (titles, end) = try await Self.walkAsTheREADMEDoes { hosted in
            hosted == "https://api.example.com/api/notes/" ? server.url : hosted
        }
        #expect(titles.count == 250)
        #expect(end == nil)
    }

    /// The README's "Using it from Swift" code, line for line but for `local(…)` around the endpoint, which
    /// points it at a local server instead.
    static func walkAsTheREADMEDoes(local: (String) -> String) async throws -> (titles: [String], end: PageLocation?) {
        // README: begin
        let endpoint = URL(string: local("https://api.example.com/api/notes/"))!
        var configuration = FetchConfiguration(token: EnvironmentToken())  // NOTES_TOKEN, to this origin only
        configuration.page.itemsPath = FieldPath("results")
        configuration.page.nextPath = FieldPath("next")
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: endpoint), configuration: configuration, transport: defaultTransport())
        var titles: [String] = []
        let end = try await fetcher.walk(from: fetcher.locator.start, ids: IDSet(), visited: IDSet()) { page in
            titles += page.notes.map(\.title)
        }
        // README: end
        return (titles, end)
    }

    // MARK: - Running a recipe

    /// `http://127.0.0.1:PORT` of a fixture server, whose URL names its `/notes`.
    static func base(_ server: FixtureServer) -> String { String(server.url.dropLast("/notes".count)) }

    /// Runs recipe `name` with `replacing` applied and checks that it exits 0 having written each of
    /// `expected` once, in order, to `output`.
    static func expectRecipe(
        _ name: String, replacing: [String: String], environment: [String: String] = [:], output: String,
        expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runRecipe(name, replacing: replacing, environment: environment, in: scratch)
        #expect(run.status == 0, "\(name): exit \(run.status)\n\(run.stderr)", sourceLocation: sourceLocation)
        let written = (try? scratch.read(output)) ?? ""
        expectEachOnce(ids(ofNDJSON: written), expected: expected, context: name, sourceLocation: sourceLocation)
        #expect(
            run.stderr.contains("\(expected.count) notes, "), "\(name): \(run.stderr)", sourceLocation: sourceLocation)
    }

    /// Recipe `name` of the README with each key of `replacing` (which must occur in it) replaced by its
    /// value, run by `/bin/sh -e` in `scratch` with the built notes-page first on `PATH`.
    static func runRecipe(
        _ name: String, replacing: [String: String], environment: [String: String] = [:], in scratch: Scratch
    ) async throws -> Finished {
        var script = try Readme.recipe(name)
        for (hosted, local) in replacing.sorted(by: { $0.key.count > $1.key.count }) {
            try #require(script.contains(hosted), "recipe \(name) no longer has \(hosted)")
            script = script.replacingOccurrences(of: hosted, with: local)
        }
        let command = script
        var inherited = ProcessInfo.processInfo.environment
        inherited["NOTES_TOKEN"] = nil
        inherited["NOTES_URL"] = nil
        inherited["PATH"] = Run.binary.deletingLastPathComponent().path + ":" + (inherited["PATH"] ?? "/usr/bin:/bin")
        let variables = inherited.merging(environment) { $1 }
        let directory = scratch.url
        return try await offPool {
            try Finished(
                URL(fileURLWithPath: "/bin/sh"), ["-e", "-c", command], directory: directory, environment: variables,
                patience: 300)
        }
    }

    /// The lines `sqlite3 FILE SQL` prints, `FILE` in `scratch`.
    static func sqlite(_ scratch: Scratch, _ file: String, _ sql: String) async throws -> [String] {
        let database = scratch.path(file)
        return try await offPool { try SQLiteShell.query(database, sql) }.split(separator: "\n").map(String.init)
    }

    /// The `id` of each line of NDJSON, as text (an integer's digits, or the string); `nil` for a line
    /// without one.
    static func ids(ofNDJSON text: String) -> [String?] {
        text.split(separator: "\n").map { line in
            let id = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
            return (id as? String) ?? (id as? Int).map(String.init)
        }
    }

    /// Expects `written` to be `expected`: each once, in order; says what differs, not every id.
    static func expectEachOnce(
        _ written: [String?], expected: [String], context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ids = written.compactMap { $0 }
        #expect(ids.count == written.count, "\(context): lines without an id", sourceLocation: sourceLocation)
        guard ids != expected else { return }
        var seen = Set<String>()
        let twice = ids.filter { !seen.insert($0).inserted }
        let missing = expected.filter { !seen.contains($0) }
        let difference =
            "\(context): \(ids.count) written of \(expected.count); missing \(missing.count) "
            + "(\(missing.prefix(5))…), twice \(twice.count) (\(twice.prefix(5))…)"
        Issue.record(Comment(rawValue: difference), sourceLocation: sourceLocation)
    }
}
