import NotesFetch
import NotesFetchTesting
import NotesPage
import Observation
import Synchronization
import Testing

@testable import NotesScreen

@Suite("The first page: loading, loaded, empty, failed, session expired")
@MainActor
struct FirstPageTests {
    @Test("The fixture page shows one row, identified by the note's id")
    func onePageOneRow() async throws {
        let server = Server([endpoint: .json(onePage)])
        let (model, log) = model(server.transport)
        #expect(model.phase == .idle)
        await model.load().value
        #expect(log.summaries == ["loading", "[n1]"])
        guard case .loaded(let rows, .end) = model.phase else {
            Issue.record("expected one page and no more, got \(model.phase)")
            return
        }
        #expect(rows.map(\.id) == ["n1"])
        #expect(rows.map(\.title) == ["one"])
        #expect(server.requested == [endpoint])
    }

    @Test(
        "An empty page shows the empty state, not an endless spinner",
        arguments: ["[]", #"{"notes":[],"next_cursor":null}"#]
    )
    func empty(_ page: String) async {
        let server = Server([endpoint: .json(page)])
        let (model, log) = model(server.transport)
        await model.load().value
        #expect(model.phase == .empty)
        #expect(log.summaries == ["loading", "empty"])
    }

    @Test(
        "A broken first page fails with a retry offered; once the server is fixed, retry() loads it",
        arguments: [
            BrokenPage("HTTP 500", .status(500)),
            BrokenPage("an HTML page with 200", contractFixture("html-body.html")),
            BrokenPage("invalid JSON", contractFixture("invalid-json.json")),
            BrokenPage("a missing id", contractFixture("missing-id.json")),
            BrokenPage("duplicate ids", contractFixture("duplicate-id.json")),
        ]
    )
    func failureThenRetry(_ broken: BrokenPage) async throws {
        let server = Server([endpoint: broken.response])
        let (model, log) = model(server.transport)
        await model.load().value
        let failure = try #require(model.phase.failure, "\(broken.testDescription): \(model.phase)")
        #expect(model.phase == .failed(failure))
        #expect(failure.canRetry)
        #expect(failure.error.page == 1)
        #expect(!failure.reason.isEmpty)

        server[endpoint] = .json(onePage)
        await model.retry().value
        #expect(log.summaries == ["loading", "failed (try again)", "loading", "[n1]"])
        #expect(server.requested == [endpoint, endpoint])
    }

    @Test("500 is retried as configured, without sleeping, before the screen shows the failure")
    func unavailableAfterRetries() async throws {
        let server = Server([endpoint: .status(503)])
        let (model, _) = model(server.transport, retries: 2)
        await model.load().value
        let failure = try #require(model.phase.failure)
        #expect(failure.error.code == .unavailable("HTTP 503"))
        #expect(failure.canRetry)
        #expect(server.requested.count == 3)
    }

    @Test(
        "401 and 403 end in session expired after exactly one request, never retried on their own; loadMore() does nothing",
        arguments: [401, 403])
    func sessionExpired(_ status: Int) async {
        let server = Server([endpoint: .status(status)])
        let (model, log) = model(server.transport, retries: 4)
        await model.load().value
        #expect(model.phase == .sessionExpired)
        #expect(server.transport.requests.count == 1)
        #expect(!model.canSignIn, "no sign-in was given")

        await model.loadMore().value
        await model.signIn().value
        #expect(log.summaries == ["loading", "session expired"])
        #expect(server.transport.requests.count == 1)
    }

    @Test("A page over this client's limit fails for good: no retry is offered, and retry() does nothing")
    func overLimit() async throws {
        let head = HTTPResponseHead(
            status: 200,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Length", "999999999")]
        )
        let server = Server([endpoint: .reply(head, chunks: [Array(onePage.utf8)])])
        let (model, log) = model(server.transport)
        await model.load().value
        let failure = try #require(model.phase.failure)
        #expect(!failure.canRetry)
        await model.retry().value
        #expect(log.summaries == ["loading", "failed (final)"])
        #expect(server.requested.count == 1)
    }

    @Test("load() starts only once: later calls return without a request")
    func loadOnce() async {
        let server = Server([endpoint: .json(onePage)])
        let (model, log) = model(server.transport)
        await model.load().value
        await model.load().value
        #expect(log.summaries == ["loading", "[n1]"])
        #expect(server.requested.count == 1)
    }

    @Test("Observers of the phase are told of each change (what SwiftUI relies on)")
    func observable() async {
        let server = Server([endpoint: .json(onePage)])
        let (model, _) = model(server.transport)
        let changes = Counter()
        withObservationTracking {
            _ = model.phase
        } onChange: {
            changes.increment()
        }
        let task = model.load()
        #expect(changes.value == 1)  // idle -> loading, synchronously
        withObservationTracking {
            _ = model.phase
        } onChange: {
            changes.increment()
        }
        await task.value
        #expect(changes.value == 2)  // loading -> loaded
    }

    @Test("Cancelling the task load() returned settles like cancel(): back to idle, not a failure")
    func callerCancels() async {
        let server = Server([endpoint: slow(onePage)])
        let (model, log) = model(server.transport)
        var started = server.started.makeAsyncIterator()
        let task = model.load()
        _ = await started.next()
        task.cancel()
        await task.value
        #expect(log.summaries == ["loading", "idle"])
    }
}

/// A response that breaks the first page, named for the test report.
struct BrokenPage: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var response: MemoryTransport.Response

    init(_ name: String, _ response: MemoryTransport.Response) {
        testDescription = name
        self.response = response
    }
}

/// Counts calls from observation callbacks, which are `@Sendable`.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
