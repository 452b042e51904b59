import NotesPage
import NotesSystem

/// The page after the current one, requested as soon as its reference is known, while the current page
/// still streams: at most one page ahead.
///
/// The walk makes page `n` current, then fetches it (or takes it from here, if it was requested early).
/// A page's reference to the next, read early from its head or body, starts the next page's request only
/// while that page is current, so never more than one page is ahead. An early page decodes with an id set
/// of its own; the walk checks it against the run when it takes it, so it is dropped with its ids if the
/// page before it fails, or if the page before it ends up naming another next page.
final class EarlyPages: Sendable {
    private struct State {
        var current = 0
        /// The next page each page named early, by number.
        var named: [Int: PageLocation] = [:]
        /// Requests made early, by page number.
        var requests: [Int: (location: PageLocation, task: Task<Result<FetchedPage, FetchError>, Never>)] = [:]
        var stopped = false
    }

    private let state = Locked(State())
    /// The identities of the pages the walk has visited (``visit(_:)``): none is requested early, since
    /// the walk refuses a page that leads back to one (a cycle costs no request). A set of its own,
    /// behind its lock: the walk's set is touched only on lane 0's thread, and early pages start on
    /// others.
    private let visited = Locked(Set<String>())
    private let phase: WalkPhase
    /// The highest page number to request, if bounded.
    private let lastNumber: Int?
    private let cancellation: CancellationFlag

    init(phase: WalkPhase, lastNumber: Int?, cancellation: CancellationFlag) {
        self.phase = phase
        self.lastNumber = lastNumber
        self.cancellation = cancellation
    }

    /// What page `number` calls when its next reference is known.
    func earlyHandler(for number: Int) -> @Sendable (PageLocation) -> Void {
        { [self] next in
            state.withLock { state in
                state.named[number] = next
                if state.current == number { start(after: number, at: next, in: &state) }
            }
        }
    }

    /// Page `number` is the one the walk waits for now; if it already named the next page, that one starts.
    func makeCurrent(_ number: Int) {
        state.withLock { state in
            state.current = number
            state.named = state.named.filter { $0.key >= number }
            if let next = state.named[number] { start(after: number, at: next, in: &state) }
        }
    }

    /// The early request for page `number`, if there is one for `location`; one for elsewhere is dropped.
    func take(_ number: Int, at location: PageLocation) -> Task<Result<FetchedPage, FetchError>, Never>? {
        let request = state.withLock { $0.requests.removeValue(forKey: number) }
        guard let request else { return nil }
        guard request.location == location else {
            request.task.cancel()
            return nil
        }
        return request.task
    }

    /// The walk has visited the page `identity` names (``PageLocator/identity(for:)``).
    func visit(_ identity: String) {
        visited.withLock { _ = $0.insert(identity) }
    }

    /// Cancels every early request; none starts after this.
    func stop() {
        let tasks = state.withLock { state in
            state.stopped = true
            return state.requests.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    private func start(after number: Int, at location: PageLocation, in state: inout State) {
        let following = number + 1
        guard !state.stopped, state.requests[following] == nil, lastNumber.map({ following <= $0 }) ?? true,
            !cancellation.isCancelled, PageLocator.urlProblem(self.phase.locator.url(for: location)) == nil
        else { return }
        let identity = self.phase.locator.identity(for: location)
        guard !visited.withLock({ $0.contains(identity) }) else { return }
        let early = earlyHandler(for: following)
        let phase = phase
        let task = Task { () -> Result<FetchedPage, FetchError> in
            do throws(FetchError) {
                let page = try await phase.fetchPage(
                    location, number: following, ids: IDSet(capacity: 1024), cancellation: CancellationFlag(),
                    lane: 1 + following % 2, lookahead: Lookahead(nextPage: early))
                return .success(page)
            } catch {
                return .failure(error)
            }
        }
        state.requests[following] = (location, task)
    }
}

/// How far ahead of a page its walk reaches while the page streams: never past the next page.
struct Lookahead: Sendable {
    /// Told the next page as soon as the page's head or a next value before its items names it: the walk
    /// requests that page early on another lane (``EarlyPages``).
    var nextPage: (@Sendable (PageLocation) -> Void)?
    /// With the walk's visited pages: the next request goes out on the page's own lane as soon as the
    /// page's bytes name the next page, unless the walk has visited it.
    var nextRequestUnlessVisited: VisitedPages?

    /// Nothing ahead: the next page is asked for once this one has ended.
    static let none = Lookahead()
}

/// The walk's visited pages, for the next request made from a page's bytes (``NextValuePeek``): read only
/// on lane 0's thread, where a walk in sequence and its pages run, so never while the walk writes it.
struct VisitedPages: @unchecked Sendable {
    private let set: IDSet

    init(_ set: IDSet) { self.set = set }

    func contains(_ identity: String) -> Bool { set.contains(identity) }
}
