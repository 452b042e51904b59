import NotesFetch
import NotesFetchTesting
import NotesPage
import Testing

// The same suite: rate limits, spent (a wait, then a retry) or longer than --max-wait, and --rate.

extension FetchPageTests {
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
}
