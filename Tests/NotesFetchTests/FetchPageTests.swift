import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

@Suite("Fetching one page")
struct FetchPageTests {
    @Test("One note")
    func oneNote() async throws {
        let transport = MemoryTransport { _, _ in .json(onePage) }
        let page = try #require(await firstPage(fetcher(transport)).page)
        #expect(page.notes.map(\.id) == ["n1"])
        #expect(page.next == nil)
        #expect(page.attempts == 1)
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:8080/notes"])
    }

    @Test("An empty page is a success with no notes, not an error")
    func emptyPage() async throws {
        for body in [#"{"notes": [], "next_cursor": null}"#, "[]"] {
            let page = try #require(await firstPage(fetcher(MemoryTransport { _, _ in .json(body) })).page)
            #expect(page.notes.isEmpty && page.next == nil)
        }
    }

    @Test(
        "Bodies that break the contract fail at once, not retried",
        arguments: [
            (
                #"{"notes": [{"id": "a", "title": "x"}, {"id": "a", "title": "y"}], "next_cursor": null}"#,
                "duplicate-id"
            ),
            (#"{"notes": [{"title": "x"}], "next_cursor": null}"#, "missing-id"),
            (#"{"notes": [{"id": "a", "title": "x"}"#, "truncated"),
            (#"{"notes": [}"#, "invalid-json"),
        ]
    )
    func contractErrors(_ body: String, code: String) async throws {
        let transport = MemoryTransport { _, _ in .json(body) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        guard case .contract(let pageError) = error.code.base else {
            Issue.record("expected a contract error, got \(error)")
            return
        }
        #expect(pageError.code.name == code)
        #expect(error.kind == .contract)
        #expect(transport.requests.count == 1)
    }

    @Test("An HTML login page with 200 is a content-type error, before any byte of it is parsed")
    func htmlPage() async throws {
        let html = MemoryTransport.Response.reply(
            HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")]),
            chunks: [Array("<!DOCTYPE html><html>".utf8)]
        )
        let transport = MemoryTransport { _, _ in html }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .contentType("text/html; charset=utf-8"))
        #expect(error.description == "page 1 (the first page): the response is 'text/html; charset=utf-8', not JSON")
    }

    /// Each content type with the refusal it must get (`nil`: accepted), naming the type as the server sent it.
    @Test(
        "JSON content types are accepted, others refused with a content-type error naming the type",
        arguments: [
            ("application/json", nil), ("application/json; charset=utf-8", nil),
            ("Application/JSON;charset=UTF-8", nil),
            ("application/vnd.api+json", nil), ("application/problem+json", nil),
            ("application/json; charset=latin1", "the response is 'application/json; charset=latin1', not JSON"),
            ("text/json", "the response is 'text/json', not JSON"),
            ("text/plain", "the response is 'text/plain', not JSON"),
            ("", "the response is without a Content-Type, not JSON"),
        ] as [(String, String?)]
    )
    func contentTypes(_ type: String, refusal: String?) async throws {
        let head = HTTPResponseHead(status: 200, headers: type.isEmpty ? [] : [HTTPHeader("Content-Type", type)])
        let transport = MemoryTransport { _, _ in .reply(head, chunks: [Array(onePage.utf8)]) }
        let result = await firstPage(fetcher(transport))
        guard let refusal else {
            let page = try #require(result.page, "refused: \(result)")
            #expect(page.notes.map(\.id) == ["n1"])
            return
        }
        let error = try #require(result.error, "accepted")
        #expect(error.code == .contentType(type))
        #expect(error.kind == .contract)
        #expect(error.description == "page 1 (the first page): \(refusal)")
        #expect(transport.requests.count == 1, "a content-type error is not retried")
    }

    @Test("A Content-Length over the page cap fails before the body is read")
    func contentLength() async throws {
        var configuration = FetchConfiguration()
        configuration.page.limits.maxDocumentBytes = 1_000
        let head = HTTPResponseHead(
            status: 200,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Length", "5000")]
        )
        let transport = MemoryTransport { _, _ in .reply(head, chunks: [Array(onePage.utf8)]) }
        let error = try #require(await firstPage(fetcher(transport, configuration: configuration)).error)
        #expect(error.code == .tooLarge(contentLength: 5_000, limit: 1_000))
    }

    @Test("500, 502, 503, 504, 429 and transport errors are retried; a later attempt succeeds")
    func retried() async throws {
        let failures: [MemoryTransport.Response] = [
            .status(500), .status(502), .status(503), .status(504), .status(429),
            .failure(TransportError(.broken, "Connection reset by peer")),
        ]
        for failure in failures {
            let sleeps = SleepLog()
            let transport = MemoryTransport { _, index in index == 0 ? failure : .json(onePage) }
            let page = try #require(await firstPage(fetcher(transport, sleeps: sleeps)).page)
            #expect(page.notes.count == 1 && page.attempts == 2)
            #expect(sleeps.all.count == 1)
        }
    }

    @Test("A body cut off mid-page is retried from the start; its partial notes are dropped")
    func cutBody() async throws {
        let body = #"{"notes": [{"id": "a", "title": "x"}, {"id": "b", "title": "y"}], "next_cursor": null}"#
        let head = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
        let transport = MemoryTransport { _, index in
            index == 0
                ? .cut(head, chunks: [Array(body.utf8.prefix(45))], TransportError(.broken, "transfer closed"))
                : .json(body)
        }
        let ids = IDSet()
        let page = try #require(await firstPage(fetcher(transport), ids: ids).page)
        #expect(page.notes.map(\.id) == ["a", "b"])
        #expect(ids.count == 2)
    }

    @Test("After every retry fails, the page is unavailable: N retries mean N + 1 attempts")
    func exhausted() async throws {
        var configuration = FetchConfiguration()
        configuration.retries = 3
        let sleeps = SleepLog()
        let transport = MemoryTransport { _, _ in .status(503) }
        let error = try #require(
            await firstPage(fetcher(transport, configuration: configuration, sleeps: sleeps)).error)
        #expect(error.code == .unavailable("HTTP 503"))
        #expect(error.kind == .unavailable)
        #expect(error.attempts == 4)
        #expect(transport.requests.count == 4)
        // Full jitter with the random source at 0.5: half of each ceiling (0.5, 1, 2 s).
        #expect(sleeps.all == [0.25, 0.5, 1])
    }

    @Test("Retry-After on a 503 is honoured, in seconds or as an HTTP date, up to the backoff's cap")
    func retryAfter() async throws {
        let cases: [(String, Double)] = [("7", 7), ("100000", 120), ("Mon, 12 Jan 1970 13:46:50 GMT", 10)]
        for (value, expected) in cases {
            let sleeps = SleepLog()  // now = 1,000,000 s: 1970-01-12 13:46:40
            let transport = MemoryTransport { _, index in
                index == 0 ? .status(503, headers: [HTTPHeader("Retry-After", value)]) : .json(onePage)
            }
            _ = try #require(await firstPage(fetcher(transport, sleeps: sleeps)).page)
            #expect(sleeps.all == [expected], "Retry-After: \(value)")
        }
    }

    @Test("401 and 403 mean the session expired: exactly one request, never retried", arguments: [401, 403])
    func sessionExpired(_ status: Int) async throws {
        let transport = MemoryTransport { _, _ in .status(status) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .sessionExpired(status: status))
        #expect(error.kind == .sessionExpired)
        #expect(transport.requests.count == 1)
    }

    @Test("Other 4xx end the walk as a contract error naming the status", arguments: [400, 404, 410, 422])
    func otherClientErrors(_ status: Int) async throws {
        let transport = MemoryTransport { _, _ in .status(status) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .status(status))
        #expect(error.kind == .contract)
        #expect(transport.requests.count == 1)
    }

    @Test("A failed page followed by a valid one: the user's retry succeeds")
    func retryAfterFailure() async throws {
        let transport = MemoryTransport { _, index in index == 0 ? .json(#"{"notes": [{"id": "a"}]}"#) : .json(onePage)
        }
        let ids = IDSet()
        let fetcher = fetcher(transport)
        #expect(await firstPage(fetcher, ids: ids).error != nil)
        #expect(ids.count == 0)
        #expect(await firstPage(fetcher, ids: ids).page?.notes.count == 1)
    }

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

    @Test("Redirect loops stop after the limit")
    func redirectLoop() async throws {
        let transport = MemoryTransport { _, _ in .status(302, headers: [HTTPHeader("Location", "/notes")]) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .redirects(5))
        #expect(transport.requests.count == 6)
    }

    @Test("Cancelling the task stops a slow page at the next chunk and takes its ids back")
    func cancellation() async throws {
        let chunks =
            [Array(#"{"notes": [{"id": "a", "title": "x"},"#.utf8)]
            + Array(repeating: Array(" ".utf8), count: 10_000)
        let head = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
        // 100 s to the end, 10 ms a chunk: a test starved for seconds on a loaded machine still cancels midway.
        let transport = MemoryTransport { _, _ in .drip(head, chunks: chunks, pause: 0.01) }
        let fetcher = fetcher(transport)
        let task = Task {
            let ids = IDSet()
            let result = await firstPage(fetcher, ids: ids)
            return (result.error, ids.count)
        }
        while transport.requests.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        let (error, idCount) = await task.value
        #expect(error?.code == .cancelled)
        #expect(idCount == 0)
        #expect(transport.requests.count == 1)
    }

    @Test(
        "A 403 or 429 that says the rate limit is spent is a wait, then a retry; a plain 403 is an expired session",
        arguments: [
            (403, [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000042")], 42.0),
            (403, [HTTPHeader("Retry-After", "7")], 7.0),
            (429, [HTTPHeader("Retry-After", "100")], 100.0),
            (429, [HTTPHeader("RateLimit", "limit=10, remaining=0, reset=5")], 5.0),
            (429, [HTTPHeader("RateLimit", #""default";r=0;t=9"#)], 9.0),
        ] as [(Int, [HTTPHeader], Double)]
    )
    func rateLimited(status: Int, headers: [HTTPHeader], wait: Double) async throws {
        let sleeps = SleepLog()  // now = 1,000,000 s
        let transport = MemoryTransport { _, index in
            index == 0 ? .status(status, headers: headers) : .json(onePage)
        }
        let page = try #require(await firstPage(fetcher(transport, sleeps: sleeps)).page)
        #expect(page.attempts == 2)
        #expect(sleeps.all == [wait])
    }

    @Test("A rate limit that resets later than --max-wait ends the walk at once, saying when it resets")
    func rateLimitTooLong() async throws {
        var configuration = FetchConfiguration()
        configuration.maxWait = 60
        let transport = MemoryTransport { _, _ in
            .status(
                403, headers: [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1003600")])
        }
        let error = try #require(await firstPage(fetcher(transport, configuration: configuration)).error)
        #expect(error.kind == .unavailable)
        #expect(
            error.reason
                == "rate limited (HTTP 403) for 3600 s, longer than --max-wait 60 s: the limit resets at Mon, 12 Jan 1970 14:46:40 GMT"
        )
        #expect(transport.requests.count == 1)
    }

    @Test("A 200 page that spends the limit (X-RateLimit-Remaining: 0) holds the next request until the reset")
    func remainingZero() async throws {
        let sleeps = SleepLog()
        let transport = MemoryTransport { _, _ in
            .json(
                onePage,
                headers: [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000030")])
        }
        let fetcher = fetcher(transport, sleeps: sleeps)
        _ = try #require(await firstPage(fetcher).page)
        #expect(sleeps.all == [])
        _ = try #require(await firstPage(fetcher, ids: IDSet()).page)
        #expect(sleeps.all == [30])
    }

    @Test("--rate spaces the starts of requests, across pages")
    func rate() async throws {
        var configuration = FetchConfiguration()
        configuration.rate = 4
        let sleeps = SleepLog()
        let transport = MemoryTransport { _, _ in .json(onePage) }
        let fetcher = fetcher(transport, configuration: configuration, sleeps: sleeps)
        for _ in 0..<3 { _ = try #require(await firstPage(fetcher, ids: IDSet()).page) }
        // The clock stands still in tests: each start waits a quarter second more than the one before.
        #expect(sleeps.all == [0.25, 0.5])
    }

    @Test("Attempts are the requests the server saw: a re-send by the HTTP library counts against --retries")
    func sendsCounted() async throws {
        var configuration = FetchConfiguration()
        configuration.retries = 2
        let transport = ResendingTransport(MemoryTransport { _, _ in .failure(TransportError(.broken, "reset")) })
        let error = try #require(await firstPage(fetcher(transport, configuration: configuration)).error)
        // The first try went out twice; the last attempt the budget allows goes on a fresh connection,
        // which is never re-sent: three requests for --retries 2, and the message says three.
        #expect(transport.sent == 3)
        #expect(transport.fresh == [false, true])
        #expect(error.attempts == 3)
        #expect(error.reason == "the server is unavailable after 3 attempts: reset")
    }

    @Test(
        "Credentials over plain http to a host that is not this machine are refused by the library, before any request",
        arguments: [
            (Secret("t0ken"), [HTTPHeader]()), (nil, [HTTPHeader("authorization", "Basic eDp5")]),
            (nil, [HTTPHeader("Cookie", "session=1")]),
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
            HTTPHeader("Authorization", "Basic eDp5"), HTTPHeader("Cookie", "s=1"), HTTPHeader("X-Trace", "on"),
        ]
        let transport = MemoryTransport { _, index in
            index == 0 ? .status(302, headers: [HTTPHeader("Location", "http://127.0.0.1:9090/notes")]) : .json(onePage)
        }
        _ = try #require(await firstPage(fetcher(transport, configuration: configuration)).page)
        let names = transport.requests.map { $0.headers.map(\.name) }
        #expect(names == [["Authorization", "Cookie", "X-Trace"], ["X-Trace"]])
    }
}
