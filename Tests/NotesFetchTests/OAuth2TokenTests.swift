import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

/// OAuth 2.0 access tokens from a token endpoint in memory: what is sent, how long a token is kept, the
/// endpoint's refusals, a rotated refresh token kept before it is used, and a walk's one renewal on a 401.
@Suite("OAuth 2.0 tokens")
struct OAuth2TokenTests {
    static let tokenURL = "https://auth.example.com/o/token/"

    /// A clock the test moves.
    final class Clock: Sendable {
        let seconds = Mutex(1_000.0)
        var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    /// A token endpoint handing out `token-1`, `token-2`, … that live `lifetime` seconds, answering
    /// `refuse` instead when set.
    static func endpoint(lifetime: Int = 60, refreshTokens: Bool = false, refuse: String? = nil) -> MemoryTransport {
        MemoryTransport { _, index in
            if let refuse { return .json(refuse, status: 401) }
            let refresh = refreshTokens ? #","refresh_token":"refresh-\#(index + 2)""# : ""
            return .json(
                #"{"access_token":"token-\#(index + 1)","token_type":"Bearer","expires_in":\#(lifetime)\#(refresh)}"#)
        }
    }

    static func form(_ request: HTTPRequest) -> String { String(decoding: request.body ?? [], as: UTF8.self) }

    @Test("Client credentials, client_secret_basic: the form and the Basic header of form-encoded id and secret")
    func clientCredentialsBasic() throws {
        let transport = Self.endpoint()
        let clock = Clock()
        let token = OAuth2Token(
            .init(
                tokenURL: Self.tokenURL, clientID: "app:1", clientSecret: Secret("s3 cr/t"), scopes: ["read", "write"],
                grant: .clientCredentials), transport: transport, now: clock.now)
        try token.prepare()
        #expect(token.currentToken() == Secret("token-1"))
        let request = try #require(transport.requests.first)
        #expect(request.url == Self.tokenURL && request.method == "POST")
        #expect(Self.form(request) == "grant_type=client_credentials&scope=read+write")
        let basic = "Basic " + Data("app%3A1:s3+cr%2Ft".utf8).base64EncodedString()
        #expect(request.headers.contains(HTTPHeader("Authorization", basic)))
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/x-www-form-urlencoded")))
        // Kept until a quarter of its 60 s before it expires, then asked for again.
        clock.advance(44)
        #expect(token.currentToken() == Secret("token-1") && transport.requests.count == 1)
        clock.advance(2)
        #expect(token.currentToken() == Secret("token-2") && transport.requests.count == 2)
    }

    @Test("client_secret_post: the id and the secret in the form, no Authorization header")
    func clientCredentialsPost() throws {
        let transport = Self.endpoint()
        let token = OAuth2Token(
            .init(
                tokenURL: Self.tokenURL, clientID: "app", clientSecret: Secret("s&cret"), clientAuthentication: .post,
                grant: .clientCredentials), transport: transport, now: Clock().now)
        try token.prepare()
        let request = try #require(transport.requests.first)
        #expect(Self.form(request) == "grant_type=client_credentials&client_id=app&client_secret=s%26cret")
        #expect(!request.headers.contains { $0.name == "Authorization" })
    }

    @Test(
        "The endpoint's refusal names its error, never the secret; no token, an odd type or a huge answer is unavailable"
    )
    func refusals() {
        func problem(_ transport: MemoryTransport) -> OAuth2Token.Problem? {
            let token = OAuth2Token(
                .init(
                    tokenURL: Self.tokenURL, clientID: "app", clientSecret: Secret("hunter2"), grant: .clientCredentials
                ),
                transport: transport, now: Clock().now)
            do {
                try token.prepare()
                return nil
            } catch {
                return error
            }
        }
        let refused = problem(Self.endpoint(refuse: #"{"error":"invalid_client","error_description":"bad secret"}"#))
        #expect(refused?.kind == .refused)
        #expect(refused?.message == "the token endpoint refused (HTTP 401): invalid_client: bad secret")
        #expect(problem(MemoryTransport { _, _ in .status(503) })?.kind == .unavailable)
        #expect(
            problem(MemoryTransport { _, _ in .json(#"{"token_type":"Bearer"}"#) })?.message.contains("no access_token")
                == true)
        #expect(
            problem(MemoryTransport { _, _ in .json(#"{"access_token":"t","token_type":"mac"}"#) })?.message.contains(
                "not Bearer") == true)
        let huge = String(repeating: " ", count: OAuth2Token.maxResponseBytes) + "{}"
        #expect(problem(MemoryTransport { _, _ in .json(huge) })?.message.contains("over 65536 bytes") == true)
        #expect(problem(MemoryTransport { _, _ in .json(#"{"access_token":"a b"}"#) })?.kind == .unavailable)
        #expect(!"\(String(describing: refused))".contains("hunter2"))
    }

    @Test("A rotated refresh token is in its file before the access token that came with it is used")
    func rotation() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.path("refresh")
        try Files.write("refresh-1\n", to: file)
        let seen = Mutex<[String]>([])
        let transport = MemoryTransport { request, index in
            // What the file holds when the endpoint answers: the token this request sent.
            seen.withLock { $0.append((try? Files.text(file)) ?? "") }
            return .json(
                #"{"access_token":"token-\#(index + 1)","token_type":"bearer","expires_in":2,"refresh_token":"refresh-\#(index + 2)"}"#
            )
        }
        let clock = Clock()
        let token = OAuth2Token(
            .init(
                tokenURL: Self.tokenURL, clientID: "rt", clientSecret: nil, clientAuthentication: .post,
                grant: .refreshToken(RefreshTokenFile(path: file))), transport: transport, now: clock.now)
        try token.prepare()
        #expect(try Files.text(file) == "refresh-2\n")
        clock.advance(3)
        #expect(token.currentToken() == Secret("token-2"))
        #expect(try Files.text(file) == "refresh-3\n")
        #expect(
            transport.requests.map(Self.form) == [
                "grant_type=refresh_token&refresh_token=refresh-1&client_id=rt",
                "grant_type=refresh_token&refresh_token=refresh-2&client_id=rt",
            ])
        #expect(seen.withLock { $0 } == ["refresh-1\n", "refresh-2\n"])
        // No file: refused before any request.
        let none = OAuth2Token(
            .init(
                tokenURL: Self.tokenURL, clientID: "rt", clientSecret: nil,
                grant: .refreshToken(RefreshTokenFile(path: scratch.path("none")))),
            transport: transport, now: clock.now)
        #expect(throws: OAuth2Token.Problem.self) { try none.prepare() }
        #expect(transport.requests.count == 2)
    }

    @Test("Walks refused the same token renew it once between them; a token renewed since is simply used")
    func renewOnce() throws {
        let transport = Self.endpoint()
        let token = OAuth2Token(
            .init(tokenURL: Self.tokenURL, clientID: "a", clientSecret: Secret("b"), grant: .clientCredentials),
            transport: transport, now: Clock().now)
        let first = token.currentToken()
        #expect(token.renew(rejected: first))
        #expect(token.renew(rejected: first))
        #expect(transport.requests.count == 2)
        #expect(token.currentToken() == Secret("token-2"))
    }

    @Test("A page refused with 401 is asked again once with a renewed token; refused again, the session expired")
    func walkRenews() async throws {
        let tokens = Self.endpoint()
        let oauth = OAuth2Token(
            .init(tokenURL: Self.tokenURL, clientID: "a", clientSecret: Secret("b"), grant: .clientCredentials),
            transport: tokens, now: Clock().now)
        var configuration = FetchConfiguration()
        configuration.token = oauth
        let api = MemoryTransport { request, _ in
            request.headers.contains(HTTPHeader("Authorization", "Bearer token-2")) ? .json(onePage) : .status(401)
        }
        let page = try #require(await firstPage(fetcher(api, configuration: configuration)).page)
        #expect(page.notes.count == 1)
        #expect(api.requests.count == 2 && tokens.requests.count == 2)

        // Refused twice; a third request (a walk renewing again and again) would be let in.
        let never = MemoryTransport { _, index in index < 2 ? .status(401) : .json(onePage) }
        let error = await firstPage(fetcher(never, configuration: configuration)).error
        #expect(error?.code == .sessionExpired(status: 401))
        #expect(never.requests.count == 2)
    }
}
