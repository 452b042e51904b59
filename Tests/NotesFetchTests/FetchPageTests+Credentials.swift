import Foundation
import NotesFetch
import NotesFetchTesting
import Testing

// The same suite: the token and the user's credential headers, which go to the endpoint's origin only and
// never over plain http to another host.

extension FetchPageTests {
    @Test(
        "The bearer token goes to the endpoint's origin, follows a same-origin redirect, and is dropped across origins")
    func token() async throws {
        var configuration = FetchConfiguration()
        configuration.token = Secret("s3cr3t-token")
        let transport = MemoryTransport { request, _ in
            switch request.url {
            case "http://127.0.0.1:8080/notes":
                return .status(307, headers: [HTTPHeader("Location", "/v2/notes")])
            case "http://127.0.0.1:8080/v2/notes":
                return .status(302, headers: [HTTPHeader("Location", "http://127.0.0.1:9090/notes")])
            default:
                return .json(onePage)
            }
        }
        let page = try #require(await firstPage(fetcher(transport, configuration: configuration)).page)
        #expect(page.attempts == 1)
        let authorization = transport.requests.map { request in
            request.headers.first { $0.name == "Authorization" }?.value
        }
        #expect(authorization == ["Bearer s3cr3t-token", "Bearer s3cr3t-token", nil])
        #expect(transport.requests.map(\.url).last == "http://127.0.0.1:9090/notes")
        #expect(!"\(configuration)".contains("s3cr3t"))
    }

    @Test(
        "A redirect keeps the token only within the endpoint's origin: scheme, host and port all count",
        arguments: [
            ("http://127.0.0.1:8080/v2/notes", true),
            ("HTTP://127.0.0.1:8080/v2/notes", true),
            ("https://127.0.0.1:8080/notes", false),
            ("http://localhost:8080/notes", false),
            ("http://127.0.0.2:8080/notes", false),
            ("http://127.0.0.1:8081/notes", false),
            ("http://127.0.0.1/notes", false),
        ]
    )
    func tokenOrigin(target: String, keepsToken: Bool) async throws {
        var configuration = FetchConfiguration()
        configuration.token = Secret("s3cr3t-token")
        let transport = MemoryTransport { request, index in
            index == 0 ? .status(302, headers: [HTTPHeader("Location", target)]) : .json(onePage)
        }
        _ = try #require(await firstPage(fetcher(transport, configuration: configuration)).page)
        let authorization = transport.requests.map { request in
            request.headers.first { $0.name == "Authorization" }?.value
        }
        #expect(authorization == ["Bearer s3cr3t-token", keepsToken ? "Bearer s3cr3t-token" : nil])
    }

    @Test("An origin is the scheme, the lowercased host and the port, the scheme's default when none is given")
    func origins() throws {
        let origin = try #require(Origin("https://API.example/notes?x=1"))
        #expect([origin.scheme, origin.host, "\(origin.port)"] == ["https", "api.example", "443"])
        let plain = try #require(Origin("http://api.example/notes"))
        #expect([plain.scheme, plain.host, "\(plain.port)"] == ["http", "api.example", "80"])
        #expect(plain != origin)
        #expect(Origin("https://api.example:443/v2") == origin)
        #expect(Origin("http://api.example:443/notes") != origin)
        #expect(Origin("not a url") == nil)
    }

    @Test(
        "Credentials over plain http to a host that is not this machine are refused by the library, before any request",
        arguments: [
            (Secret("t0ken"), [HTTPHeader]()), (nil, [HTTPHeader("authorization", "Basic eDp5")]),
            (nil, [HTTPHeader("Cookie", "session=1")]), (nil, [HTTPHeader("X-Api-Key", "k3y")]),
        ] as [(Secret?, [HTTPHeader])]
    )
    func plainHTTPRefused(token: Secret?, headers: [HTTPHeader]) async throws {
        var configuration = FetchConfiguration()
        configuration.token = token
        configuration.headers = headers
        let transport = MemoryTransport { _, _ in .json(onePage) }
        let refused = try #require(
            await firstPage(
                fetcher(transport, configuration: configuration, endpoint: URL(string: "http://api.example/notes")!)
            ).error)
        #expect(refused.kind == .usage)
        #expect(refused.reason == "Refusing to send credentials over plain http to 'api.example': use https")
        #expect(transport.requests.isEmpty)
        // Loopback and https are fine.
        for url in ["http://127.0.0.1:8080/notes", "http://localhost/notes", "https://api.example/notes"] {
            let allowed = MemoryTransport { _, _ in .json(onePage) }
            _ = try #require(
                await firstPage(fetcher(allowed, configuration: configuration, endpoint: URL(string: url)!)).page)
        }
    }

    @Test("Credential headers given by the user stay with the endpoint's origin, as the token does")
    func credentialHeadersDropped() async throws {
        var configuration = FetchConfiguration()
        configuration.headers = [
            HTTPHeader("Authorization", "Basic eDp5"), HTTPHeader("Cookie", "s=1"), HTTPHeader("X-Api-Key", "k"),
            HTTPHeader("X-Trace", "on"),
        ]
        let transport = MemoryTransport { _, index in
            index == 0 ? .status(302, headers: [HTTPHeader("Location", "http://127.0.0.1:9090/notes")]) : .json(onePage)
        }
        _ = try #require(await firstPage(fetcher(transport, configuration: configuration)).page)
        let names = transport.requests.map { $0.headers.map(\.name) }
        #expect(names == [["Authorization", "Cookie", "X-Api-Key", "X-Trace"], ["X-Trace"]])
    }

    @Test("Headers that carry credentials, by name: the ones HTTP names, and any with key, token or secret in it")
    func credentialNames() {
        for name in ["Authorization", "proxy-authorization", "cookie", "X-Api-Key", "Private-Token", "X-Client-Secret"]
        {
            #expect(FetchConfiguration.isCredential(name: name), "\(name)")
        }
        for name in ["Accept", "User-Agent", "X-Request-Id", "X-Trace"] {
            #expect(!FetchConfiguration.isCredential(name: name), "\(name)")
        }
    }
}
