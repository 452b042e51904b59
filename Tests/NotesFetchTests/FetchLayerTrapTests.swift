import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

/// What a server's numbers and strings can no longer do to the fetch layer: trap on an overflow, or hand
/// libcurl a URL it cannot parse (an attempt that fails the same way every time, retried as if the network
/// were down). One test per fix; the inputs that found them are in Fixtures/regressions-fetch/, replayed by
/// FetchRegressionTests.
@Suite("No number or string a server sends traps the fetch layer")
struct FetchLayerTrapTests {
    static let endpoint = URL(string: "https://api.example/notes")!
    static let twoNotes = #"{"id":"a","title":"t"},{"id":"b","title":"t"}"#

    /// What a walk knows of a page that came from `url` with these header fields and body, decoded with
    /// every scheme's field paths (as the fuzz target's driver decodes it).
    func facts(
        _ location: PageLocation, url: String, headers: [HTTPHeader] = [],
        body: String = #"{"notes":[\#(Self.twoNotes)]}"#
    ) throws -> PageFacts {
        var decoder = PageDecoder(configuration: FetchDriver.page, ids: IDSet(capacity: 1))
        var notes: [Note] = []
        try Array(body.utf8).withUnsafeBytes { try decoder.feed($0, into: &notes) }
        return PageFacts(
            location: location, url: url, head: HTTPResponseHead(status: 200, headers: headers),
            summary: try decoder.finish(into: &notes), fieldPaths: FetchDriver.page.fieldPaths)
    }

    // MARK: - URLs

    /// Found by the fuzz target (Fixtures/regressions-fetch/fuzz-crash-e8137fd2eb88.txt, `http://[`): the
    /// check looked at the scheme and the host only, and a reference `URL` could not resolve was followed
    /// as the server wrote it.
    @Test(
        "A next URL or a redirect's target that is not a URI by RFC 3986 is refused, saying where, not quoting it",
        arguments: [
            "http://[", "http://a b/", "http://[zz]/", "http://[v1.x]/", "http://[::1", "http://[::1]x/",
            "http://[1::2::3]/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[fe80::1%25eth0]/", "http://[::256.1.1.1]/",
            "http://h/%zz", "http://h/a%4", "http://a@b@c/", "http://h:65536/", "http://h:8x/", "http://h/caf\u{e9}",
            "http://h/x?y=|", "http://h/x#a#b", "http://h/x\\y", "http://h/\"q\"", "http://h/\n",
            "http://h/?page[offset]=1",
        ])
    func invalidURLsRefused(_ url: String) {
        let problem = PageLocator.urlProblem(url)
        #expect(problem?.hasPrefix("the next URL is not a valid URL (RFC 3986): ") == true, "\(problem ?? "nil")")
        #expect(problem.map { !$0.contains(url) } ?? false, "the message quotes the URL: \(problem ?? "nil")")
    }

    @Test(
        "The URLs the walk builds and the usual servers send are accepted",
        arguments: [
            "http://127.0.0.1:8080/notes?cursor=a%2Bb%2F%3D", "https://api.example/notes?page%5Boffset%5D=100#top",
            "https://user:pw@api.example/v1/notes?a=b&c", "http://[::1]:8080/notes", "http://[::ffff:127.0.0.1]/x",
            "http://[2001:db8::7]/", "http://[1:2:3:4:5:6:7::]/", "HTTPS://API.EXAMPLE/n?q=a:b@c/d?e", "http://h:/n",
            "http://h/n?", "http://h/n;v=1/!$&'()*+,=~", "http://h:65535/",
        ])
    func validURLsAccepted(_ url: String) {
        #expect(PageLocator.urlProblem(url) == nil)
    }

    @Test("A next value that is not a URL ends the walk as a contract error on its page, with no request for it")
    func unresolvableNextValue() async {
        let transport = MemoryTransport { request, _ in
            request.url == Self.endpoint.absoluteString
                ? .json(#"{"notes":[\#(Self.twoNotes)],"next_cursor":"http://a b/?page=2"}"#) : .status(404)
        }
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: Self.endpoint), transport: transport, environment: SleepLog().environment())
        do {
            _ = try await fetcher.walk(from: .start, ids: IDSet(), visited: IDSet()) { _ in }
            Issue.record("the walk went on past a next value that is not a URL")
        } catch {
            #expect(error.kind == .contract, "\(error)")
            #expect(error.page == 1, "\(error)")
            #expect(error.reason.contains("not a valid URL (RFC 3986)"), "\(error)")
        }
        #expect(transport.requests.map(\.url) == [Self.endpoint.absoluteString])
    }

    @Test("A redirect to a URL libcurl cannot parse fails the page at once, not after every retry")
    func unparsableRedirect() {
        let policy = AttemptStateMachine.Policy(retries: 4, maxRedirects: 5, maxWait: 3_600, backoff: Backoff())
        for location in ["http://[zz]/notes", "https://api.example:99999/notes"] {
            let verdict = AttemptStateMachine.verdict(
                on: HTTPResponseHead(status: 302, headers: [HTTPHeader("Location", location)]),
                url: Self.endpoint.absoluteString, redirects: 0, policy: policy, now: 1_700_000_000)
            guard case .end(.fatal(let code)) = verdict, case .pagination(let message) = code.base else {
                Issue.record("\(location): \(verdict)")
                continue
            }
            #expect(message.hasPrefix("the redirect's target is not a valid URL (RFC 3986)"), "\(message)")
        }
    }

    // MARK: - Pages addressed ahead

    /// Found by the fuzz target (Fixtures/regressions-fetch/fuzz-crash-888003200b81.txt): the page `index`
    /// pages on was `first + index * step`, unchecked, and `first` is the server's.
    @Test("Pages addressed ahead past the largest integer are none, not a trap")
    func addressedAheadOverflow() throws {
        let base = "https://api.example/notes?limit=2&offset="
        let page = try facts(
            .url(base + "9223372036854775803"), url: base + "9223372036854775803",
            body: #"{"notes":[\#(Self.twoNotes)],"next_cursor":"\#(base)9223372036854775805"}"#)
        let addressed = try #require(AutoPagination().addressed(after: page, endpoint: Self.endpoint))
        let next = PageLocation.url(base + "9223372036854775805")
        #expect(addressed.location(0, after: next) == next)
        #expect(addressed.location(1, after: next) == .url(base + "9223372036854775807"))
        #expect(addressed.location(2, after: next) == nil)
        #expect(addressed.location(Int.max, after: .url(base + "4")) == nil)
    }

    @Test("A page URL at the largest offset or page number shows no walk to address ahead, and does not trap")
    func addressingOverflow() throws {
        for (here, there) in [
            ("https://api.example/notes?limit=2&offset=9223372036854775807", "/notes?limit=2&offset=5"),
            ("https://api.example/notes?page=9223372036854775807", "/notes?page=3"),
        ] {
            let page = try facts(
                .url(here), url: here, body: #"{"notes":[\#(Self.twoNotes)],"next_cursor":"\#(there)"}"#)
            #expect(AutoPagination().addressed(after: page, endpoint: Self.endpoint) == nil, "\(here)")
            #expect(
                AutoPagination().recognition(after: page, endpoint: Self.endpoint)
                    == "Pagination: auto follows the body's 'next_cursor', a URL")
        }
    }

    /// Found by the fuzz target (Fixtures/regressions-fetch/fuzz-crash-bcfeb6d443a4.txt, a page URL of
    /// `?page=-2`): `index <= Int.max - first` overflowed for a negative first page.
    @Test("Page numbers ahead of any start, negative included, never overflow")
    func pageNumbersAhead() {
        let pages = PageNumberPagination(pageSize: 50, totalPath: nil)
        #expect(pages.location(1, after: .page(-2)) == .page(-1))
        #expect(pages.location(Int.max, after: .page(-2)) == .page(Int.max - 2))
        #expect(pages.location(Int.max, after: .page(1)) == nil)
        #expect(pages.location(1, after: .page(Int.max)) == nil)
    }

    @Test("Offsets ahead of any start, negative included, never overflow")
    func offsetsAhead() {
        let offsets = OffsetPagination(limit: 10, totalPath: nil)
        #expect(offsets.location(1, after: .offset(-5)) == .offset(5))
        #expect(offsets.location(Int.max, after: .offset(-5)) == nil)
        #expect(offsets.location(1, after: .offset(Int.max)) == nil)
        #expect(offsets.location(1, after: .offset(Int.min)) == .offset(Int.min + 10))
    }

    // MARK: - Where a walk ends

    /// Fixtures/regressions-fetch/last-link-smallest-page.txt and total-largest-integer.txt.
    @Test("A last page or a total at the ends of the integers gives the last index, or none, without a trap")
    func pageNumberLastIndex() throws {
        let pages = PageNumberPagination(pageSize: 50, totalPath: nil)
        let url = "https://api.example/notes?per_page=50&page=1"
        let before = try facts(
            .page(1), url: url,
            headers: [HTTPHeader("Link", "<https://api.example/notes?page=-9223372036854775808>; rel=\"last\"")])
        #expect(pages.lastIndex(after: before, start: .page(1)) == 0)
        let far = try facts(
            .page(-2), url: url,
            headers: [HTTPHeader("Link", "<https://api.example/notes?page=9223372036854775807>; rel=\"last\"")])
        #expect(pages.lastIndex(after: far, start: .page(-2)) == nil)
        let total = try facts(.page(1), url: url, headers: [HTTPHeader("X-Total-Count", "9223372036854775807")])
        #expect(pages.lastIndex(after: total, start: .page(1)) == Int.max / 50)
        #expect(pages.lastIndex(after: total, start: .page(Int.min)) == nil)
    }

    /// Fixtures/regressions-fetch/endpoint-smallest-integers.txt: the endpoint's own offset or page number
    /// is where a walk starts, and the user may write any integer there.
    @Test("A walk starting at the smallest offset or page number reads its first page without a trap")
    func smallestStart() throws {
        let headers = [HTTPHeader("X-Total-Count", "5")]
        let url = "https://api.example/notes?limit=10"
        let offsets = OffsetPagination(limit: 10, totalPath: nil)
        let first = try facts(.offset(Int.min), url: url, headers: headers)
        #expect(offsets.lastIndex(after: first, start: .offset(Int.min)) == nil)
        // The first page showed two notes of the ten asked: the server's page size.
        #expect(try offsets.next(after: first, endpoint: Self.endpoint) == .offset(Int.min + 2))
        let pages = PageNumberPagination(pageSize: 50, totalPath: nil)
        let page = try facts(.page(Int.min), url: url, headers: headers)
        #expect(try pages.next(after: page, endpoint: Self.endpoint) == .page(Int.min + 1))
        // An empty page whose notes so far, less its own 50, are below the smallest integer: before the total.
        let empty = try facts(.page(Int.min / 50), url: url, headers: headers, body: #"{"notes":[]}"#)
        #expect(throws: PaginationError.self) { try pages.next(after: empty, endpoint: Self.endpoint) }
    }

    // MARK: - Dates and waits

    /// Fixtures/regressions-fetch/retry-after-year-past-9999.txt: the year went into the day count
    /// unchecked.
    @Test("A Retry-After date whose year is not four digits is no date, not an overflow")
    func retryAfterYear() {
        let now = 1_700_000_000.0
        for text in [
            "Sun, 06 Nov 9223372036854775807 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT",
            "Sun, 06 Nov -001 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT",
        ] {
            #expect(RetryAfter.parseIMFFixdate(text) == nil, "\(text)")
            #expect(RetryAfter.seconds(text, now: now) == nil, "\(text)")
            let head = HTTPResponseHead(status: 429, headers: [HTTPHeader("Retry-After", text)])
            #expect(RateLimit.wait(head, now: now) == nil, "\(text)")
        }
        #expect(RetryAfter.parseIMFFixdate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(RetryAfter.parseIMFFixdate("Fri, 31 Dec 9999 23:59:59 GMT") == 253_402_300_799)
    }

    /// Found by the fuzz target (Fixtures/regressions-fetch/fuzz-crash-d28983389bb1.txt; the trap itself
    /// in retry-after-largest-integer.txt): `Int(seconds.rounded(.up))` trapped past `Int.max`, and a
    /// year past 9999 was written with five digits.
    @Test("Any number of seconds is written as an IMF-fixdate between 1970 and 9999")
    func httpDates() throws {
        let last = "Fri, 31 Dec 9999 23:59:59 GMT"
        let first = "Thu, 01 Jan 1970 00:00:00 GMT"
        let largest = try #require(RetryAfter.seconds("9223372036854775807", now: 0))
        for seconds in [largest, 1_700_000_000 + largest, .infinity, 1e300, 258_586_256_580, 253_402_300_799] {
            #expect(HTTPDate.text(seconds) == last, "\(seconds)")
        }
        for seconds in [-.infinity, .nan, -1, -1e300, 0] { #expect(HTTPDate.text(seconds) == first, "\(seconds)") }
        #expect(HTTPDate.text(784_111_776.5) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("A rate-limit wait that is infinite fails with a message, not a trap converting it to seconds")
    func infiniteWait() {
        var machine = AttemptStateMachine(
            policy: AttemptStateMachine.Policy(retries: 4, maxRedirects: 5, maxWait: 60, backoff: Backoff()))
        var random = SeededRandom(seed: 1)
        let action = machine.ended(
            .rateLimited(reason: "HTTP 429", wait: .infinity), sends: 1, now: 1_700_000_000, random: &random)
        guard case .fail(let code) = action, case .rateLimited(let reason) = code.base else {
            Issue.record("\(action)")
            return
        }
        #expect(
            reason
                == "rate limited (HTTP 429) for 1000000000 s, longer than --max-wait 60 s: the limit resets at Fri, 31 Dec 9999 23:59:59 GMT"
        )
    }
}
