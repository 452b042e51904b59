import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// 250 records, 100 a page, served in memory the way one real server says where its next page is: each
/// test is a way a page says "there is more" that an earlier walk did not read, and exited 0 short.
/// Records are `{"id": N, "name": "…"}`, with no title, as most APIs' are.
final class SignalAPI: Sendable {
    static let endpoint = "http://127.0.0.1:9/items"
    static let count = 250
    static let size = 100

    /// The requests made, in order.
    let requests = Mutex<[HTTPRequest]>([])
    /// What answers a request: its query parameters, its body; the body and headers of the answer.
    let answer: @Sendable ([String: String], HTTPRequest) -> (body: String, headers: [HTTPHeader])

    init(answer: @escaping @Sendable ([String: String], HTTPRequest) -> (body: String, headers: [HTTPHeader])) {
        self.answer = answer
    }

    /// The records from `offset`, at most `size` of them, as a JSON array.
    static func records(from offset: Int, id: String = "id") -> String {
        let ids = offset < count ? Array((offset + 1)...min(count, offset + size)) : []
        return "[" + ids.map { #"{"\#(id)":\#($0),"name":"n\#($0)"}"# }.joined(separator: ",") + "]"
    }

    /// Page `page` (1-based) of `pages` (3).
    static let pages = (count + size - 1) / size

    var transport: MemoryTransport {
        MemoryTransport { [self] request, _ in
            requests.withLock { $0.append(request) }
            let query = Dictionary(
                (URLComponents(string: request.url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                uniquingKeysWith: { first, _ in first })
            let (body, headers) = answer(query, request)
            return .json(body, headers: headers)
        }
    }

    var urls: [String] { requests.withLock { $0.map(\.url) } }

    /// The ids of an `--format ids` output.
    static func ids(_ stdout: String) -> [Int] { stdout.split(separator: "\n").compactMap { Int($0) } }
}

@Suite("Every pagination signal a page sends, read with no options; a walk never ends where one says more")
struct SignalTests {
    static let all = Array(1...SignalAPI.count)

    /// Runs `fetch --all --format ids OPTIONS` against `api`.
    static func walk(_ api: SignalAPI, _ options: [String] = [], endpoint: String = SignalAPI.endpoint)
        async throws -> InProcessRun
    {
        try await InProcessRun(["--all", "--format", "ids"] + options, transport: api.transport, endpoint: endpoint)
    }

    /// Expects every record once, in order, with exit 0, each page asked for once, and one `Pagination:`
    /// line holding `says`.
    static func expectWhole(
        _ run: InProcessRun, _ api: SignalAPI, says: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(run.status == .success, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(SignalAPI.ids(run.stdout) == all, "\(run.stderr)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Pagination: ") }
        #expect(lines.count == 1 && lines[0].contains(says), "\(run.stderr)", sourceLocation: sourceLocation)
        // The first page decides: no request beyond one per page.
        #expect(api.urls.count == SignalAPI.pages, "\(api.urls)", sourceLocation: sourceLocation)
    }

    @Test("Kinto: a Next-Page header with the next URL; an unknown ?cursor= is a filter that matches nothing")
    func nextPageHeader() async throws {
        let api = SignalAPI { query, _ in
            if query["cursor"] != nil { return (#"{"data":[]}"#, []) }
            let offset = Int(query["_token"] ?? "0")!
            let next = offset + SignalAPI.size < SignalAPI.count
            let headers =
                next ? [HTTPHeader("Next-Page", "\(SignalAPI.endpoint)?_limit=100&_token=\(offset + 100)")] : []
            return (#"{"data":\#(SignalAPI.records(from: offset))}"#, headers)
        }
        Self.expectWhole(try await Self.walk(api), api, says: "auto follows the Next-Page header, a URL")
        // Named as the header to read, the URL it holds is followed too, not sent back as ?cursor=.
        let named = SignalAPI(answer: api.answer)
        let run = try await Self.walk(named, ["--paginate", "header", "--next-header", "Next-Page"])
        #expect(run.status == .success && SignalAPI.ids(run.stdout) == Self.all, "\(run.stderr)")
        #expect(!named.urls.contains { $0.contains("cursor=") }, "\(named.urls)")
    }

    @Test("OGC API Features: a links array whose rel=next member holds the next URL, numberMatched the total")
    func linksArray() async throws {
        let api = SignalAPI { query, _ in
            let offset = Int(query["offset"] ?? "0")!
            var links = [#"{"rel":"self","href":"\#(SignalAPI.endpoint)?offset=\#(offset)"}"#]
            if offset + SignalAPI.size < SignalAPI.count {
                links.append(
                    #"{"rel":"next","type":"application/geo+json","href":"\#(SignalAPI.endpoint)?offset=\#(offset + 100)"}"#
                )
            }
            let body =
                #"{"type":"FeatureCollection","features":\#(SignalAPI.records(from: offset)),"numberMatched":250,"#
                + #""numberReturned":100,"links":[\#(links.joined(separator: ","))]}"#
            return (body, [])
        }
        Self.expectWhole(
            try await Self.walk(api), api, says: "next at 'links[rel=next]', total at 'numberMatched' (250)")
    }

    @Test("flask-smorest: a bare array, and X-Pagination's JSON with next_page, a page number")
    func xPagination() async throws {
        let api = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "1")!
            let next = page < SignalAPI.pages ? #", "next_page": \#(page + 1)"# : ""
            let header = #"{"total": 250, "total_pages": 3, "first_page": 1, "last_page": 3, "page": \#(page)\#(next)}"#
            return (SignalAPI.records(from: (page - 1) * 100), [HTTPHeader("X-Pagination", header)])
        }
        Self.expectWhole(try await Self.walk(api), api, says: "X-Pagination's next page, a page number sent as ?page=")
    }

    @Test("Litestar's ClassicPagination: a body that echoes its page and page count, asked for by that name")
    func pageEcho() async throws {
        let api = SignalAPI { query, _ in
            let page = Int(query["current_page"] ?? "1")!
            let body =
                #"{"items":\#(SignalAPI.records(from: (page - 1) * 100)),"page_size":100,"current_page":\#(page),"total_pages":3}"#
            return (body, [])
        }
        Self.expectWhole(
            try await Self.walk(api), api,
            says: "'current_page' of 'total_pages' (3), page numbers sent as ?current_page=")
    }

    @Test("A server that does not page by the parameter its body echoes: an error, never the same page again")
    func pageEchoIgnored() async throws {
        let api = SignalAPI { _, _ in
            (#"{"items":\#(SignalAPI.records(from: 0)),"page_size":100,"current_page":1,"total_pages":3}"#, [])
        }
        // Its records repeat: the first duplicate id stops the walk.
        let run = try await Self.walk(api)
        #expect(run.status == .dataError)
        #expect(
            run.stderr.contains(#"page 2 (\#(SignalAPI.endpoint)?current_page=2): duplicate id "1""#), "\(run.stderr)")
        // Duplicates skipped, the page's echo stops it.
        let skipping = try await Self.walk(SignalAPI(answer: api.answer), ["--on-duplicate", "skip"])
        #expect(skipping.status == .dataError)
        #expect(
            skipping.stderr.contains(
                "the page asked for with ?current_page=2 says its 'current_page' is 1: the server does not page by 'current_page'"
            ), "\(skipping.stderr)")
    }

    @Test("Pages numbered from 0 that say their number and the count end at the count's last (the total reached)")
    func zeroBasedPageCount() async throws {
        let api = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "0")!
            let body = #"{"items":\#(SignalAPI.records(from: page * 100)),"page":\#(page),"total_pages":3}"#
            return (body, [HTTPHeader("X-Total-Count", "250")])
        }
        let run = try await Self.walk(
            api, ["--paginate", "page", "--first-page", "0", "--page-size", "100", "--parallel", "1"])
        #expect(run.status == .success && SignalAPI.ids(run.stdout) == Self.all, "\(run.stderr)")
    }

    @Test("A body that says its offset, limit and total; a count with nothing else is walked by offsets")
    func offsets() async throws {
        let echo = SignalAPI { query, _ in
            let offset = Int(query["offset"] ?? "0")!
            return (#"{"items":\#(SignalAPI.records(from: offset)),"limit":100,"offset":\#(offset),"total":250}"#, [])
        }
        Self.expectWhole(
            try await Self.walk(echo), echo, says: "'offset' before 'total' (250), offsets sent as ?offset=")
        let count = SignalAPI { query, _ in
            let offset = Int(query["offset"] ?? "0")!
            return (#"{"items":\#(SignalAPI.records(from: offset)),"count":250}"#, [])
        }
        Self.expectWhole(
            try await Self.walk(count), count,
            says: "the total at 'count' (250) with no next reference, offsets sent as ?offset=")
    }

    @Test("Kaminari's next_page is a page number sent as ?page=; Datasette's next_url carries its next")
    func pageNumbersAndDatasette() async throws {
        let kaminari = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "1")!
            let next = page < SignalAPI.pages ? "\(page + 1)" : "null"
            return (#"{"notes_list":\#(SignalAPI.records(from: (page - 1) * 100)),"meta":{"next_page":\#(next)}}"#, [])
        }
        Self.expectWhole(try await Self.walk(kaminari), kaminari, says: "a page number sent as ?page=")
        let datasette = SignalAPI { query, _ in
            let offset = Int(query["_next"] ?? "0")!
            let more = offset + 100 < SignalAPI.count
            let next = more ? #""\#(offset + 100)""# : "null"
            let url = more ? #""\#(SignalAPI.endpoint)?_next=\#(offset + 100)""# : "null"
            return (#"{"ok":true,"next":\#(next),"next_url":\#(url),"rows":\#(SignalAPI.records(from: offset))}"#, [])
        }
        Self.expectWhole(try await Self.walk(datasette), datasette, says: "next at 'next_url'")
    }

    @Test("A scheme the user chose that ends where the page says more: exit 65 naming the signal")
    func chosenSchemeIgnoresSignal() async throws {
        // A Link header on the last page the next value says nothing of.
        let linked = SignalAPI { _, _ in
            (
                #"{"results":\#(SignalAPI.records(from: 0)),"next_cursor":null}"#,
                [
                    HTTPHeader("Link", #"<\#(SignalAPI.endpoint)?page=2>; rel="next""#)
                ]
            )
        }
        let run = try await Self.walk(linked, ["--paginate", "next", "--next-path", "next_cursor"])
        #expect(run.status == .dataError)
        #expect(
            run.stderr.contains(
                "the walk would end here, but the page says there is more: its Link header names a next page"),
            "\(run.stderr)")
        // has_more still true where the cursor runs out.
        let flagged = SignalAPI { _, _ in (#"{"data":\#(SignalAPI.records(from: 0)),"has_more":true}"#, []) }
        let flag = try await Self.walk(flagged)
        #expect(flag.status == .dataError)
        #expect(flag.stderr.contains("its 'has_more' is true"), "\(flag.stderr)")
        // A body next URL that --paginate link does not read.
        let drf = SignalAPI { _, _ in
            (#"{"next":"\#(SignalAPI.endpoint)?page=2","results":\#(SignalAPI.records(from: 0))}"#, [])
        }
        let link = try await Self.walk(drf, ["--paginate", "link"])
        #expect(link.status == .dataError)
        #expect(link.stderr.contains("its 'next' is '\(SignalAPI.endpoint)?page=2'"), "\(link.stderr)")
    }

    @Test("A total in a header above what the walk brought, after a resumable run too: never exit 0")
    func headerTotal() async throws {
        let api = SignalAPI { _, _ in (SignalAPI.records(from: 0), [HTTPHeader("Total-Records", "250")]) }
        // Offsets tried: the server ignores them, and the first duplicate id stops the walk.
        let run = try await Self.walk(api)
        #expect(run.status == .dataError)
        #expect(run.stderr.contains(#"page 2 (\#(SignalAPI.endpoint)?offset=100): duplicate id "1""#), "\(run.stderr)")
        // With an id-less total and one page, and with --state: exit 65 again when run once more.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let state = ["--state", scratch.path("state.json"), "-o", scratch.path("out.ndjson")]
        let one = SignalAPI { query, _ in
            query["offset"] == nil ? (SignalAPI.records(from: 0), [HTTPHeader("X-Total-Count", "250")]) : ("[]", [])
        }
        for _ in 0..<2 {
            let short = try await InProcessRun(
                ["--all"] + state, transport: one.transport, endpoint: SignalAPI.endpoint)
            #expect(short.status == .dataError)
            #expect(
                short.stderr.contains("the server announced 250 notes, but its last page came after 100"),
                "\(short.stderr)")
        }
    }

    @Test("Ids at _id, uuid or pk when a record has no id; two of them is an error naming both")
    func ids() async throws {
        let eve = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "1")!
            let next = page < SignalAPI.pages ? #","_links":{"next":{"href":"items?page=\#(page + 1)"}}"# : ""
            return (#"{"_items":\#(SignalAPI.records(from: (page - 1) * 100, id: "_id"))\#(next)}"#, [])
        }
        Self.expectWhole(try await Self.walk(eve), eve, says: "ids at '_id', next at '_links.next.href'")
        let two = SignalAPI { _, _ in (#"{"results":[{"_id":1,"uuid":"a"}],"next":null}"#, []) }
        let run = try await Self.walk(two)
        #expect(run.status == .dataError)
        #expect(
            run.stderr.contains(
                "note has no 'id' and two members that could be its id, '_id' and 'uuid': pass --id-path"),
            "\(run.stderr)")
    }

    @Test("Eve without a total: a next link on every page, an empty one too, and the walk ends at the empty page")
    func eveWithoutTotal() async throws {
        let api = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "1")!
            let links = #""_links":{"next":{"href":"items?page=\#(page + 1)"}}"#
            let records = SignalAPI.records(from: (page - 1) * 100, id: "_id")
            return (#"{"_items":\#(records),\#(links),"_meta":{"page":\#(page),"max_results":100}}"#, [])
        }
        let run = try await Self.walk(api, ["--parallel", "1"])
        #expect(run.status == .success && SignalAPI.ids(run.stdout) == Self.all, "\(run.stderr)")
        // Three pages and the empty one after them.
        #expect(api.urls.count == 4, "\(api.urls)")
        // The same with its last page silent on the next link: the page number it says, with no count, is
        // followed up to the empty page after it.
        let silent = SignalAPI { query, _ in
            let page = Int(query["page"] ?? "1")!
            let links = page < 3 ? #","_links":{"next":{"href":"items?page=\#(page + 1)"}}"# : ""
            let records = SignalAPI.records(from: (page - 1) * 100, id: "_id")
            return (#"{"_items":\#(records),"_meta":{"page":\#(page),"max_results":100}\#(links)}"#, [])
        }
        let quiet = try await Self.walk(silent, ["--parallel", "1"])
        #expect(quiet.status == .success && SignalAPI.ids(quiet.stdout) == Self.all, "\(quiet.stderr)")
        #expect(silent.urls.count == 4, "\(silent.urls)")
    }

    @Test("A title is required only when asked for, or of the notes contract's notes; a title asked for is checked")
    func titles() async throws {
        let untitled = SignalAPI { _, _ in (#"{"results":[{"id":1,"title":{"rendered":"x"}},{"id":2}]}"#, []) }
        let plain = try await Self.walk(untitled)
        #expect(plain.status == .success && plain.stdout == "1\n2\n", "\(plain.stderr)")
        let asked = try await Self.walk(SignalAPI(answer: untitled.answer), ["--title-path", "title"])
        #expect(asked.status == .dataError)
        #expect(asked.stderr.contains("title is an object, not a string"), "\(asked.stderr)")
        let notes = SignalAPI { _, _ in (#"{"notes":[{"id":1}],"next_cursor":null}"#, []) }
        let contract = try await Self.walk(notes)
        #expect(contract.status == .dataError)
        #expect(contract.stderr.contains("note has no 'title'"), "\(contract.stderr)")
    }

    @Test("AWS's JSON content types are JSON, by name; HTML is not")
    func contentTypes() {
        #expect(PageReception.isJSON("application/x-amz-json-1.0"))
        #expect(PageReception.isJSON("application/x-amz-json-1.1"))
        #expect(PageReception.isJSON("application/geo+json"))
        #expect(!PageReception.isJSON("text/html; charset=utf-8"))
        #expect(!PageReception.isJSON("text/plain"))
        // By name only (a fuzz finding: Fixtures/regressions-fetch/fuzz-crash-5139a2e0a5ff.txt).
        #expect(!PageReception.isJSON("application/x-amz-json-?page=1"))
        #expect(!PageReception.isJSON("application/x-amz-json-2.0"))
    }

    @Test("A cursor that is a JSON object goes into the next POST body as that object")
    func jsonCursor() async throws {
        let api = SignalAPI { _, request in
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            let start =
                body.contains(#""ExclusiveStartKey":{"id":{"N":"200"}}"#)
                ? 200 : body.contains(#""ExclusiveStartKey":{"id":{"N":"100"}}"#) ? 100 : 0
            let key = start + 100 < SignalAPI.count ? #","LastEvaluatedKey":{"id":{"N":"\#(start + 100)"}}"# : ""
            return (#"{"Items":\#(SignalAPI.records(from: start))\#(key)}"#, [])
        }
        let run = try await Self.walk(
            api,
            [
                "--method", "POST", "--body", #"{"TableName":"notes"}"#, "--body-cursor", "ExclusiveStartKey",
                "--next-path", "LastEvaluatedKey", "--items-path", "Items",
            ])
        #expect(run.status == .success && SignalAPI.ids(run.stdout) == Self.all, "\(run.stderr)")
        #expect(api.urls.count == 3)
    }
}
