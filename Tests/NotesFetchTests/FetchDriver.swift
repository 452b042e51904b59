// The fetch layer driven by one input of what a server may send, without a network. Two programs compile
// this file as it is: the NotesFetchTests target (FetchRegressionTests replays every saved input through
// it) and the libFuzzer target `make fuzz-fetch` (Tools/reliability/fuzz/fuzz-fetch.sh passes this path to
// swiftc beside Tools/reliability/fuzz/FuzzFetch.swift). So it imports only the modules both have, and uses
// NotesFetch's public and `package` API only.
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

import NotesFetch
import NotesJSON
import NotesPage

#if canImport(TestSupport)
    import TestSupport
#endif

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

    // MARK: - The head and its fields

    /// `PageReception.receive(head:)`: the status, `Content-Type` and `Content-Length` checks before a body.
    static func checkHead(_ input: Input, _ findings: Findings) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let reception = PageReception(configuration: page, ids: IDSet(capacity: 1), worker: worker)
        let accepted = reception.receive(head: head)
        if accepted && !(200...299).contains(input.status) {
            findings.add("PageReception accepted the head of HTTP \(input.status)")
        }
        if case .contentType(let type)? = reception.problem?.base, type.count > 60 {
            findings.add("a content-type problem quotes \(type.count) characters")
        }
        let limit = page.limits.maxDocumentBytes
        if accepted, let length = head.value(of: "Content-Length").flatMap({ Int($0.trimming(" \t")) }),
            length > limit
        {
            findings.add("Content-Length \(length) over the limit of \(limit) was accepted")
        }
    }

    /// Every field the walk reads, read from every field's value: `Retry-After`, the dates, `Link`, the
    /// content type, an origin, a URL.
    static func checkHeaders(_ input: Input, _ findings: Findings) {
        let now = input.now
        var values = input.headers.map(\.value)
        values += [input.pageURL, input.next, input.count, input.hasMore].compactMap { $0 }
        for value in values {
            if let seconds = RetryAfter.seconds(value, now: now) {
                if !seconds.isFinite || seconds < 0 { findings.add("Retry-After \(value) gave \(seconds) s") }
                checkDate(seconds, findings)
                checkDate(now + seconds, findings)
            }
            if let date = RetryAfter.parseIMFFixdate(value) { checkDate(date, findings) }
            for relation in ["next", "last", "prev"] {
                if let target = PageLocator.link(relation, in: value) {
                    findings.check(url: target, "Link rel=\(relation) target")
                    if let resolved = PageLocator.resolve(target, against: input.pageURL) {
                        findings.check(url: resolved, "Link rel=\(relation) target resolved")
                    }
                }
            }
            if let target = PageLocator.nextLink(in: value) {
                findings.check(url: PageLocator.resolve(target, against: input.pageURL) ?? target, "Link's next")
            }
            if PageReception.isJSON(value) {
                let type = value.split(separator: ";").first.map { String($0).trimming(" \t").lowercased() } ?? ""
                let named = [
                    "application/json", "application/x-amz-json-1.0", "application/x-amz-json-1.1",
                    "application/x-json",
                ]
                if !(named.contains(type) || (type.hasPrefix("application/") && type.hasSuffix("+json"))) {
                    findings.add("\(String(reflecting: value)) taken for JSON")
                }
            }
            _ = Origin(value)?.isLoopback
            findings.check(url: value, "a field's value as a URL")
            if let resolved = PageLocator.resolve(value, against: input.pageURL) {
                findings.check(url: resolved, "a field's value resolved against the page's URL")
            }
        }
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        if let wait = RateLimit.wait(head, now: now) {
            if !wait.isFinite || wait < 0 || wait > RateLimit.longest { findings.add("RateLimit.wait gave \(wait) s") }
            checkDate(now + wait, findings)
        }
        for base in [input.endpoint.absoluteString, input.pageURL] {
            _ = Origin(base)?.isLoopback
            for name in ["page[offset]", input.count ?? "cursor"] {
                let set = PageLocator.setting([(name: name, value: input.next ?? "")], on: base)
                findings.check(url: set, "PageLocator.setting \(name) on \(String(reflecting: base))")
            }
        }
    }

    /// `HTTPDate.text` of `seconds` looks like an IMF-fixdate, and one of the years 1970 to 9999 reads
    /// back as the second it was written for.
    static func checkDate(_ seconds: Double, _ findings: Findings) {
        let text = HTTPDate.text(seconds)
        guard text.hasSuffix(" GMT"), text.utf8.count == 29 else {
            return findings.add("HTTPDate.text(\(seconds)) is \(String(reflecting: text))")
        }
        guard seconds >= 0, seconds <= 253_402_300_799 else { return }
        if RetryAfter.parseIMFFixdate(text) != seconds.rounded(.up) {
            findings.add(
                "HTTPDate.text(\(seconds)) is \(text), which reads back as \(String(describing: RetryAfter.parseIMFFixdate(text)))"
            )
        }
    }

    // MARK: - Attempts

    /// `AttemptStateMachine.verdict` on the head, then `ended` and `delivered` on what it says.
    static func checkAttempts(_ input: Input, _ findings: Findings) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        var random = SeededRandom(seed: input.hash)
        for policy in policies {
            let longest = max(policy.backoff.maximum, policy.backoff.maxRetryAfter)
            for redirects in [0, input.redirects] {
                let verdict = AttemptStateMachine.verdict(
                    on: head, url: input.pageURL, redirects: redirects, policy: policy, now: input.now)
                switch verdict {
                case .read:
                    if !(200...299).contains(input.status) { findings.add("HTTP \(input.status) read as a page") }
                case .follow(let target):
                    if let problem = PageLocator.urlProblem(target, what: "the redirect's target") {
                        findings.add("a redirect followed to a target with a problem: \(problem)")
                    }
                    if redirects >= policy.maxRedirects { findings.add("redirect \(redirects + 1) followed") }
                    findings.check(url: target, "the redirect's target")
                case .end(let failure):
                    var machine = AttemptStateMachine(policy: policy)
                    for sends in [1, 0, 2, 1, 1, 1, 1] {
                        let action = machine.ended(failure, sends: sends, now: input.now, random: &random)
                        switch action {
                        case .retry(let delay, _):
                            if !delay.isFinite || delay < 0 || delay > longest {
                                findings.add("a retry after \(delay) s (the cap is \(longest) s)")
                            }
                        case .hold(let wait, _):
                            if !wait.isFinite || wait < 0 || wait > policy.maxWait {
                                findings.add("a hold of \(wait) s (--max-wait \(policy.maxWait))")
                            }
                        case .fail(let code):
                            if case .rateLimited(let reason) = code.base, reason.isEmpty {
                                findings.add("a rate limit failed without a reason")
                            }
                        }
                        if case .fail = action { break }
                    }
                }
            }
            var machine = AttemptStateMachine(policy: policy)
            if let wait = machine.delivered(sends: 1, head: head, now: input.now),
                !wait.isFinite || wait <= 0 || wait > policy.maxWait
            {
                findings.add("a delivered page holds the next request \(wait) s")
            }
        }
    }

    // MARK: - The page and every scheme

    /// The page's summary, as a walk's `PageReception` decodes it with `page` (the next value guessed from
    /// the last chunk's bytes along the way), from the body `makeBody` writes of the input's members as they
    /// are, then with the next value as a string, then with nothing else; `nil` when none of them decodes,
    /// which is itself a finding (the last is always valid JSON).
    static func summary(
        _ input: Input, _ findings: Findings, page: PageConfiguration,
        body makeBody: (
            _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
        )
            -> String
    ) -> PageDecoder.Summary? {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let jsonHead = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
        let asString = input.next.map(jsonString)
        let bodies: [(next: String?, count: String?, hasMore: String?, lastID: String?)] = [
            (input.next, input.count, input.hasMore, asString),
            (asString, input.count, input.hasMore, asString),
            (asString, nil, nil, nil),
        ]
        let peek = NextValuePagination()
        for (next, count, hasMore, lastID) in bodies {
            let body = Array(makeBody(next, count, hasMore, lastID, input.noteCount, input.hash & 1 == 1).utf8)
            let reception = PageReception(configuration: page, ids: IDSet(capacity: 1), worker: worker)
            reception.makeNextRequest = { _, value in
                // As the walk's sequential pages do: the next request from the value read off the bytes.
                guard
                    let location = peek.earlyNext(
                        head: head, nextValue: .value(value), read: { _ in nil }, url: input.pageURL,
                        endpoint: input.endpoint)
                else { return nil }
                let url = peek.url(for: location, endpoint: input.endpoint)
                findings.check(url: url, "the next request from the bytes (\(location))")
                return PageLocator.urlProblem(url) == nil ? HTTPRequest(url: url) : nil
            }
            guard reception.receive(head: jsonHead) else { continue }
            let split = Int((input.hash >> 8) % UInt64(body.count + 1))
            let decoded = body.withUnsafeBytes { bytes -> Bool in
                for range in [0..<split, split..<bytes.count] {
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[range])
                    if reception.awaitsNextRequest { _ = reception.nextRequest(peekingAt: chunk) }
                    guard reception.receive(body: chunk) else { return false }
                }
                return true
            }
            guard decoded, let summary = try? reception.finish() else { continue }
            return summary
        }
        findings.add("none of the input's bodies decoded, not even the one with only strings")
        return nil
    }

    /// A page of `notes` notes with the given members written as they are.
    static func pageBody(
        _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
    ) -> String {
        let items = notesJSON(notes, lastID: lastID)
        var members: [String] = []
        if let count { members.append("\"count\":\(count)") }
        if let hasMore { members.append("\"has_more\":\(hasMore)") }
        let notesMember = "\"notes\":[\(items)]"
        let nextMember = next.map { "\"next_cursor\":\($0)" }
        members =
            nextFirst
            ? [nextMember].compactMap { $0 } + [notesMember] + members
            : [notesMember] + members + [nextMember].compactMap { $0 }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `notes` notes, the last with the id `lastID` (JSON text) when given.
    static func notesJSON(_ notes: Int, lastID: String?) -> String {
        (0..<notes).map { index in
            let id = index == notes - 1 ? lastID ?? "\"#\(index)\"" : "\"#\(index)\""
            return "{\"id\":\(id),\"title\":\"t\"}"
        }.joined(separator: ",")
    }

    /// A GraphQL response: the connection's `nodes`, its `pageInfo` (before or after them) and `totalCount`;
    /// `count` as the response's `errors` instead when it is an array or an object.
    static func graphQLBody(
        _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
    ) -> String {
        var info: [String] = []
        if let hasMore { info.append("\"hasNextPage\":\(hasMore)") }
        if let next { info.append("\"endCursor\":\(next)") }
        let pageInfo = "\"pageInfo\":{\(info.joined(separator: ","))}"
        let nodes = "\"nodes\":[\(notesJSON(notes, lastID: lastID))]"
        let errors = count.flatMap { $0.hasPrefix("[") || $0.hasPrefix("{") ? $0 : nil }
        var connection = nextFirst ? [pageInfo, nodes] : [nodes, pageInfo]
        if let count, errors == nil { connection.append("\"totalCount\":\(count)") }
        let data = "\"data\":{\"viewer\":{\"notes\":{\(connection.joined(separator: ","))}}}"
        return "{" + data + (errors.map { ",\"errors\":\($0)" } ?? "") + "}"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{0}"..<" ":
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// One scheme on the page: its URLs, its next page, what it learns and addresses ahead.
    static func checkScheme(
        _ scheme: any Pagination, _ input: Input, _ summary: PageDecoder.Summary, _ page: PageConfiguration,
        _ findings: Findings
    ) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let endpoint = input.endpoint
        let name = scheme.description
        var locations = [scheme.start(endpoint: endpoint), .url(input.pageURL)]
        if let here = URL(string: input.pageURL) { locations.append(scheme.start(endpoint: here)) }
        if let text = input.next, let cursor = scheme.location(cursor: text) { locations.append(cursor) }
        var seen: Set<PageLocation> = []
        for location in locations where seen.insert(location).inserted {
            let facts = PageFacts(
                location: location, url: input.pageURL, head: head, summary: summary, fieldPaths: page.fieldPaths)
            walk(scheme, from: location, facts: facts, input, findings, name)
            if let learned = scheme.learned(from: facts) {
                walk(learned, from: location, facts: facts, input, findings, "\(name), learned")
            }
            _ = scheme.recognition(after: facts, endpoint: endpoint)
            _ = scheme.body(for: location)
            _ = scheme.identity(of: location, endpoint: endpoint)
            if case .rateLimited(_, let wait)? = scheme.refusal(of: facts, now: input.now),
                !wait.isFinite || wait < 0 || wait > RateLimit.longest
            {
                findings.add("\(name): a refusal that waits \(wait) s")
            }
            for nextValue in [NextValue(read: summary.nextCursor), .unread] {
                if let early = scheme.earlyNext(
                    head: head, nextValue: nextValue, read: { _ in nil }, url: input.pageURL, endpoint: endpoint)
                {
                    findings.check(url: scheme.url(for: early, endpoint: endpoint), "\(name): early next \(early)")
                }
                if let early = scheme.earlyNext(
                    head: head, nextValue: nextValue, read: { facts.value(at: $0) }, url: input.pageURL,
                    endpoint: endpoint)
                {
                    findings.check(url: scheme.url(for: early, endpoint: endpoint), "\(name): early next \(early)")
                }
            }
        }
    }

    /// A scheme's URL for `location`, its next page after `facts`, pages addressed ahead of it, and the
    /// scheme for pages in parallel when the next URL shows they can be.
    static func walk(
        _ scheme: any Pagination, from location: PageLocation, facts: PageFacts, _ input: Input,
        _ findings: Findings, _ name: String
    ) {
        let locator = PageLocator(endpoint: input.endpoint, pagination: scheme)
        findings.check(url: locator.url(for: location), "\(name): the URL of \(location)")
        _ = scheme.total(of: facts)
        if let last = scheme.lastIndex(after: facts, start: location), last < 0 {
            findings.add("\(name): last index \(last) after \(location)")
        }
        for index in indices {
            if let ahead = scheme.location(index, after: location) {
                findings.check(url: locator.url(for: ahead), "\(name): page \(index) after \(location)")
            }
        }
        guard let next = try? locator.next(after: facts) else { return }
        findings.check(url: locator.url(for: next), "\(name): the page after \(location)")
        guard let addressed = scheme.addressed(after: facts, endpoint: input.endpoint) else { return }
        // The walk in parallel starts at the next page and asks for pages ahead of it, each of which then
        // names its own next page.
        let parallel = PageLocator(endpoint: input.endpoint, pagination: addressed)
        if let following = try? parallel.next(after: facts) {
            findings.check(url: parallel.url(for: following), "\(name), addressed: the page after \(location)")
        }
        for index in indices {
            guard let ahead = addressed.location(index, after: next) else { continue }
            let url = parallel.url(for: ahead)
            findings.check(url: url, "\(name), addressed: page \(index) after \(next)")
            let there = PageFacts(
                location: ahead, url: url, head: facts.head, summary: facts.summary, fieldPaths: facts.fieldPaths)
            if let following = try? parallel.next(after: there) {
                findings.check(url: parallel.url(for: following), "\(name), addressed: the page after \(ahead)")
            }
        }
    }
}
