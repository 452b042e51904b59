import NotesFetch
import Testing

@testable import NotesScreen

/// A load that was cancelled or superseded never changes the phase: every test asserts over the whole
/// sequence of phases the model showed, after the old load has ended.
@Suite("No stale state: cancel, refresh and generations")
@MainActor
struct StaleLoadTests {
    @Test("The reader leaves during a slow first page: back to idle, and the old response never shows")
    func cancelSlowFirstPage() async {
        let server = Server([endpoint: slow(body(["old"]))])
        let probe = ProbeTransport(server.transport)
        let (model, log) = model(probe)
        var started = server.started.makeAsyncIterator()
        let old = model.load()
        _ = await started.next()
        model.cancel()
        await old.value
        #expect(log.summaries == ["loading", "idle"])
        #expect(probe.cancelled == [endpoint])  // the request was told to stop at its next chunk
        #expect(server.requested.count == 1)

        server[endpoint] = .json(body(["new"]))
        await model.load().value
        #expect(log.summaries == ["loading", "idle", "loading", "[new]"])
    }

    @Test("Refresh during a slow first page: only the new response shows")
    func refreshSlowFirstPage() async {
        let server = Server([endpoint: slow(body(["old"]))])
        let probe = ProbeTransport(server.transport)
        let (model, log) = model(probe)
        var started = server.started.makeAsyncIterator()
        let old = model.load()
        _ = await started.next()
        server[endpoint] = .json(body(["new"]))
        let new = model.refresh()
        await new.value
        await old.value
        #expect(log.summaries == ["loading", "loading", "[new]"])
        #expect(server.requested == [endpoint, endpoint])
        #expect(probe.cancelled == [endpoint])  // the old request only
    }

    @Test("Refresh during a slow next page: the list starts over and the old page never shows")
    func refreshSlowNextPage() async {
        let server = Server([endpoint: .json(body(["a"], next: "p2")), page("p2"): slow(body(["old"]))])
        let probe = ProbeTransport(server.transport)
        let (model, log) = model(probe)
        var started = server.started.makeAsyncIterator()
        await model.load().value
        _ = await started.next()
        let old = model.loadMore()
        _ = await started.next()
        server[endpoint] = .json(body(["a", "b"]))
        await model.refresh().value
        await old.value
        #expect(log.summaries == ["loading", "[a] more", "[a] loading more", "loading", "[a b]"])
        #expect(probe.cancelled == [page("p2")])
    }

    @Test("A response that arrived whole just as the reader left is dropped on the main actor")
    func completeButStale() async {
        let server = Server([endpoint: .json(body(["old"]))])
        let transport = ProbeTransport(server.transport, holding: endpoint)
        let (model, log) = model(transport)
        var delivered = transport.delivered.makeAsyncIterator()
        let old = model.load()
        await delivered.next()  // the page is complete; the fetcher is about to return it
        model.cancel()
        transport.release()
        await old.value
        #expect(log.summaries == ["loading", "idle"])
    }

    @Test("A next page dropped after it arrived whole can be loaded again: its ids do not count as seen")
    func completeButStaleNextPage() async {
        let server = Server([endpoint: .json(body(["a"], next: "p2")), page("p2"): .json(body(["b"]))])
        let transport = ProbeTransport(server.transport, holding: page("p2"))
        let (model, log) = model(transport)
        var delivered = transport.delivered.makeAsyncIterator()
        await model.load().value
        let old = model.loadMore()
        await delivered.next()
        model.cancel()
        transport.release()
        await old.value
        await model.loadMore().value
        #expect(log.summaries == ["loading", "[a] more", "[a] loading more", "[a] more", "[a] loading more", "[a b]"])
        #expect(server.requested == [endpoint, page("p2"), page("p2")])
    }

    @Test("A response that arrived whole just as the reader refreshed is dropped; the refresh wins")
    func completeButRefreshed() async {
        let server = Server([endpoint: .json(body(["old"]))])
        let transport = ProbeTransport(server.transport, holding: endpoint)
        let (model, log) = model(transport)
        var delivered = transport.delivered.makeAsyncIterator()
        let old = model.load()
        await delivered.next()
        server[endpoint] = .json(body(["new"]))
        let new = model.refresh()
        transport.release()
        await old.value
        await new.value
        #expect(log.summaries == ["loading", "loading", "[new]"])
    }

    @Test("A next page asked for again while the dropped one is still finishing waits for it, then loads")
    func reloadWhileStaleFinishes() async {
        let server = Server([endpoint: .json(body(["a"], next: "p2")), page("p2"): .json(body(["b"]))])
        let transport = ProbeTransport(server.transport, holding: page("p2"))
        let (model, log) = model(transport)
        var delivered = transport.delivered.makeAsyncIterator()
        await model.load().value
        let old = model.loadMore()
        await delivered.next()
        model.cancel()
        let new = model.loadMore()
        await Task.yield()  // the new load runs up to its first suspension; the old has not committed its ids
        transport.release()
        await old.value
        await new.value
        #expect(log.summaries == ["loading", "[a] more", "[a] loading more", "[a] more", "[a] loading more", "[a b]"])
        #expect(server.requested == [endpoint, page("p2"), page("p2")])
    }

    @Test("A model released mid-load cancels its request")
    func released() async {
        let server = Server([endpoint: slow(onePage)])
        let probe = ProbeTransport(server.transport)
        var started = server.started.makeAsyncIterator()
        let log = PhaseLog()
        var model: NotesScreenModel? = NotesScreenModel(fetcher: fetcher(probe))
        model!.onPhaseChange = { log.phases.append($0) }
        weak let released = model
        let task = model!.load()
        _ = await started.next()
        model = nil
        #expect(released == nil, "the load in flight keeps the model alive")
        await task.value
        #expect(probe.cancelled == [endpoint])  // the model's deinit told the request to stop
        #expect(log.summaries == ["loading"])  // nothing of the old load was applied
    }
}
