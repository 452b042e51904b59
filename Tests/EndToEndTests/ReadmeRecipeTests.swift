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
    /// Every recipe the README has, each with a test in ReadmeRecipeTests+APIRecipes.swift,
    /// ReadmeRecipeTests+DatabaseRecipes.swift or (drf-oauth2) OAuth2EndToEndTests.swift.
    static let recipes = [
        "github-rest", "github-graphql", "stripe", "drf", "fastapi", "jsonapi", "datasette", "notion", "sqlite",
        "postgres", "incremental", "github-sync", "sync", "github-tree", "stripe-invoices", "drf-oauth2",
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
}
