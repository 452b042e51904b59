import NotesPage
import Synchronization

/// A lane's next page, begun while the page before it is finished: once a page's body has come and the
/// next page's request went out early, the lane gives that response's head and first chunks to a
/// reception of its own before it replays the rest of the page (``PageReception/beginAhead()``). The next
/// page's parse starts on the second thread while the first's last events are handled, its notes
/// committed and the next attempt made; the attempt of an equal request takes the reception over.
///
/// Until then the page is only bytes on the second thread: no note, no id in the run's set, no error, no
/// request made from it. An attempt for anything else abandons it, as the fetcher's end does.
final class AheadPage: @unchecked Sendable {
    private struct Begun {
        let request: HTTPRequest
        let page: PageConfiguration
        let ids: IDSet
        let reception: PageReception
    }

    private let lock = Mutex(())
    private var begun: Begun?

    /// Keeps `reception`, begun for `request` with the page configuration `page` and the id set `ids`.
    /// A page kept before is abandoned.
    func keep(_ reception: PageReception, for request: HTTPRequest, page: PageConfiguration, ids: IDSet) {
        let before = lock.withLock { _ in
            defer { begun = Begun(request: request, page: page, ids: ids, reception: reception) }
            return begun
        }
        before?.reception.abandon()
    }

    /// The reception begun for an attempt at `request` read as `page` into `ids`, if that is the page
    /// kept; whatever else was kept is abandoned. Either way nothing is kept after.
    func take(for request: HTTPRequest, page: PageConfiguration, ids: IDSet) -> PageReception? {
        guard let taken = removeKept() else { return nil }
        if taken.request == request, taken.page == page, taken.ids === ids { return taken.reception }
        taken.reception.abandon()
        return nil
    }

    /// Abandons the page kept, if any.
    func abandon() {
        removeKept()?.reception.abandon()
    }

    /// The page kept, if any, no longer kept.
    private func removeKept() -> Begun? {
        lock.withLock { _ in
            defer { begun = nil }
            return begun
        }
    }
}
