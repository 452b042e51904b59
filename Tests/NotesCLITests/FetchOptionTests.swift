import Foundation
import NotesFetch
import NotesFetchTesting
import NotesStore
import Synchronization
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
        #expect(run.stdout.split(separator: "\n").count == pages * 4)
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
        #expect(run.stdout == "a\nb\n")
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
        var state = WalkCheckpoint(url: FakeAPI.endpoint, pagination: "auto")
        state.pages = 1
        state.notes = 25
        state.total = 100
        let console = Console()
        Progress(enabled: true, report: console.write).update(state)
        #expect(console.output.hasPrefix("\r\u{1B}[Kpages 1  notes 25  "))
        #expect(console.output.contains("  25 %, about "), "\(console.output)")
        #expect(console.output.hasSuffix(" s left"))

        state.total = nil
        let plain = Console()
        Progress(enabled: true, report: plain.write).update(state)
        #expect(!plain.output.contains("%"))
        let off = Console()
        Progress(enabled: false, report: off.write).update(state)
        #expect(off.output.isEmpty)
    }

    @Test("A rate limit's wait is said once off a terminal and drawn in the progress line on one; --quiet says nothing")
    func rateLimitWaitShown() async throws {
        // The first page spends the limit (30 s to the reset); the second is refused once with Retry-After.
        let api = Self.api
        let calls = Mutex(0)
        let transport = MemoryTransport { request, _ in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 2 { return .status(429, headers: [HTTPHeader("Retry-After", "7")]) }
            guard let page = (1...api.pages.count).first(where: { FakeAPI.url(page: $0) == request.url }) else {
                return .status(404)
            }
            let spent = [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000030")]
            return .json(api.body(page: page), headers: call == 1 ? spent : [])
        }
        let plain = try await InProcessRun(["--all", "--format", "none"], transport: transport)
        #expect(plain.status == .success)
        #expect(
            plain.stderr.hasPrefix(
                "rate limit spent, resuming in 30 s\nPagination: auto follows the body's 'next_cursor', a cursor sent as ?cursor=\nrate limited (HTTP 429), resuming in 7 s\n12 notes, 3 pages"
            ), "\(plain.stderr)")
        calls.withLock { $0 = 0 }
        let drawn = try await InProcessRun(["--all", "--format", "none"], transport: transport, terminal: true)
        #expect(drawn.status == .success)
        #expect(drawn.messages.contains("\r\u{1B}[Krate limit spent, resuming in 30 s"), "\(drawn.stderr)")
        #expect(drawn.messages.contains("  rate limited (HTTP 429), resuming in 7 s"), "\(drawn.stderr)")
        #expect(
            !drawn.stderr.contains("30 s\n") && !drawn.stderr.contains("7 s\n"),
            "no line of its own on a terminal: \(drawn.stderr)")
        // A line of its own (auto's) clears the progress line first, and the line is drawn again after it.
        #expect(
            drawn.stderr.contains(
                "\r\u{1B}[KPagination: auto follows the body's 'next_cursor', a cursor sent as ?cursor=\n\r\u{1B}[Krate limit spent"
            ), "\(drawn.stderr)")
        calls.withLock { $0 = 0 }
        let quiet = try await InProcessRun(["--all", "--format", "none", "--quiet"], transport: transport)
        #expect(quiet.status == .success)
        #expect(quiet.stderr == "")
    }

    @Test("On a terminal, a rate limit's wait counts down in the progress line, and the next page ends it")
    func progressWhileWaiting() {
        let clock = Mutex(1000.0)
        let console = Console()
        let progress = Progress(enabled: true, report: console.write, now: { clock.withLock { $0 } })
        var state = WalkCheckpoint(url: FakeAPI.endpoint, pagination: "auto")
        state.pages = 3
        state.notes = 30
        progress.update(state)
        progress.waiting(42, reason: "rate limited (HTTP 403)")
        #expect(console.lines.last.map { $0.hasPrefix("\r\u{1B}[Kpages 3  notes 30  ") } == true, "\(console.lines)")
        #expect(console.lines.last?.hasSuffix("  rate limited (HTTP 403), resuming in 42 s") == true)
        clock.withLock { $0 += 2 }
        progress.tick()
        #expect(console.lines.last?.hasSuffix("  rate limited (HTTP 403), resuming in 40 s") == true)
        clock.withLock { $0 += 0.1 }
        state.pages = 4
        progress.update(state)
        #expect(console.lines.last.map { $0.hasPrefix("\r\u{1B}[Kpages 4  ") && !$0.contains("resuming") } == true)
        progress.finish()
        #expect(console.lines.last == "\r\u{1B}[K")
    }
}
