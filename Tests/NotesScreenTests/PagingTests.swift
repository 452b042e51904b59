import Foundation
import NotesFetch
import NotesPage
import Testing

@testable import NotesScreen

@Suite("Infinite scrolling: loadMore(), a failed page, retry() of that page only")
@MainActor
struct PagingTests {
    /// Three pages: `a b`, `c`, `d`.
    static func threePages() -> Server {
        Server([
            endpoint: .json(body(["a", "b"], next: "p2")),
            page("p2"): .json(body(["c"], next: "p3")),
            page("p3"): .json(body(["d"])),
        ])
    }

    @Test("loadMore() across three pages, then nothing more to load")
    func threePagesInOrder() async {
        let server = Self.threePages()
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        await model.loadMore().value
        await model.loadMore().value  // at the end: no request
        #expect(
            log.summaries == [
                "loading", "[a b] more", "[a b] loading more", "[a b c] more", "[a b c] loading more", "[a b c d]",
            ])
        #expect(server.requested == [endpoint, page("p2"), page("p3")])
    }

    @Test("loadMore() while a page is loading does not start another")
    func loadMoreOnce() async {
        let server = Self.threePages()
        let (model, _) = model(server.transport)
        await model.load().value
        let first = model.loadMore()
        let second = model.loadMore()
        await first.value
        await second.value
        #expect(server.requested == [endpoint, page("p2")])
    }

    @Test("Page 2 fails: page 1 stays with a retry of page 2 only, and retry() fetches page 2, not page 1")
    func failedSecondPage() async throws {
        let server = Self.threePages()
        server[page("p2")] = .status(500)
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        let failure = try #require(model.phase.failure)
        #expect(failure.canRetry)
        #expect(failure.error.page == 2)
        #expect(failure.error.location == .cursor("p2"))

        server[page("p2")] = .json(body(["c"], next: "p3"))
        await model.retry().value
        await model.loadMore().value
        #expect(
            log.summaries == [
                "loading", "[a b] more", "[a b] loading more", "[a b] failed (try again)", "[a b] loading more",
                "[a b c] more", "[a b c] loading more", "[a b c d]",
            ])
        #expect(server.requested == [endpoint, page("p2"), page("p2"), page("p3")])
    }

    @Test("loadMore() after a failed page does not retry it: only retry() does")
    func loadMoreAfterFailure() async {
        let server = Self.threePages()
        server[page("p2")] = .status(500)
        let (model, _) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        await model.loadMore().value
        #expect(server.requested == [endpoint, page("p2")])
    }

    @Test("An id of page 1 again on page 2 fails page 2 as a duplicate; page 1 stays")
    func duplicateAcrossPages() async throws {
        let server = Self.threePages()
        server[page("p2")] = .json(body(["c", "a"], next: "p3"))
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        let failure = try #require(model.phase.failure)
        guard case .contract(let error) = failure.error.code.base else {
            Issue.record("expected a contract error, got \(failure.error)")
            return
        }
        #expect(error.code == .duplicateID(firstPage: 0))
        #expect(log.summaries.last == "[a b] failed (try again)")

        server[page("p2")] = .json(body(["c"], next: "p3"))  // the page's own ids were taken back
        await model.retry().value
        #expect(log.summaries.last == "[a b c] more")
    }

    @Test("A next page that leads back to a page already shown is a cycle: refused, with no retry")
    func cycle() async throws {
        let server = Self.threePages()
        server[page("p2")] = .json(body(["c"], next: "p2"))
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        let failure = try #require(model.phase.failure)
        #expect(failure.error.code == .cycle)
        await model.retry().value
        #expect(log.summaries.last == "[a b] failed (final)")
        #expect(server.requested == [endpoint, page("p2")])
    }

    @Test("refresh() starts over with a new id set: the same notes again are not duplicates")
    func refresh() async {
        let server = Self.threePages()
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        await model.refresh().value
        #expect(
            log.summaries == ["loading", "[a b] more", "[a b] loading more", "[a b c] more", "loading", "[a b] more"])
        #expect(server.requested == [endpoint, page("p2"), endpoint])
    }

    @Test("A session that expires on page 2 ends in session expired: no retry loop; retry() after it starts over")
    func sessionExpiresLater() async {
        let server = Self.threePages()
        server[page("p2")] = .status(401)
        let (model, log) = model(server.transport, retries: 4)
        await model.load().value
        await model.loadMore().value
        #expect(log.summaries == ["loading", "[a b] more", "[a b] loading more", "session expired"])
        #expect(server.requested == [endpoint, page("p2")])
        // The app signed in again: the walk starts over from the first page, not from page 2.
        await model.retry().value
        #expect(log.summaries.suffix(2) == ["loading", "[a b] more"])
        #expect(server.requested == [endpoint, page("p2"), endpoint])
    }

    @Test("An empty first page with a next cursor is not the empty state: there is more to load")
    func emptyPageWithMore() async {
        let server = Self.threePages()
        server[endpoint] = .json(body([], next: "p2"))
        let (model, log) = model(server.transport)
        await model.load().value
        await model.loadMore().value
        #expect(log.summaries == ["loading", "[] more", "[] loading more", "[c] more"])
    }

    @Test("The screen follows any pagination scheme: offsets from the first page on, the same rules")
    func offsetScheme() async {
        let server = Server([
            // No next value: an offset walk goes on to an empty page (`next_cursor: null` would end it).
            "\(endpoint)?offset=0&limit=2": .json(#"{"notes": [{"id": "a", "title": ""}, {"id": "b", "title": ""}]}"#),
            "\(endpoint)?offset=2&limit=2": .json(#"{"notes": [{"id": "c", "title": ""}, {"id": "d", "title": ""}]}"#),
            "\(endpoint)?offset=4&limit=2": .json(#"{"notes": [{"id": "e", "title": ""}]}"#),
            "\(endpoint)?offset=5&limit=2": .json(#"{"notes": []}"#),
        ])
        let model = NotesScreenModel(
            fetcher: NotesFetcher(
                locator: PageLocator(
                    endpoint: URL(string: endpoint)!, pagination: OffsetPagination(limit: 2, totalPath: nil)),
                transport: server.transport,
                environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 })))
        let log = PhaseLog()
        model.onPhaseChange = { log.phases.append($0) }
        await model.load().value
        await model.loadMore().value
        await model.loadMore().value
        await model.loadMore().value
        #expect(log.summaries.last == "[a b c d e]")
        #expect(server.requested.count == 4)
    }
}
