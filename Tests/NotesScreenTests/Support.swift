import Dispatch
import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import TestSupport

@testable import NotesScreen

let endpoint = "http://127.0.0.1:8080/notes"

/// The URL of the page a cursor names.
func page(_ cursor: String) -> String { "\(endpoint)?cursor=\(cursor)" }

/// A page of the contract with notes titled after their ids.
func body(_ ids: [String], next: String? = nil) -> String {
    let notes = ids.map { #"{"id": "\#($0)", "title": "title \#($0)"}"# }.joined(separator: ", ")
    return #"{"notes": [\#(notes)], "next_cursor": \#(next.map { "\"\($0)\"" } ?? "null")}"#
}

/// The fixture page: one note.
let onePage = #"{"notes": [{"id": "n1", "title": "one"}], "next_cursor": null}"#

/// A file of `Fixtures/contract`, served with the content type its extension implies.
func contractFixture(_ file: String) -> MemoryTransport.Response {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let bytes = Array(try! Files.data(root.appendingPathComponent("Fixtures/contract/\(file)")))
    let type = file.hasSuffix(".html") ? "text/html; charset=utf-8" : "application/json"
    return .reply(HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", type)]), chunks: [bytes])
}

/// A slow 200 JSON response: `body` one byte at a time with a pause of 10 ms before each, long enough
/// that the test always cancels it midway (it would take 100 s to finish: a test starved by a loaded
/// machine for seconds still cancels it in time). The padding follows the opening brace, so the page
/// cannot be complete before its last byte.
func slow(_ body: String) -> MemoryTransport.Response {
    let head = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
    let padded = String(body.prefix(1)) + String(repeating: " ", count: 10_000) + body.dropFirst()
    return .drip(head, chunks: padded.utf8.map { [$0] }, pause: 0.01)
}

/// An in-memory server: a response per URL (404 otherwise) that a test may change between requests,
/// and a stream that says when each request starts.
final class Server: Sendable {
    private let table: Routes
    /// The URL of each request, as it starts.
    let started: AsyncStream<String>
    let transport: MemoryTransport

    init(_ routes: [String: MemoryTransport.Response]) {
        let table = Routes(routes)
        let (started, starts) = AsyncStream.makeStream(of: String.self)
        self.started = started
        self.table = table
        transport = MemoryTransport { request, _ in
            starts.yield(request.url)
            return table.response(for: request.url)
        }
    }

    /// Changes what a URL answers from the next request on.
    subscript(url: String) -> MemoryTransport.Response? {
        get { table.response(for: url) }
        set { table.set(url, newValue) }
    }

    /// Every URL requested so far, in order.
    var requested: [String] { transport.requests.map(\.url) }
}

private final class Routes: Sendable {
    private let routes: Mutex<[String: MemoryTransport.Response]>

    init(_ routes: [String: MemoryTransport.Response]) {
        self.routes = Mutex(routes)
    }

    func response(for url: String) -> MemoryTransport.Response {
        routes.withLock { $0[url] } ?? .status(404)
    }

    func set(_ url: String, _ response: MemoryTransport.Response?) {
        routes.withLock { $0[url] = response }
    }
}

/// Wraps a transport to see what the model does to its requests: which ones ended with their
/// cancellation flag set, and, optionally, one request held back after its response was delivered in full
/// until the test releases it (the page is complete and about to be applied: when a stale load is most
/// dangerous).
final class ProbeTransport: HTTPTransport, @unchecked Sendable {
    private let inner: any HTTPTransport
    private let held: String?
    private let armed = Atomic<Bool>(true)
    private let gate = DispatchSemaphore(value: 0)
    private let signal: AsyncStream<Void>.Continuation
    private let cancelledLog = Mutex<[String]>([])
    /// Yields once, when the held response has been delivered.
    let delivered: AsyncStream<Void>

    /// - Parameters:
    ///   - inner: The transport that answers.
    ///   - url: The first request for this URL is held back; defaults to none.
    init(_ inner: any HTTPTransport, holding url: String? = nil) {
        self.inner = inner
        self.held = url
        (delivered, signal) = AsyncStream.makeStream(of: Void.self)
    }

    /// The URLs of the requests that ended with their cancellation flag set, in order.
    var cancelled: [String] { cancelledLog.withLock { $0 } }

    /// Lets the held request return.
    func release() { gate.signal() }

    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        defer {
            if cancellation.isCancelled { cancelledLog.withLock { $0.append(request.url) } }
        }
        let completed = try inner.perform(request, receiver: receiver, cancellation: cancellation)
        if request.url == held, armed.exchange(false, ordering: .relaxed) {
            signal.yield()
            gate.wait()
        }
        return completed
    }
}

/// A fetcher that never sleeps, with `retries` retries of a failing page.
func fetcher(_ transport: any HTTPTransport, retries: Int = 0) -> NotesFetcher {
    var configuration = FetchConfiguration()
    configuration.retries = retries
    return NotesFetcher(
        locator: PageLocator(endpoint: URL(string: endpoint)!),
        configuration: configuration,
        transport: transport,
        environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 })
    )
}

/// A model over `transport` with every phase it shows recorded, in order.
@MainActor
func model(_ transport: any HTTPTransport, retries: Int = 0) -> (NotesScreenModel, PhaseLog) {
    let model = NotesScreenModel(fetcher: fetcher(transport, retries: retries))
    let log = PhaseLog()
    model.onPhaseChange = { log.phases.append($0) }
    return (model, log)
}

@MainActor
final class PhaseLog {
    var phases: [NotesScreenPhase] = []
}

extension NotesScreenPhase {
    /// The failure shown, on the first page or after the rows.
    var failure: LoadFailure? {
        switch self {
        case .failed(let failure), .loaded(_, .failed(let failure)): return failure
        default: return nil
        }
    }

    /// The phase in a few words, for asserting over a whole sequence of phases.
    var summary: String {
        switch self {
        case .idle: return "idle"
        case .loading: return "loading"
        case .empty: return "empty"
        case .sessionExpired: return "session expired"
        case .failed(let failure): return "failed \(failure.canRetry ? "(try again)" : "(final)")"
        case .loaded(let rows, let next):
            let ids = rows.map(\.id).joined(separator: " ")
            switch next {
            case .end: return "[\(ids)]"
            case .available: return "[\(ids)] more"
            case .loading: return "[\(ids)] loading more"
            case .failed(let failure): return "[\(ids)] failed \(failure.canRetry ? "(try again)" : "(final)")"
            }
        }
    }
}

extension PhaseLog {
    var summaries: [String] { phases.map(\.summary) }
}
