import Foundation
import TestSupport
import Testing

/// `Tools/apps/oauth/server.py`: django-oauth-toolkit's token endpoint in front of a Django REST framework
/// API of projects and their notes, its access tokens living one second.
final class OAuthServer: PythonAppServer {
    static let isAvailable = imports(["django", "rest_framework", "oauth2_provider"])
    /// The directory of the clients' ids, secrets and the first refresh token.
    let state: String

    init(state: String, expires: Int = 1) throws {
        self.state = state
        try super.init(
            script: "Tools/apps/oauth/server.py", count: nil, ["--state", state, "--expires", "\(expires)", "--quiet"])
    }

    func value(_ name: String) throws -> String {
        try Files.text(state + "/" + name).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `notes-page sync` of projects and each project's notes behind a real OAuth 2.0 server: the client
/// credentials and refresh token grants as django-oauth-toolkit ships them, tokens expiring during the walk.
@Suite(
    "sync with OAuth 2.0 against django-oauth-toolkit",
    .enabled(if: OAuthServer.isAvailable, "no django-oauth-toolkit (make deps installs it): skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct OAuth2EndToEndTests {
    /// Projects, then each project's notes, at 40 requests a second: the walk outlives several tokens.
    static func source(_ server: OAuthServer, auth: String) -> String {
        """
        base-url: \(server.url)/api/
        auth:
        \(auth)
        defaults:
          rate: 40
        resources:
          - name: projects
            path: projects/
            no-title: true
          - name: notes
            parent: projects
            path: projects/{parent.id}/notes/
            include-from-parent: [name]
        """
    }

    /// Checks every project and note once, each note under its project.
    static func expectWhole(_ database: String, _ context: String, includes: Bool = true) throws {
        #expect(
            try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM projects") == "20|20\n",
            "\(context)")
        // 15 notes in each project but 7's and 14's.
        #expect(
            try SQLiteShell.query(
                database, "SELECT count(*), count(DISTINCT id), sum(json->>'project' = parent) FROM notes")
                == "270|270|270\n", "\(context)")
        if includes {
            #expect(
                try SQLiteShell.query(database, "SELECT count(*) FROM notes WHERE parent_name = 'Project ' || parent")
                    == "270\n")
        }
    }

    @Test(
        "Client credentials, Basic and in the form: tokens asked for again as they expire, every record once, no secret shown",
        arguments: ["basic", "post"])
    func clientCredentials(clientAuth: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try OAuthServer(state: scratch.path("state"))
        let secret = try server.value("cc-client-secret")
        let auth = """
              type: oauth2-client-credentials
              token-url: \(server.url)/o/token/
              client-id: cc-client
              client-secret: ${CC_SECRET}
              scopes: read
              client-auth: \(clientAuth)
            """
        try Files.write(Self.source(server, auth: auth), to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let run = try await Run(
            ["sync", scratch.path("api.yaml"), "--sqlite", database], environment: ["CC_SECRET": secret])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectWhole(database, run.stderr)
        let grants = log.split(separator: "\n").filter { $0.hasPrefix("token grant=") }
        #expect(grants.count >= 3, "\(log)")
        #expect(Set(grants) == ["token grant=client_credentials auth=\(clientAuth) status=200"], "\(log)")
        for text in [run.stderr, run.stdout, try SQLiteShell.query(database, ".dump")] {
            #expect(!text.contains(secret))
        }
    }

    @Test(
        "Refresh tokens rotated as the walk goes: each kept in its file before use, every record once; the spent one refused"
    )
    func refreshToken() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try OAuthServer(state: scratch.path("state"))
        defer { server.stop() }
        let first = try server.value("refresh-token")
        try Files.write(first + "\n", to: scratch.path("refresh"))
        let auth = """
              type: oauth2-refresh-token
              token-url: \(server.url)/o/token/
              client-id: rt-client
              client-secret: ${RT_SECRET}
              refresh-token: "@\(scratch.path("refresh"))"
            """
        try Files.write(Self.source(server, auth: auth), to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let environment = ["RT_SECRET": try server.value("rt-client-secret")]
        let run = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", database], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectWhole(database, run.stderr)
        let kept = try Files.text(scratch.path("refresh")).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(kept != first && !kept.isEmpty)
        for text in [run.stderr, try SQLiteShell.query(database, ".dump")] {
            #expect(!text.contains(first) && !text.contains(kept))
        }
        // The file's token is the live one: run again, it walks; the first one, spent, is refused (77).
        let again = try await Run(
            ["sync", scratch.path("api.yaml"), "--sqlite", database, "--full"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        try Files.write(first + "\n", to: scratch.path("refresh"))
        let spent = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", database], environment: environment)
        #expect(spent.status == 77)
        #expect(spent.stderr == "Error: the token endpoint refused (HTTP 400): invalid_grant\n", "\(spent.stderr)")
    }

    @Test(
        "Killed (SIGKILL) the moment a rotated refresh token lands in its file, each time: the next run goes on with it, every record once"
    )
    func killedAfterRotation() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try OAuthServer(state: scratch.path("state"))
        defer { server.stop() }
        let file = scratch.path("refresh")
        try Files.write(try server.value("refresh-token") + "\n", to: file)
        let auth = """
              type: oauth2-refresh-token
              token-url: \(server.url)/o/token/
              client-id: rt-client
              client-secret: ${RT_SECRET}
              refresh-token: "@\(file)"
            """
        try Files.write(Self.source(server, auth: auth), to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let secret = try server.value("rt-client-secret")
        let arguments = ["sync", scratch.path("api.yaml"), "--sqlite", database]
        var environment = ProcessInfo.processInfo.environment
        environment["RT_SECRET"] = secret
        // Each run is killed as soon as the file changes: after the token endpoint's answer, before (or as)
        // the access token that came with it is used. The spent token is gone; only the file's is valid.
        var kills = 0
        for _ in 0..<4 {
            let before = try Files.text(file)
            let process = Process()
            process.executableURL = Run.binary
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try Spawning.run(process)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline, (try? Files.text(file)) == before { usleep(500) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            #expect(waitOrKill(process, within: 20) == nil)
            #expect(try Files.text(file) != before, "no token was rotated in round \(kills)")
        }
        #expect(kills == 4)
        let run = try await Run(arguments, environment: ["RT_SECRET": secret])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectWhole(database, run.stderr)
    }

    @Test("The README's recipe: projects and their notes with a client's credentials, as written")
    func recipe() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try OAuthServer(state: scratch.path("state"))
        defer { server.stop() }
        let run = try await ReadmeRecipeTests.runRecipe(
            "drf-oauth2",
            replacing: ["https://api.example.com/": server.url + "/", "client-id: notes-sync": "client-id: cc-client"],
            environment: ["CLIENT_SECRET": try server.value("cc-client-secret")], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "18|270\n", "\(run.stdout)")  // 20 projects, 7 and 14 with no notes
        try Self.expectWhole(scratch.path("projects.db"), run.stderr, includes: false)
    }
}
