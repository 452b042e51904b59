import Foundation
import TestSupport
import Testing

// The same suite: workers that share one OAuth 2.0 token, renewed by one of them at a time.

extension PostgresEndToEndTests {
    @Test(
        "Four workers, one refresh token the server rotates and revokes at once (django-oauth-toolkit, access tokens of 1 s): one renewal at a time for all, the rotated token kept in the database before use, every record once",
        .enabled(if: OAuthServer.isAvailable, "no django-oauth-toolkit (make deps installs it): skipped")
    )
    func sharedRefreshToken() async throws {
        let database = try Self.server()
        _ = try database.psql("DROP SCHEMA IF EXISTS shared_token CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try OAuthServer(state: scratch.path("state"))
        let first = try server.value("refresh-token")
        try Files.write(try server.value("rt-client-secret") + "\n", to: scratch.path("secret"))
        // Each worker with a refresh token file of its own, as on machines of their own: the database is all
        // they share.
        func arguments(_ worker: Int) throws -> [String] {
            try Files.write(first + "\n", to: scratch.path("refresh-\(worker)"))
            let auth = """
                  type: oauth2-refresh-token
                  token-url: \(server.url)/o/token/
                  client-id: rt-client
                  client-secret: "@\(scratch.path("secret"))"
                  refresh-token: "@\(scratch.path("refresh-\(worker)"))"
                """
            try Files.write(OAuth2EndToEndTests.source(server, auth: auth), to: scratch.path("api-\(worker).yaml"))
            return [
                "sync", scratch.path("api-\(worker).yaml"), "--postgres", database.url(), "--schema", "shared_token",
                "--worker", "--run", "token-1", "--quiet",
            ]
        }
        let lists = try (0..<4).map(arguments)
        async let a = Run(lists[0])
        async let b = Run(lists[1])
        async let c = Run(lists[2])
        async let d = Run(lists[3])
        let runs = try await [a, b, c, d]
        let log = server.stop()
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        #expect(
            try database.psql("SELECT count(*), count(DISTINCT id) FROM shared_token.projects") == "20|20\n")
        #expect(
            try database.psql(
                "SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE json->>'project' = parent) FROM shared_token.notes"
            ) == "270|270|270\n")
        // Every renewal the server took: the access tokens expired during the walk, and no worker ever sent
        // a refresh token another had spent.
        let grants = log.split(separator: "\n").filter { $0.hasPrefix("token grant=") }
        #expect(grants.count >= 3, "\(log)")
        #expect(Set(grants) == ["token grant=refresh_token auth=basic status=200"], "\(grants)")
        // The newest refresh token is the database's, and the file of the worker that last renewed follows it.
        let kept = try database.psql("SELECT refresh_token FROM shared_token.notes_page_tokens")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!kept.isEmpty && kept != first)
        let files = try (0..<4).map {
            try Files.text(scratch.path("refresh-\($0)")).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(files.contains(kept), "\(files.map { $0 == first ? "first" : $0 == kept ? "kept" : "other" })")
        for run in runs { #expect(!run.stderr.contains(first) && !run.stderr.contains(kept)) }
    }
}
