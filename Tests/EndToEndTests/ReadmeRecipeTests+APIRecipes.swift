import TestSupport
import Testing

// The same suite: the recipes that walk a hosted API into NDJSON (GitHub REST and GraphQL, Stripe, Django
// REST framework, FastAPI, JSON:API, Datasette, Notion), each against a local server of the same shape.

extension ReadmeRecipeTests {
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
}
