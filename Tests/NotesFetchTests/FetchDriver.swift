// The fetch layer driven by one input of what a server may send, without a network. Two programs compile
// this file and its extensions (FetchDriver+*.swift) as they are: the NotesFetchTests target
// (FetchRegressionTests replays every saved input through them) and the libFuzzer target `make fuzz-fetch`
// (Tools/reliability/fuzz/fuzz-fetch.sh passes their paths to swiftc beside
// Tools/reliability/fuzz/FuzzFetch.swift). So they import only the modules both have, and use NotesFetch's
// public and `package` API only.
//
// An input is lines (LF-separated):
//   1. the endpoint (the user's URL): taken when `URL(string:)` reads it and `PageLocator.urlProblem`
//      accepts it, else https://api.example/notes?limit=100
//   2. the page's URL (where the page came from, after redirects: the base of its relative references)
//   3. the body's next value as JSON text ("…", a number, null, true); absent when the line is empty; a
//      line that does not decode as a JSON value is sent as a string's bytes instead
//   4. the body's `count`, as JSON text (absent when empty); for GraphQL, the connection's `totalCount`, or
//      the response's `errors` when it is an array or an object
//   5. the body's `has_more` (GraphQL's `hasNextPage`), as JSON text (absent when empty)
//   6. decimal numbers, space-separated: the status (200), the notes on the page (2; 0 to 8), the
//      redirects so far (0), the clock in seconds since 1970 (1,700,000,000)
//   7… the response's header fields, `Name: value`
// A line that is missing takes the default. FNV-1a of the input picks the rest (where the body's next
// value sits, where the body is cut in two chunks).
//
// What it checks: nothing traps (the fuzz target runs under AddressSanitizer, and Swift's overflow and
// bounds checks trap); every URL the walk could request (a page's URL in every scheme, a next page, a page
// addressed ahead, an early request, a redirect's target, a parameter set on a URL, a `Link` target)
// that `PageLocator.urlProblem` accepts is a URI by RFC 3986 (``StrictURI``); waits and delays are
// finite, never negative and within their caps; HTTP dates read back as the second they were written for.
//
// This file has the input, the findings, what every input is run with and `run`; the checks are in
// FetchDriver+Headers.swift (the head and its fields), FetchDriver+Attempts.swift (the attempt state
// machine), FetchDriver+Page.swift (the page's summary and the bodies it is decoded from) and
// FetchDriver+Schemes.swift (every scheme on the page).

import NotesFetch
import NotesJSON
import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs one input through the fetch layer (the format is at the top of this file) and returns what it
/// found wrong, empty when nothing.
enum FetchDriver {
    /// One input's fields.
    struct Input {
        var endpoint: URL
        var pageURL: String
        /// The lines that become the body's members, as written (`nil` when absent).
        var next: String?
        var count: String?
        var hasMore: String?
        var status = 200
        var noteCount = 2
        var redirects = 0
        var now = 1_700_000_000.0
        var headers: [HTTPHeader] = []
        /// FNV-1a of the whole input.
        var hash: UInt64

        init(_ bytes: some Collection<UInt8>) {
            hash = fnv1a(bytes)
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            func line(_ index: Int) -> String? {
                lines.indices.contains(index) && !lines[index].isEmpty ? lines[index] : nil
            }
            let fallback = URL(string: "https://api.example/notes?limit=100")!
            endpoint =
                line(0).flatMap { text in
                    URL(string: text).flatMap { PageLocator.urlProblem($0.absoluteString) == nil ? $0 : nil }
                } ?? fallback
            pageURL = line(1) ?? endpoint.absoluteString
            next = line(2)
            count = line(3)
            hasMore = line(4)
            let numbers = (line(5) ?? "").split(separator: " ").map { Int($0) }
            func number(_ index: Int) -> Int? { numbers.indices.contains(index) ? numbers[index] : nil }
            status = number(0) ?? 200
            noteCount = number(1).map { Int($0.magnitude % 9) } ?? 2
            redirects = number(2).map { Int($0.magnitude % 8) } ?? 0
            // The client's clock, not the server's: somewhere between 1970 and 2286.
            now = number(3).map { Double($0.magnitude % 10_000_000_000) } ?? 1_700_000_000
            for text in lines.dropFirst(6) {
                guard let colon = text.firstIndex(of: ":") else { continue }
                let value = text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                headers.append(HTTPHeader(String(text[..<colon]), String(value)))
            }
        }
    }

    /// Collects what went wrong, from closures too.
    final class Findings {
        var all: [String] = []
        /// The URLs checked so far: the schemes build many alike, and each is checked once.
        private var checked: Set<String> = []

        func add(_ what: String) { all.append(what) }

        /// `url` is one the walk could request: if `PageLocator.urlProblem` lets it through, it must be a
        /// URI by RFC 3986.
        func check(url: String, _ context: @autoclosure () -> String) {
            guard checked.insert(url).inserted, PageLocator.urlProblem(url) == nil, let problem = StrictURI.problem(url)
            else { return }
            add(
                "\(context()): \(String(reflecting: url)) passed PageLocator.urlProblem but is not RFC 3986: \(problem)"
            )
        }
    }

    /// Every pagination scheme, with the parameter names the common APIs use (JSON:API's bracketed ones
    /// included). Made anew for each input: LeakSanitizer takes the `JSONTree` a body cursor holds for
    /// leaked when it outlives an input (Swift keeps an indirect enum's case in its pointer's spare bits,
    /// which a scan for pointers does not recognise).
    static func schemes() -> [any Pagination] {
        [
            AutoPagination(),
            AutoPagination(cursorParameter: "page[cursor]"),
            NextValuePagination(kind: .cursor),
            NextValuePagination(cursorParameter: "after", kind: .url),
            NextValuePagination(),
            LinkPagination(),
            HeaderCursorPagination(header: "X-Next-Cursor"),
            OffsetPagination(limit: 100, totalPath: nil),
            OffsetPagination(
                offsetParameter: "page[offset]", limitParameter: "page[limit]", limit: 10,
                totalPath: FieldPath("count"),
                serverPageSize: 3),
            PageNumberPagination(pageSize: 50, totalPath: nil),
            PageNumberPagination(
                pageParameter: "page[number]", firstPage: 0, pageSizeParameter: "page[size]", pageSize: nil,
                totalPath: FieldPath("count")),
            KeysetPagination(pageSize: 10),
            try! BodyCursorPagination(
                body: #"{"filter":{"done":false},"page_size":100}"#, cursorPath: FieldPath("start_cursor"),
                hasMorePath: FieldPath("has_more")),
        ]
    }

    /// A GraphQL connection (`data.viewer.notes`, its records as `nodes`, `totalCount` asked for), whose pages
    /// have a shape of their own (``GraphQLPagination/adapt(_:)``); `nil` would mean the query no longer
    /// reads, which FetchRegressionTests checks.
    static let graphQL: GraphQLPagination? = {
        let text =
            "query($after: String) { viewer { notes(first: 100, after: $after) { totalCount nodes { id title } pageInfo { hasNextPage endCursor } } } }"
        guard let query = try? GraphQLQuery(text, connection: FieldPath("data.viewer.notes")) else { return nil }
        return try? GraphQLPagination(query: query)
    }()

    /// The page configuration of a GraphQL walk.
    static let graphQLPage: PageConfiguration = {
        var page = PageConfiguration()
        graphQL?.adapt(&page)
        for path in graphQL?.fieldPaths ?? [] where page.canRead(path) { page.fieldPaths.append(path) }
        return page
    }()

    /// The page configuration of a walk, with every scheme's field paths (as `NotesFetcher` adds its
    /// scheme's): one decode serves every scheme.
    static let page: PageConfiguration = {
        var page = PageConfiguration()
        for scheme in schemes() {
            for path in scheme.fieldPaths where page.canRead(path) && !page.fieldPaths.contains(path) {
                page.fieldPaths.append(path)
            }
        }
        return page
    }()

    /// One worker for every input, as a walk keeps one per lane.
    static let worker = JSONPipelineWorker(name: "fuzz-fetch")

    /// Indices of pages addressed ahead: the first few, and the largest (no index may trap).
    static let indices = [0, 1, 2, Int.max]

    /// The policies of a walk: the defaults, and one that fails soon (no retry, a short `--max-wait`).
    static let policies = [
        AttemptStateMachine.Policy(retries: 4, maxRedirects: 5, maxWait: 3_600, backoff: Backoff()),
        AttemptStateMachine.Policy(retries: 0, maxRedirects: 1, maxWait: 1, backoff: Backoff(maxRetryAfter: 5)),
    ]

    /// FNV-1a (64-bit): the seed of the driver's choices.
    static func fnv1a(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func run(_ bytes: some Collection<UInt8>) -> [String] {
        let input = Input(bytes)
        let findings = Findings()
        checkHead(input, findings)
        checkHeaders(input, findings)
        checkAttempts(input, findings)
        if let summary = summary(input, findings, page: page, body: pageBody) {
            for scheme in schemes() { checkScheme(scheme, input, summary, page, findings) }
        }
        if let graphQL, let summary = summary(input, findings, page: graphQLPage, body: graphQLBody) {
            checkScheme(graphQL, input, summary, graphQLPage, findings)
        }
        return findings.all
    }
}
