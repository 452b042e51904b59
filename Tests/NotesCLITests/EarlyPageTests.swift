import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// Records when each request starts and ends, in order. With `hold`, the first page's exchange does not
/// end until the request named `hold` has started, so that an early request is seen whatever the load;
/// but for no more than ``grace`` once the concurrency pool is seen free, so that a run that never sends
/// it early fails in seconds (``missed`` says so), not at a bound on a hang.
final class EventLog: HTTPTransport {
    /// How long the hold waits for the early request while nothing keeps it from starting.
    static let grace = 2.0
    /// The hold's bound on a hang: the pool's threads busy (in a full test run) for all of this.
    static let patience = 300.0

    let inner: MemoryTransport
    private let hold: String?
    private let log = Mutex([String]())
    private let missedHold = Mutex<String?>(nil)
    private let started = DispatchSemaphore(value: 0)

    init(_ inner: MemoryTransport, hold: String? = nil) {
        self.inner = inner
        self.hold = hold
    }

    var events: [String] { log.withLock { $0 } }

    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        let name = URLComponents(string: request.url)?.query ?? "first"
        log.withLock { $0.append("start \(name)") }
        if name == hold { started.signal() }
        defer { log.withLock { $0.append("end \(name)") } }
        let completed = try inner.perform(request, receiver: receiver, cancellation: cancellation)
        if name == "first", let hold { awaitStart(of: hold) }
        return completed
    }

    /// Why the hold gave up on the early request, if it did.
    var missed: String? { missedHold.withLock { $0 } }

    /// Waits for the request `hold` to start. The early request starts as a task, which waits for a thread
    /// of the concurrency pool; tests that wait for a process can hold the pool's threads (one per core)
    /// for most of a full test run. So the hold gives up only once a task made after the early one has run
    /// at once (``poolIsFree(within:)``: nothing keeps the early request from starting) and ``grace`` has
    /// passed since; while the pool is busy it waits, up to ``patience``.
    private func awaitStart(of hold: String) {
        let bound = DispatchTime.now() + Self.patience
        while started.wait(timeout: .now() + Self.grace) == .timedOut {
            let free = poolIsFree(within: 1)
            guard free || DispatchTime.now() >= bound else { continue }
            if started.wait(timeout: .now() + Self.grace) == .success { return }
            let pool = free ? "the concurrency pool free" : "the concurrency pool busy for \(Int(Self.patience)) s"
            missedHold.withLock {
                $0 =
                    "no early request: \(hold) had not started \(Int(2 * Self.grace)) s after the first page's end, \(pool)"
            }
            return
        }
    }

    /// Whether the request for `second` started before the one for `first` ended.
    func overlapped(_ first: String, _ second: String) -> Bool {
        let events = events
        guard let started = events.firstIndex(of: "start \(second)"), let ended = events.firstIndex(of: "end \(first)")
        else { return false }
        return started < ended
    }
}

/// The next page requested while the current one still streams, where its reference comes early: a `Link`
/// or cursor header, or a next value before the notes.
@Suite("The next page requested early, in process")
struct EarlyPageTests {
    static let endpoint = FakeAPI.endpoint

    /// Three pages of two notes; page `slow` drips; `body` may replace a page's body.
    /// The three pages in Django REST framework's envelope, `next` before the notes or after them; `ids`
    /// gives each page's note numbers.
    static func drf(
        nextFirst: Bool, chunkSize: Int = 16, ids: @escaping @Sendable (Int) -> [Int] = { [$0 * 10, $0 * 10 + 1] }
    ) -> MemoryTransport {
        linked(
            chunkSize: chunkSize,
            header: { _ in nil },
            body: { page in
                let next = page < 3 ? #""\#(endpoint)?p=\#(page + 1)""# : "null"
                let notes = ids(page).map(SchemeAPI.note).joined(separator: ",")
                return nextFirst
                    ? #"{"next":\#(next),"results":[\#(notes)]}"# : #"{"results":[\#(notes)],"next":\#(next)}"#
            })
    }

    static func linked(
        slow: Int = 1,
        chunkSize: Int = 16,
        header: (Int) -> HTTPHeader? = { page in
            page < 3 ? HTTPHeader("Link", #"<\#(endpoint)?p=\#(page + 1)>; rel="next""#) : nil
        }, body: (@Sendable (Int) -> String?)? = nil
    ) -> MemoryTransport {
        let headers = (1...3).map(header)
        return MemoryTransport { request, _ in
            let page = Int(URLComponents(string: request.url)?.queryItems?.first { $0.name == "p" }?.value ?? "1") ?? 0
            guard (1...3).contains(page) else { return .status(404) }
            let text =
                body?(page)
                ?? "[\((0..<2).map { SchemeAPI.note(page * 10 + $0) }.joined(separator: ","))]"
            let reply = MemoryTransport.Response.json(
                text, headers: headers[page - 1].map { [$0] } ?? [], chunkSize: chunkSize)
            if page == slow, case .reply(let head, let chunks) = reply {
                return .drip(head, chunks: chunks, pause: 0.01)
            }
            return reply
        }
    }

    @Test("A Link header starts the next request while the page streams; --no-early-requests waits for its end")
    func linkHeader() async throws {
        let early = EventLog(Self.linked(), hold: "p=2")
        let run = try await InProcessRun(["--all", "--paginate", "link", "--format", "ids"], transport: early)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(early.overlapped("first", "p=2"), "\(early.missed ?? "") \(early.events)")
        #expect(early.events.filter { $0.hasPrefix("start") }.count == 3)

        let late = EventLog(Self.linked())
        let waited = try await InProcessRun(
            ["--all", "--paginate", "link", "--no-early-requests", "--format", "ids"], transport: late)
        #expect(waited.status == .success)
        #expect(!late.overlapped("first", "p=2"), "\(late.events)")
    }

    @Test("A next value before the notes (Django REST framework) starts the next request while the notes stream")
    func nextBeforeNotes() async throws {
        let drf = EventLog(Self.drf(nextFirst: true), hold: "p=2")
        let run = try await InProcessRun(
            ["--all", "--items-path", "results", "--next-path", "next", "--format", "ids"], transport: drf)
        #expect(run.status == .success, "\(run.stderr)")
        #expect(drf.overlapped("first", "p=2"), "\(drf.missed ?? "") \(drf.events)")
    }

    @Test("A next value after the notes is not used early: the next request waits for the page's end")
    func nextAfterNotes() async throws {
        let contract = EventLog(Self.drf(nextFirst: false, chunkSize: 4096))
        let after = try await InProcessRun(
            ["--all", "--items-path", "results", "--next-path", "next", "--format", "ids"], transport: contract)
        #expect(after.status == .success)
        #expect(!contract.overlapped("first", "p=2"), "\(contract.events)")
    }

    @Test("A page requested early whose predecessor fails is dropped: nothing of it is written")
    func failingPredecessor() async throws {
        let transport = EventLog(
            Self.linked(body: { page in page == 1 ? #"[{"id":"a","title":""},{"id":"b","title":"" "# : nil }),
            hold: "p=2")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            ["--all", "--paginate", "link", "-o", scratch.path("out")], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix("Error: page 1 (the first page): document ended before it was complete (byte 44)\n"),
            "\(run.stderr)")
        #expect(transport.events.contains("start p=2"), "\(transport.missed ?? "") \(transport.events)")
        #expect(try scratch.read("out") == "")
    }

    @Test("A page requested early that repeats an id is charged to itself, after the page before it")
    func duplicateInEarlyPage() async throws {
        let transport = Self.linked(body: { page in
            page == 2 ? #"[\#(SchemeAPI.note(21)),\#(SchemeAPI.note(10))]"# : nil
        })
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await InProcessRun(
            ["--all", "--paginate", "link", "-o", scratch.path("out")], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(
                #"Error: page 2 (\#(Self.endpoint)?p=2): duplicate id "n10", seen on page 1 (note 1)"#),
            "\(run.stderr)")
        #expect(try scratch.read("out") == SchemeAPI.ndjson(10..<12))
        // With --format none the page requested early still builds its notes: its ids reach the run's set
        // from them.
        let none = try await InProcessRun(["--all", "--paginate", "link", "--format", "none"], transport: transport)
        #expect(none.status == .dataError)
        #expect(
            none.messages.hasPrefix(
                #"Error: page 2 (\#(Self.endpoint)?p=2): duplicate id "n10", seen on page 1 (note 1)"#),
            "\(none.stderr)")
    }

    @Test("A cycle is still caught when the looping page was requested early")
    func cycle() async throws {
        let looping = Self.linked(header: { page in
            HTTPHeader("Link", #"<\#(Self.endpoint)?p=\#(page == 2 ? 2 : page + 1)>; rel="next""#)
        })
        let run = try await InProcessRun(["--all", "--paginate", "link", "-o", "/dev/null"], transport: looping)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(
                "Error: page 2 (\(Self.endpoint)?p=2): the server sent a next page already visited in this run"),
            "\(run.stderr)")
    }

    @Test("A next value after the notes is not used early: a duplicate on the next page still names its byte")
    func duplicateKeepsItsByte() async throws {
        let transport = Self.drf(nextFirst: false, chunkSize: 4096) { page in
            page == 2 ? [21, 10] : [page * 10, page * 10 + 1]
        }
        let run = try await InProcessRun(
            ["--all", "--items-path", "results", "--next-path", "next", "-o", "/dev/null"], transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.messages.hasPrefix(
                #"Error: page 2 (\#(Self.endpoint)?p=2): duplicate id "n10", seen on page 1 (note 1, byte 50)"#),
            "\(run.stderr)")
    }
}
