import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// `sync` with `auth` of an OAuth 2.0 type, in process: the token asked for before the first request and
/// sent with every walk's, the endpoint's refusal as exit 77, and the sources refused before any request.
@Suite("sync with OAuth 2.0, in process")
struct SyncOAuth2Tests {
    static func source(_ auth: String) -> String {
        """
        base-url: http://127.0.0.1:9/api/
        auth:
        \(auth)
        resources:
          - name: notes
            path: notes
        """
    }

    static let clientCredentials = """
          type: oauth2-client-credentials
          token-url: http://127.0.0.1:9/o/token/
          client-id: app
          client-secret: ${APP_SECRET}
          scopes: read
        """

    /// Runs `sync` of `source` through `transport`.
    static func run(_ source: String, transport: MemoryTransport, environment: [String: String] = [:]) async throws
        -> (status: ArgumentParsing.ExitStatus, stderr: String)
    {
        let scratch = try Scratch()
        defer { scratch.remove() }
        return try await runSync(source, in: scratch, transport: transport, environment: environment)
    }

    @Test("Client credentials: one token asked for first, sent on every page; the secret in no message")
    func clientCredentials() async throws {
        let transport = MemoryTransport { request, _ in
            if request.url.hasSuffix("/o/token/") {
                return .json(#"{"access_token":"acc-1","token_type":"Bearer","expires_in":3600}"#)
            }
            guard request.headers.contains(HTTPHeader("Authorization", "Bearer acc-1")) else { return .status(401) }
            return request.url.hasSuffix("cursor=2")
                ? .json(#"{"notes":[{"id":"b","title":"b"}],"next_cursor":null}"#)
                : .json(#"{"notes":[{"id":"a","title":"a"}],"next_cursor":"2"}"#)
        }
        let run = try await Self.run(
            Self.source(Self.clientCredentials), transport: transport, environment: ["APP_SECRET": "sh-secret"])
        #expect(run.status == .success, "\(run.stderr)")
        #expect(
            transport.requests.map { $0.url.split(separator: "/").last ?? "" } == ["token", "notes", "notes?cursor=2"])
        #expect(!run.stderr.contains("sh-secret") && !run.stderr.contains("acc-1"))
    }

    @Test("The endpoint refuses the client: exit 77 naming its error, and no request to the API")
    func refused() async throws {
        let transport = MemoryTransport { _, _ in .json(#"{"error":"invalid_client"}"#, status: 401) }
        let run = try await Self.run(
            Self.source(Self.clientCredentials), transport: transport, environment: ["APP_SECRET": "sh-secret"])
        #expect(run.status == .noPermission)
        #expect(run.stderr == "Error: the token endpoint refused (HTTP 401): invalid_client\n")
        #expect(transport.requests.count == 1)
    }

    @Test(
        "Refused before any request: a token endpoint over plain http elsewhere, a refresh token not in a file, a written secret"
    )
    func refusals() throws {
        func error(_ auth: String) -> String? {
            do {
                _ = try SyncCommandTests.sync(Self.source(auth), environment: ["S": "x"])
                return nil
            } catch {
                return (error as? UsageError)?.message ?? "\(error)"
            }
        }
        let http = Self.clientCredentials.replacing("http://127.0.0.1:9/o/token/", with: "http://auth.example.com/t")
            .replacing("${APP_SECRET}", with: "${S}")
        #expect(error(http)?.contains("is not a valid https URL (plain http goes only to this machine)") == true)
        let inline = Self.clientCredentials.replacing("${APP_SECRET}", with: "hunter2")
        let written = error(inline)
        #expect(
            written?.contains("the client-secret is written in the source") == true, "\(String(describing: written))")
        #expect(written?.contains("hunter2") == false)
        let envRefresh = """
              type: oauth2-refresh-token
              token-url: https://auth.example.com/t
              client-id: app
              refresh-token: ${S}
            """
        #expect(error(envRefresh)?.contains("the refresh-token is given as @path") == true)
        let clientAuth = Self.clientCredentials.replacing("scopes: read", with: "client-auth: jwt")
        #expect(error(clientAuth)?.contains("'client-auth' is basic (client_secret_basic) or post") == true)
    }
}
