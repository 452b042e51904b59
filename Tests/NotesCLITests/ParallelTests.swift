import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// Counts the requests in flight at once through another transport. (An `NSLock`, not a `Mutex`:
/// ThreadSanitizer sees pthread locks, not the futex under `Mutex`.)
final class ConcurrencyProbe: HTTPTransport, @unchecked Sendable {
    let inner: MemoryTransport
    /// Seconds each request takes before its response starts, so that requests made at once overlap.
    let pause: Double
    private let lock = NSLock()
    private var now = 0
    private var highest = 0

    init(_ inner: MemoryTransport, pause: Double = 0) {
        self.inner = inner
        self.pause = pause
    }

    /// The most requests that were in flight at once.
    var most: Int { lock.withLock { highest } }

    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        lock.withLock {
            now += 1
            highest = max(highest, now)
        }
        defer { lock.withLock { now -= 1 } }
        if pause > 0 { usleep(UInt32(pause * 1_000_000)) }
        return try inner.perform(request, receiver: receiver, cancellation: cancellation)
    }
}

/// `--parallel N` over offsets and page numbers, in process: the output is the sequential walk's, in page
/// order, whatever order the responses come in.
@Suite("Pages in parallel, in process")
struct ParallelTests {
    static let offset = ["--all", "--paginate", "offset", "--page-size", "10", "--items-path", "results"]

    /// Offsets `0, 10, …` of `count` notes; `slow` offsets drip, `body` may replace a page.
    static func api(
        count: Int, total: Bool = true, slow: Set<Int> = [], failFirst: Set<Int> = [],
        body: (@Sendable (Int) -> String?)? = nil
    ) -> MemoryTransport {
        let attempts = Mutex([Int: Int]())
        return MemoryTransport { request, _ in
            let query = URLComponents(string: request.url)?.queryItems ?? []
            guard let offset = query.first(where: { $0.name == "offset" })?.value.flatMap({ Int($0) }) else {
                return .status(400)
            }
            let attempt = attempts.withLock { attempts in
                attempts[offset, default: 0] += 1
                return attempts[offset]!
            }
            if failFirst.contains(offset) && attempt == 1 { return .status(503) }
            let text =
                body?(offset)
                ?? {
                    let notes = (offset..<max(offset, min(count, offset + 10))).map(SchemeAPI.note).joined(
                        separator: ",")
                    return #"{"count":\#(count),"results":[\#(notes)]}"#
                }()
            let json = MemoryTransport.Response.json(
                total ? text : text.replacingOccurrences(of: #"{"count":\#(count),"#, with: "{"), chunkSize: 64)
            if slow.contains(offset), case .reply(let head, let chunks) = json {
                return .drip(head, chunks: chunks, pause: 0.02)
            }
            return json
        }
    }

    /// The offset of every request, 0 for a URL with none (the bare endpoint).
    func offsets(_ transport: MemoryTransport) -> [Int] {
        transport.requests.map { request in
            URLComponents(string: request.url)?.queryItems?.first { $0.name == "offset" }?.value.flatMap { Int($0) }
                ?? 0
        }
    }

    @Test("With a total: exactly its pages, at most N in flight, the output in order and the same as one at a time")
    func withTotal() async throws {
        let memory = Self.api(count: 95, slow: Set(stride(from: 10, to: 100, by: 10)))
        let probe = ConcurrencyProbe(memory)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "3", "-o", scratch.path("out")], transport: probe)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(Set(offsets(memory)) == Set(stride(from: 0, to: 100, by: 10)))
        #expect(offsets(memory).count == 10)
        #expect(offsets(memory).first == 0)
        #expect(probe.most == 3)
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
        #expect(run.messages.hasPrefix("95 notes, 10 pages, "))
    }

    @Test(
        "Without a total: probes ahead, ends at the first empty page, not a short one; the probes past it write nothing"
    )
    func probes() async throws {
        let memory = Self.api(count: 25, total: false)
        let run = try await InProcessRun(Self.offset + ["--parallel", "4", "--format", "ids"], transport: memory)
        #expect(run.status == .success, "\(run.stderr)")
        // Up to four pages ahead of the last committed one, and the empty page at 30 is the last.
        let requested = offsets(memory).sorted()
        #expect(Array(requested.prefix(5)) == [0, 10, 20, 30, 40])
        #expect(requested.allSatisfy { $0 <= 70 } && Set(requested).count == requested.count, "\(requested)")
        #expect(run.messages.hasPrefix("25 notes, 4 pages, "), "\(run.stderr)")
    }

    @Test("A note on a page past the last one is a contract error")
    func notePastTheEnd() async throws {
        let memory = Self.api(count: 25, total: false) { offset in
            offset == 40 ? #"{"results":[{"id":"ghost","title":""}]}"# : nil
        }
        let run = try await InProcessRun(Self.offset + ["--parallel", "4", "-o", "/dev/null"], transport: memory)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(
                "Error: page 5 (offset 40): 1 notes on a page past the last one (offset 10 + 3)\n"), "\(run.stderr)")
    }

    @Test("A page that fails among those in flight is retried; the output stays in order")
    func retriedInFlight() async throws {
        let memory = Self.api(count: 60, slow: [10], failFirst: [30])
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "-o", scratch.path("out")], transport: memory)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(offsets(memory).filter { $0 == 30 }.count == 2)
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<60))
    }

    @Test("A duplicate that arrives before the page it duplicates is charged to the later page")
    func duplicateArrivesFirst() async throws {
        // Page 5 (offset 40) repeats page 3's first id; page 3 drips, so page 5 arrives first.
        let memory = Self.api(count: 60, slow: [20]) { offset in
            guard offset == 40 else { return nil }
            let notes = ([20] + Array(41..<50)).map(SchemeAPI.note).joined(separator: ",")
            return #"{"count":60,"results":[\#(notes)]}"#
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "-o", scratch.path("out")], transport: memory)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(#"Error: page 5 (offset 40): duplicate id "n20", seen on page 3 (note 0)"# + "\n"),
            "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<40))
        // With --format none no note is built on the walk's side; the pages in parallel still build theirs,
        // whose ids reach the run's set from them.
        let none = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "--format", "none"], transport: memory)
        #expect(none.status == .dataError)
        #expect(
            none.messages.hasPrefix(#"Error: page 5 (offset 40): duplicate id "n20", seen on page 3 (note 0)"# + "\n"),
            "\(none.stderr)")
        let skipped = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "--format", "none", "--on-duplicate", "skip"],
            transport: memory)
        #expect(skipped.status == .success, "\(skipped.stderr)")
        #expect(skipped.messages.hasPrefix("59 notes, 6 pages, 1 duplicate skipped, "), "\(skipped.stderr)")
    }

    @Test("Killed while pages are in flight, then resumed: every note once, from the first page not committed")
    func killAndResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let files = ["-o", scratch.path("out"), "--state", scratch.path("state")]
        let arguments = Self.offset + ["--total-path", "count", "--parallel", "4"] + files
        let killed = try await InProcessRun(
            arguments, transport: Self.api(count: 95, slow: [50]), kill: SimulatedKill(page: 4, step: .journal))
        #expect(killed.status == .ioError)
        let second = Self.api(count: 95)
        let resumed = try await InProcessRun(arguments, transport: second)
        #expect(resumed.status == .success, "\(resumed.stderr)")
        #expect(offsets(second).first == 30)
        #expect(Set(offsets(second)) == Set(stride(from: 30, to: 100, by: 10)))
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
    }

    @Test("--max-pages and --max-notes bound a parallel walk as they bound a sequential one")
    func bounds() async throws {
        let pages = Self.api(count: 95)
        let run = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "--max-pages", "2", "--format", "ids"],
            transport: pages)
        #expect(run.status == .success)
        #expect(offsets(pages).sorted() == [0, 10])
        #expect(run.messages.contains("More pages remain: the next is offset 20."))

        let notes = Self.api(count: 95)
        let bounded = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "--max-notes", "25", "--format", "ids"],
            transport: notes)
        #expect(bounded.status == .success)
        #expect(bounded.messages.hasPrefix("30 notes, 3 pages, "))
    }

    @Test("A server that sends fewer notes a page than asked: its page size is learned, every note arrives once")
    func serverPagesSmaller() async throws {
        let memory = Self.api(count: 95) { offset in
            let notes = (offset..<min(95, offset + 5)).map(SchemeAPI.note).joined(separator: ",")
            return #"{"count":95,"results":[\#(notes)]}"#
        }
        let run = try await InProcessRun(
            Self.offset + ["--total-path", "count", "--parallel", "4", "--format", "ids"], transport: memory)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(run.stdout == (0..<95).map { "n\($0)\n" }.joined())
        #expect(run.stderr.hasPrefix("Pagination: the server sends 5 a page (10 asked)\n"), "\(run.stderr)")
        #expect(run.messages.hasPrefix("95 notes, 19 pages, "), "\(run.stderr)")
        #expect(offsets(memory).sorted() == Array(stride(from: 0, to: 95, by: 5)))
    }

    @Test("Page numbers in parallel end at the Link header's last page")
    func pageNumbers() async throws {
        let transport = SchemeAPI(count: 95).transport(style: "page")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            ["--all", "--paginate", "page", "--page-size", "10", "--parallel", "4", "-o", scratch.path("out")],
            transport: transport)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(transport.requests.count == 10)
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
    }

    // MARK: - Next URLs that walk offsets or page numbers

    /// Django REST framework's limit-offset pages: `count`, a `next` URL, `results`; `slow` offsets drip,
    /// `next` may replace the next URL of an offset.
    static func drf(
        count: Int, slow: Set<Int> = [], next nextOf: (@Sendable (Int) -> String?)? = nil
    ) -> MemoryTransport {
        MemoryTransport { request, _ in
            let query = URLComponents(string: request.url)?.queryItems ?? []
            let offset = query.first { $0.name == "offset" }?.value.flatMap { Int($0) } ?? 0
            let limit = query.first { $0.name == "limit" }?.value.flatMap { Int($0) } ?? 10
            let notes = (offset..<max(offset, min(count, offset + limit))).map(SchemeAPI.note).joined(separator: ",")
            let following =
                nextOf?(offset)
                ?? (offset + limit < count ? "\(SchemeAPI.endpoint)?limit=\(limit)&offset=\(offset + limit)" : nil)
            let next = following.map { "\"\($0)\"" } ?? "null"
            let json = MemoryTransport.Response.json(
                #"{"count":\#(count),"next":\#(next),"previous":null,"results":[\#(notes)]}"#, chunkSize: 64)
            if slow.contains(offset), case .reply(let head, let chunks) = json {
                return .drip(head, chunks: chunks, pause: 0.02)
            }
            return json
        }
    }

    static let auto = ["--all", "--items-path", "results", "--next-path", "next"]

    @Test("auto: next URLs that walk offsets go in parallel from the first page that names its offset, in order")
    func autoOffsets() async throws {
        let memory = Self.drf(count: 95, slow: [20, 30, 40])
        let probe = ConcurrencyProbe(memory, pause: 0.05)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.auto + ["--parallel", "4", "-o", scratch.path("out")], transport: probe,
            endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
        #expect(probe.most >= 2, "pages went one at a time")
        #expect(probe.most <= 4)
        // Every page once; the probes past the end come back empty and write nothing.
        let requested = offsets(memory)
        #expect(requested.filter { $0 < 100 }.sorted() == Array(stride(from: 0, to: 100, by: 10)), "\(requested)")
        #expect(Set(requested).count == requested.count && requested.allSatisfy { $0 < 140 }, "\(requested)")
        #expect(run.messages.hasPrefix("95 notes, 10 pages, "), "\(run.stderr)")

        let one = Self.drf(count: 95)
        let sequential = try await InProcessRun(
            Self.auto + ["--parallel", "1", "-o", scratch.path("one")], transport: ConcurrencyProbe(one),
            endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(sequential.status == .success)
        #expect(offsets(one) == Array(stride(from: 0, to: 100, by: 10)))
        #expect(try scratch.read("one") == scratch.read("out"))
    }

    @Test("A first page at the bare endpoint is not guessed from: ?p=2 then ?p=3 are page numbers, not offsets")
    func autoNoGuess() async throws {
        // Two notes a page, and the first page's URL has no p: p=2 could be an offset of 2 or page 2.
        let memory = MemoryTransport { request, _ in
            let page =
                URLComponents(string: request.url)?.queryItems?.first { $0.name == "p" }?.value
                .flatMap { Int($0) } ?? 1
            guard page <= 6 else { return .status(404) }
            let notes = (2 * page - 2..<2 * page).map(SchemeAPI.note).joined(separator: ",")
            let next = page < 6 ? "\"\(SchemeAPI.endpoint)?p=\(page + 1)\"" : "null"
            return .json(#"{"next":\#(next),"results":[\#(notes)]}"#)
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.auto + ["--parallel", "4", "-o", scratch.path("out")], transport: memory)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<12))
        // Pages past the last answer 404, as Django REST framework's page numbers do: nothing of them counts.
        #expect(run.messages.hasPrefix("12 notes, 6 pages, "), "\(run.stderr)")
    }

    @Test("Link rel=next page numbers (GitHub) go in parallel under --paginate link too")
    func linkPageNumbers() async throws {
        let memory = SchemeAPI(count: 95).transport(style: "page")
        let probe = ConcurrencyProbe(memory, pause: 0.05)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            ["--all", "--paginate", "link", "--parallel", "4", "-o", scratch.path("out")], transport: probe,
            endpoint: SchemeAPI.endpoint + "?page=1")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
        #expect(probe.most >= 2, "pages went one at a time")
        let pages = memory.requests.compactMap { request in
            URLComponents(string: request.url)?.queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) }
        }
        #expect(pages.filter { $0 <= 10 }.sorted() == Array(1...10), "\(pages)")
    }

    @Test("A server whose next URLs change their pattern mid-walk is a clear error naming both pages, not a gap")
    func autoPatternChanges() async throws {
        // Page 4 (offset 30) names offset 50 next: the pages fetched ahead (offset 40) are not the server's.
        let memory = Self.drf(count: 95) { offset in
            offset == 30 ? "\(SchemeAPI.endpoint)?limit=10&offset=50" : nil
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            Self.auto + ["--parallel", "4", "-o", scratch.path("out")], transport: memory,
            endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(
                "Error: page 4 (\(SchemeAPI.endpoint)?limit=10&offset=30): the page is followed by \(SchemeAPI.endpoint)?limit=10&offset=50, not \(SchemeAPI.endpoint)?limit=10&offset=40 as fetched ahead: the server's next pages changed their pattern; use --parallel 1\n"
            ), "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<30))
    }

    @Test("Killed while auto's pages are in flight, then resumed: the state holds the URL, every note once")
    func autoKillAndResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments =
            Self.auto + ["--parallel", "4", "-o", scratch.path("out"), "--state", scratch.path("state")]
        let killed = try await InProcessRun(
            arguments, transport: Self.drf(count: 95, slow: [50]), kill: SimulatedKill(page: 5, step: .state),
            endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(killed.status == .ioError)
        let second = Self.drf(count: 95)
        let probe = ConcurrencyProbe(second, pause: 0.05)
        let resumed = try await InProcessRun(arguments, transport: probe, endpoint: SchemeAPI.endpoint + "?limit=10")
        #expect(resumed.status == .success, "\(resumed.stderr)")
        #expect(offsets(second).first == 50)
        #expect(offsets(second).filter { $0 < 100 }.sorted() == Array(stride(from: 50, to: 100, by: 10)))
        #expect(probe.most >= 2, "the resumed walk went one page at a time")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(0..<95))
    }
}

/// Parameter names with brackets (JSON:API's `page[offset]`, `page[number]`), given as options: each page's
/// URL carries them percent-encoded, one lane or four, and nothing traps.
@Suite("Bracketed parameter names in every scheme")
struct BracketedParameterTests {
    /// `count` notes by `page[offset]`/`page[limit]` or `page[number]`/`page[size]`, read decoded.
    static func api(count: Int) -> MemoryTransport {
        MemoryTransport { request, _ in
            let items = URLComponents(string: request.url)?.queryItems ?? []
            func value(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
            guard request.url.contains("%5B"), !request.url.contains("[") else { return .status(400) }
            let size = value("page[limit]") ?? value("page[size]") ?? 10
            let start = value("page[offset]") ?? ((value("page[number]") ?? 1) - 1) * size
            let notes = (start..<min(count, start + size)).map(SchemeAPI.note).joined(separator: ",")
            return .json(#"{"meta": {"total": \#(count)}, "data": [\#(notes)]}"#)
        }
    }

    @Test(
        "--offset-param 'page[offset]' and --page-param 'page[number]': every note once, one lane or four",
        arguments: [
            ["--paginate", "offset", "--offset-param", "page[offset]", "--limit-param", "page[limit]"],
            ["--paginate", "page", "--page-param", "page[number]", "--page-size-param", "page[size]"],
        ], [1, 4])
    func bracketed(options: [String], parallel: Int) async throws {
        let transport = Self.api(count: 45)
        let run = try await InProcessRun(
            ["--all", "--page-size", "10", "--items-path", "data", "--format", "ids", "--parallel", "\(parallel)"]
                + options, transport: transport)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(run.stdout == (0..<45).map { "n\($0)\n" }.joined())
        #expect(transport.requests.count == 5, "\(transport.requests.map(\.url))")
    }
}
