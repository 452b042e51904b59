import Foundation
import NotesFetch
import Testing

@testable import NotesCLI

/// `fetch`'s options, in process against a ``FakeAPI``: each one the user sets is the one enforced, at
/// its value and not one byte or note before.
@Suite("fetch options, in process")
struct FetchOptionTests {
    static let api = FakeAPI(pages: 3, size: 4)
    /// The first page's body, in bytes.
    static let firstPageBytes = api.body(page: 1).utf8.count

    @Test(
        "Each page cap is enforced at the value given: one under the page refuses it, the page's own size passes",
        arguments: [
            ("--max-page-bytes", firstPageBytes, "document longer than \(firstPageBytes - 1) bytes"),
            ("--max-page-notes", 4, "more than 3 notes on the page"),
            ("--max-string-bytes", 13, "string longer than 12 bytes"),
            ("--max-depth", 3, "nesting deeper than 2 levels"),
        ] as [(String, Int, String)]
    )
    func pageCaps(option: String, fits: Int, message: String) async throws {
        let refused = try await InProcessRun(
            ["--all", "-o", "/dev/null", option, "\(fits - 1)"], transport: Self.api.transport())
        #expect(refused.status == .dataError)
        let line = refused.messages.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.hasPrefix("Error: page 1 (the first page): \(message) "), "\(line)")

        let passed = try await InProcessRun(
            ["--all", "-o", "/dev/null", option, "\(fits)"], transport: Self.api.transport())
        #expect(passed.status == .success, "\(passed.stderr)")
        #expect(passed.messages.hasPrefix("12 notes, 3 pages, "))
    }

    @Test("A Content-Length over --max-page-bytes is refused before the body")
    func contentLength() async throws {
        var api = Self.api
        api.headers = [HTTPHeader("Content-Length", "\(Self.firstPageBytes)")]
        let run = try await InProcessRun(
            ["--all", "--max-page-bytes", "\(Self.firstPageBytes - 1)"], transport: api.transport())
        #expect(run.status == .dataError)
        #expect(
            run.messages
                == "Error: page 1 (the first page): Content-Length \(Self.firstPageBytes) is over the page limit of \(Self.firstPageBytes - 1) bytes\n"
        )
    }

    @Test("--max-notes stops after the page that reaches it, and says where to go on", arguments: [1, 4, 5, 8])
    func maxNotes(limit: Int) async throws {
        let transport = Self.api.transport()
        let pages = (limit + 3) / 4
        let run = try await InProcessRun(["--all", "--max-notes", "\(limit)", "--format", "ids"], transport: transport)
        #expect(run.status == .success)
        #expect(transport.requests.map(\.url) == (1...pages).map(FakeAPI.url))
        #expect(
            run.stderr.hasSuffix(
                "More pages remain: the next is cursor c\(pages + 1). Continue with --cursor or --state.\n"))
        #expect(run.messages.hasPrefix("\(pages * 4) notes, \(pages) page\(pages == 1 ? "" : "s"), "))
    }

    @Test("--cursor starts there; --cursor-param names the query parameter, replacing one already in the URL")
    func cursor() async throws {
        let transport = MemoryTransport { request, _ in
            switch request.url {
            case "http://127.0.0.1:9/notes?limit=4&after=c2":
                return .json(#"{"notes":[{"id":"a","title":""}],"next_cursor":"c3+/"}"#)
            case "http://127.0.0.1:9/notes?limit=4&after=c3%2B%2F":
                return .json(#"{"notes":[{"id":"b","title":""}],"next_cursor":null}"#)
            default:
                return .status(404)
            }
        }
        let run = try await InProcessRun(
            ["--all", "--cursor", "c2", "--cursor-param", "after", "--format", "ids"], transport: transport,
            endpoint: "http://127.0.0.1:9/notes?limit=4&after=old")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(run.messages.hasPrefix("2 notes, 2 pages, "))
        #expect(transport.requests.count == 2)
    }

    @Test("Without --cursor-param a cursor goes in ?cursor=")
    func defaultCursorParameter() async throws {
        let transport = Self.api.transport()
        let run = try await InProcessRun(["--all", "--cursor", "c2", "--format", "none"], transport: transport)
        #expect(run.status == .success)
        #expect(transport.requests.map(\.url) == [FakeAPI.url(page: 2), FakeAPI.url(page: 3)])
    }

    @Test("On a terminal, progress shows a percentage and the time left once the server announced a total")
    func progressWithTotal() {
        var state = RunState(url: FakeAPI.endpoint, pagination: "auto")
        state.pages = 1
        state.notes = 25
        state.total = 100
        let console = Console()
        Progress(enabled: true).update(state, report: console.write)
        #expect(console.output.hasPrefix("\r\u{1B}[Kpages 1  notes 25  "))
        #expect(console.output.contains("  25 %, about "), "\(console.output)")
        #expect(console.output.hasSuffix(" s left"))

        state.total = nil
        let plain = Console()
        Progress(enabled: true).update(state, report: plain.write)
        #expect(!plain.output.contains("%"))
        let off = Console()
        Progress(enabled: false).update(state, report: off.write)
        #expect(off.output.isEmpty)
    }
}
