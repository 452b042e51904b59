import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import TestSupport
import Testing

@testable import NotesCLI

/// A collection of notes `n0`…`n<count-1>` served in memory in every pagination scheme, as real APIs
/// shape them (Django REST framework, GitHub, Stripe, a header cursor).
struct SchemeAPI: Sendable {
    static let endpoint = "http://127.0.0.1:9/notes"

    var count: Int
    /// The total the server announces (`count`, `X-Total-Count`), when it differs from `count`.
    var announced: Int?
    /// Notes inserted at the start of the collection from the second request on (a dataset changing
    /// while it is walked).
    var shift = 0

    static func note(_ index: Int) -> String { #"{"id":"n\#(index)","title":"t\#(index)"}"# }
    static func note(_ id: String) -> String { #"{"id":"\#(id)","title":"t"}"# }

    /// The NDJSON of notes `range`, as `fetch` writes it.
    static func ndjson(_ range: Range<Int>) -> String { range.map { note($0) + "\n" }.joined() }

    func transport(style: String) -> MemoryTransport {
        MemoryTransport { request, index in
            guard let components = URLComponents(string: request.url), components.path == "/notes" else {
                return .status(404)
            }
            let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
            let ids = (index > 0 ? (0..<shift).map { "new\($0)" } : []) + (0..<count).map { "n\($0)" }
            func notes(_ range: Range<Int>) -> String {
                ids[range.clamped(to: 0..<ids.count)].map {
                    $0.hasPrefix("new") ? Self.note($0) : Self.note(Int($0.dropFirst())!)
                }
                .joined(separator: ",")
            }
            let total = announced ?? count
            func with(_ changes: [String: String]) -> String {
                var copy = components
                var items = copy.queryItems ?? []
                for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
                    items.removeAll { $0.name == name }
                    items.append(URLQueryItem(name: name, value: value))
                }
                copy.queryItems = items
                return copy.string!
            }
            switch style {
            case "offset":
                guard let offset = Int(query["offset"] ?? "0"), let limit = Int(query["limit"] ?? "10") else {
                    return .status(400)
                }
                let next = offset + limit < ids.count ? "\"\(with(["offset": "\(offset + limit)"]))\"" : "null"
                return .json(
                    #"{"count":\#(total),"next":\#(next),"previous":null,"results":[\#(notes(offset..<offset + limit))]}"#
                )
            case "page":
                guard let page = Int(query["page"] ?? "1"), let size = Int(query["per_page"] ?? "10") else {
                    return .status(400)
                }
                let last = max(1, (ids.count + size - 1) / size)
                let lastURL = with(["page": "\(last)"])
                var links = [#"<\#(lastURL)>; rel="last""#]
                if page < last {
                    let nextURL = with(["page": "\(page + 1)"])
                    links.insert(#"<\#(nextURL)>; rel="next""#, at: 0)
                }
                return .json(
                    "[\(notes((page - 1) * size..<page * size))]",
                    headers: [
                        HTTPHeader("Link", links.joined(separator: ", ")), HTTPHeader("X-Total-Count", "\(total)"),
                    ])
            case "keyset":
                let limit = Int(query["limit"] ?? "10") ?? 10
                var start = 0
                if let after = query["starting_after"] {
                    guard let position = ids.firstIndex(of: after) else { return .status(400) }
                    start = position + 1
                }
                let more = start + limit < ids.count
                return .json(
                    #"{"object":"list","data":[\#(notes(start..<start + limit))],"has_more":\#(more),"url":"/notes"}"#)
            case "header":
                let page = Int(query["cursor"]?.dropFirst() ?? "0") ?? 0
                let next = (page + 1) * 10 < ids.count ? [HTTPHeader("X-Next-Cursor", "c\(page + 1)")] : []
                return .json(#"{"notes":[\#(notes(page * 10..<page * 10 + 10))]}"#, headers: next)
            case "next-number":
                let page = Int(query["page"] ?? "1") ?? 1
                let next = page * 10 < ids.count ? "\(page + 1)" : "null"
                return .json(#"{"results":[\#(notes((page - 1) * 10..<page * 10))],"next_page":\#(next)}"#)
            default:
                return .status(500)
            }
        }
    }
}

@Suite("Every pagination scheme, in process")
struct PaginationTests {
    static let styles: [(style: String, arguments: [String], urls: [String])] = [
        (
            "offset",
            [
                "--paginate", "offset", "--page-size", "10", "--items-path", "results", "--total-path", "count",
                "--parallel", "1",
            ],
            ["?offset=0&limit=10", "?offset=10&limit=10", "?offset=20&limit=10"]
        ),
        (
            "page", ["--paginate", "page", "--page-size", "10", "--parallel", "1"],
            ["?page=1&per_page=10", "?page=2&per_page=10", "?page=3&per_page=10"]
        ),
        (
            "keyset", ["--paginate", "keyset", "--page-size", "10", "--items-path", "data"],
            ["?limit=10", "?limit=10&starting_after=n9", "?limit=10&starting_after=n19"]
        ),
        (
            "header", ["--paginate", "header", "--next-header", "X-Next-Cursor"],
            ["", "?cursor=c1", "?cursor=c2"]
        ),
        (
            "next-number",
            [
                "--paginate", "next", "--next-is", "cursor", "--next-path", "next_page", "--cursor-param", "page",
                "--items-path", "results",
            ],
            ["", "?page=2", "?page=3"]
        ),
        (
            "offset", ["--items-path", "results", "--next-path", "next"],  // auto: the DRF next URLs
            ["", "?offset=10", "?offset=20"]
        ),
        ("page", ["--paginate", "link"], ["", "?page=2", "?page=3"]),
    ]

    @Test("Each scheme walks 25 notes in three pages, each note once, in order, with the requests it names")
    func walks() async throws {
        for (style, arguments, urls) in Self.styles {
            let api = SchemeAPI(count: 25)
            let transport = api.transport(style: style)
            let run = try await InProcessRun(
                ["--all", "--format", "ndjson", "-o", "/dev/null"] + arguments, transport: transport)
            #expect(run.status == .success, "\(style) \(arguments): \(run.stderr)")
            #expect(transport.requests.map(\.url) == urls.map { SchemeAPI.endpoint + $0 }, "\(style) \(arguments)")
            #expect(run.messages.hasPrefix("25 notes, 3 pages, "), "\(style) \(arguments): \(run.stderr)")
        }
    }

    @Test("Each scheme resumes after a kill in its own terms: the page after the last committed, never page 1")
    func resumes() async throws {
        for (style, arguments, urls) in Self.styles {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let files = ["--all", "-o", scratch.path("out.ndjson"), "--state", scratch.path("state.json")]
            let api = SchemeAPI(count: 25)
            let killed = try await InProcessRun(
                files + arguments, transport: api.transport(style: style), kill: SimulatedKill(page: 2, step: .state))
            #expect(killed.status == .ioError, "\(style): \(killed.stderr)")
            let second = api.transport(style: style)
            let resumed = try await InProcessRun(files + arguments, transport: second)
            #expect(resumed.status == .success, "\(style) \(arguments): \(resumed.stderr)")
            #expect(second.requests.map(\.url) == [SchemeAPI.endpoint + urls[2]], "\(style) \(arguments)")
            #expect(try scratch.read("out.ndjson") == SchemeAPI.ndjson(0..<25), "\(style) \(arguments)")
        }
    }

    @Test("Parameters already in the URL are replaced, never repeated; others are kept")
    func parametersReplaced() async throws {
        let transport = SchemeAPI(count: 15).transport(style: "offset")
        let run = try await InProcessRun(
            ["--all", "--paginate", "offset", "--page-size", "10", "--items-path", "results", "-o", "/dev/null"]
                + ["--parallel", "1"],
            transport: transport, endpoint: SchemeAPI.endpoint + "?limit=100&x=1&offset=0")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(
            transport.requests.map(\.url) == [
                SchemeAPI.endpoint + "?limit=10&x=1&offset=0", SchemeAPI.endpoint + "?limit=10&x=1&offset=10",
            ])
    }

    @Test(
        "Without --page-size, offset takes the URL's limit; without a total a walk ends at an empty page, not a short one"
    )
    func shortPages() async throws {
        let offset = SchemeAPI(count: 25).transport(style: "offset")
        let run = try await InProcessRun(
            ["--all", "--paginate", "offset", "--items-path", "results", "-o", "/dev/null", "--parallel", "1"],
            transport: offset,
            endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(offset.requests.count == 3)

        // A server without a total or Link: a short page is not the last (the server may cap the size, or
        // hide notes), the empty one after it is.
        let page = MemoryTransport { request, _ in
            let number = Int(URLComponents(string: request.url)!.queryItems!.first { $0.name == "page" }!.value!)!
            let count = number < 3 ? 10 : number == 3 ? 4 : 0
            return .json("[\((0..<count).map { SchemeAPI.note(number * 100 + $0) }.joined(separator: ","))]")
        }
        let pages = try await InProcessRun(
            ["--all", "--paginate", "page", "--page-size", "10", "-o", "/dev/null", "--parallel", "1"], transport: page)
        #expect(pages.status == .success)
        #expect(page.requests.count == 4)
        #expect(pages.messages.hasPrefix("24 notes, 4 pages, "))
    }

    @Test("A total above what arrived is an error (65), not exit 0 with notes missing; one below is reported")
    func totalDisagrees() async throws {
        let transport = SchemeAPI(count: 25, announced: 30).transport(style: "page")
        let run = try await InProcessRun(
            ["--all", "--paginate", "link", "-o", "/dev/null"], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages.contains(
                " MB/s\nError: the server announced 30 notes, but its last page came after 25: 5 are missing\n"),
            "\(run.stderr)")
        let fewer = try await InProcessRun(
            ["--all", "--paginate", "link", "-o", "/dev/null"],
            transport: SchemeAPI(count: 25, announced: 20).transport(style: "page"))
        #expect(fewer.status == .success)
        #expect(fewer.messages.contains(" MB/s\nThe server announced 20 notes; 25 arrived.\n"), "\(fewer.stderr)")
        let agreeing = try await InProcessRun(
            ["--all", "--paginate", "link", "-o", "/dev/null"], transport: SchemeAPI(count: 25).transport(style: "page")
        )
        #expect(!agreeing.messages.contains("announced"))
    }

    @Test("--on-duplicate skip: a dataset that shifts under offsets gives each note once and counts the rest")
    func shiftedDataset() async throws {
        let arguments = [
            "--all", "--paginate", "offset", "--page-size", "10", "--items-path", "results", "--format", "ids",
            "--parallel", "1",
        ]
        let failing = try await InProcessRun(
            arguments + ["-o", "/dev/null"], transport: SchemeAPI(count: 25, shift: 2).transport(style: "offset"))
        #expect(failing.status == .dataError)
        #expect(
            failing.messages.hasPrefix(#"Error: page 2 (offset 10): duplicate id "n8", seen on page 1 (note 0, "#),
            "\(failing.stderr)")

        let scratch = try Scratch()
        defer { scratch.remove() }
        let skipping = try await InProcessRun(
            arguments + ["--on-duplicate", "skip", "-o", scratch.path("ids")],
            transport: SchemeAPI(count: 25, shift: 2).transport(style: "offset"))
        #expect(skipping.status == .success, "\(skipping.stderr)")
        let ids = try scratch.read("ids").split(separator: "\n").map(String.init)
        #expect(ids == (0..<25).map { "n\($0)" } + ["new0", "new1"].filter { _ in false })
        #expect(skipping.messages.hasPrefix("25 notes, 3 pages, 2 duplicates skipped, "), "\(skipping.stderr)")
    }

    @Test("keyset without has_more is a contract error naming the path")
    func keysetWithoutHasMore() async throws {
        let transport = MemoryTransport { _, _ in .json(#"{"data":[{"id":"a","title":""}]}"#) }
        let run = try await InProcessRun(
            ["--all", "--paginate", "keyset", "--items-path", "data", "-o", "/dev/null"], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages
                == "Error: page 1 (the first page): the page has no 'has_more': --paginate keyset needs it (--has-more-path)\n"
        )
    }

    @Test("auto says once what it follows, and recognises offsets and page numbers in next URLs")
    func autoRecognition() async throws {
        let offset = try await InProcessRun(
            ["--all", "--items-path", "results", "--next-path", "next", "-o", "/dev/null"],
            transport: SchemeAPI(count: 25).transport(style: "offset"), endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(
            offset.stderr.hasPrefix(
                "Pagination: auto follows the body's 'next', a URL, which walks offset pages (offset, limit)\n25 notes"
            ),
            "\(offset.stderr)")
        let page = try await InProcessRun(
            ["--all", "-o", "/dev/null"], transport: SchemeAPI(count: 25).transport(style: "page"))
        #expect(
            page.stderr.hasPrefix(
                #"Pagination: auto follows Link rel="next", a URL, which walks page numbers (page)"# + "\n"),
            "\(page.stderr)")
        let cursor = try await InProcessRun(
            ["--all", "-o", "/dev/null"], transport: FakeAPI(pages: 2, size: 1).transport())
        #expect(
            cursor.stderr.hasPrefix("Pagination: auto follows the body's 'next_cursor', a cursor sent as ?cursor=\n"))
        let quiet = try await InProcessRun(
            ["--all", "--quiet", "-o", "/dev/null"], transport: FakeAPI(pages: 2, size: 1).transport())
        #expect(quiet.stderr == "")
    }

    @Test(
        "Bad combinations are usage errors that say what is missing",
        arguments: [
            (["--paginate", "header"], "--paginate header needs --next-header NAME, the header with the next cursor"),
            (["--paginate", "offset"], "--paginate offset needs --page-size N (or a 'limit' parameter in the URL)"),
            (["--paginate", "offset", "--next-header", "X"], "--next-header applies to --paginate header, not offset"),
            (["--page-size", "10"], "--page-size applies to --paginate offset, page, keyset, not auto"),
            (
                ["--paginate", "page", "--first-page", "2"],
                "Invalid value '2' for '--first-page': expected an integer from 0 to 1"
            ),
            (
                ["--paginate", "offset", "--page-size", "5", "--cursor", "abc"],
                "Invalid --cursor 'abc' for --paginate offset (offset, limit=5): expected a number"
            ),
            (
                ["--paginate", "sideways"],
                "Invalid value 'sideways' for '--paginate': expected one of auto, next, link, header, offset, page, keyset, graphql, body"
            ),
            (["--on-duplicate", "maybe"], "Invalid value 'maybe' for '--on-duplicate': expected one of fail, skip"),
            (["--paginate", "header", "--next-header", "X:Y"], "Invalid --next-header 'X:Y': expected a name"),
        ] as [([String], String)]
    )
    func badCombinations(arguments: [String], message: String) throws {
        let parsed = try ParsedArguments(arguments + [SchemeAPI.endpoint], spec: FetchCommand.spec)
        #expect(throws: UsageError(message)) { try FetchCommand(parsed, environment: [:]) }
    }

    @Test(
        "The command's defaults are the library's: 4 pages in flight, early requests on, 4 retries; the help says them")
    func defaults() throws {
        let parsed = try ParsedArguments([SchemeAPI.endpoint], spec: FetchCommand.spec)
        let command = try FetchCommand(parsed, environment: [:])
        let library = FetchConfiguration()
        #expect(library.parallel == 4 && library.earlyRequests && library.retries == 4)
        #expect(command.configuration.parallel == library.parallel)
        #expect(command.configuration.earlyRequests == library.earlyRequests)
        #expect(command.configuration.retries == library.retries)
        #expect(command.configuration.maxWait == library.maxWait)
        let help = FetchCommand.spec.options.map(\.help).joined(separator: "\n")
        #expect(help.contains("pages in flight at once (1: one after another). Default: 4."))
        #expect(help.contains("Retries of a failing page after the first attempt. Default: 4."))
    }

    @Test("An endpoint that is no URI libcurl can follow is a usage error before any request, not retried")
    func badEndpoints() throws {
        for endpoint in ["http://[zz]/notes", "https://h:99999/", "http://a b/notes"] {
            let parsed = try ParsedArguments([endpoint], spec: FetchCommand.spec)
            #expect(throws: UsageError.self, "\(endpoint)") { try FetchCommand(parsed, environment: [:]) }
        }
        let parsed = try ParsedArguments(["https://h:99999/"], spec: FetchCommand.spec)
        do {
            _ = try FetchCommand(parsed, environment: [:])
        } catch {
            #expect(error.message.hasPrefix("Invalid URL 'https://h:99999/': the endpoint"), "\(error.message)")
        }
    }

    @Test("A state written by another scheme, or by another version, is refused before any request")
    func otherScheme() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let files = ["--all", "-o", scratch.path("out"), "--state", scratch.path("state.json")]
        let offset = ["--paginate", "offset", "--page-size", "10", "--items-path", "results"]
        let first = try await InProcessRun(
            files + offset + ["--max-pages", "1"], transport: SchemeAPI(count: 25).transport(style: "offset"))
        #expect(first.status == .success)
        let other = SchemeAPI(count: 25).transport(style: "page")
        let run = try await InProcessRun(files + ["--paginate", "page", "--page-size", "10"], transport: other)
        #expect(run.status == .ioError)
        #expect(
            run.messages
                == "Error: '\(scratch.path("state.json"))' is the state of a run with --paginate offset (offset, limit=10), not page (page from 1, per_page=10)\n"
        )
        #expect(other.requests.isEmpty)

        try Files.write(
            #"{"version": 1, "url": "http://127.0.0.1:9/notes", "pages": 1}"#, to: scratch.path("state.json"))
        let old = try await InProcessRun(files + offset, transport: other)
        #expect(old.status == .ioError)
        #expect(
            old.messages
                == "Error: '\(scratch.path("state.json"))' is a state of version 1, not 2: written by another notes-page; remove it to start over\n"
        )
        #expect(other.requests.isEmpty)
    }

    @Test("A next cursor that makes a URL over 65,535 bytes is a clear contract error, not a crash")
    func longCursor() async throws {
        let cursor = String(repeating: "c", count: 70_000)
        let transport = MemoryTransport { _, _ in
            .json(#"{"notes":[{"id":"a","title":""}],"next_cursor":"\#(cursor)"}"#, chunkSize: 4096)
        }
        let run = try await InProcessRun(["--all", "-o", "/dev/null"], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages
                == "Error: page 1 (the first page): the next page's URL is 70032 bytes, over the limit of 65535\n")
        #expect(transport.requests.count == 1)
    }
}
