import NotesFetch
import NotesFetchTesting
import NotesPage
import Testing

// The same suite: the statuses and failures that are retried and those that are not, Retry-After, and
// what counts as an attempt.

extension FetchPageTests {
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

    @Test("A transport that cannot work (no libcurl) ends the walk at its first attempt, never retried, saying why")
    func unusableTransport() async throws {
        let sleeps = SleepLog()
        let reason = "libcurl could not be loaded: libcurl.so.4: cannot open shared object file"
        let transport = MemoryTransport { _, _ in .failure(TransportError(.unusable, reason)) }
        let error = try #require(await firstPage(fetcher(transport, sleeps: sleeps)).error)
        #expect(error.code == .transportUnusable(reason))
        #expect(error.kind == .unavailable)
        #expect(error.attempts == 1 && transport.requests.count == 1 && sleeps.all.isEmpty)
        #expect(error.reason == "no request can be made, not retried: \(reason)")
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
}
