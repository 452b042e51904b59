public import Foundation
public import NotesFetch
import NotesPage
public import NotesStore
public import NotesURLSession
public import Observation

/// The notes screen without the drawing: which phase it is in, and the actions its view may take.
///
/// Pages come from a ``NotesFetcher``, with the same limits, content-type, id and uniqueness checks as
/// the command line; one id set spans the session's pages, so an id repeated on a later page fails.
///
/// **Generations.** Every load carries the generation it was started in. ``cancel()``, ``refresh()``,
/// ``retry()`` and every new load move to a new generation and cancel the previous load (its task and its
/// ``CancellationFlag``, so the request stops at the next chunk). A load applies its page on the main
/// actor only if its generation is still current: nothing a superseded load produces ever shows.
/// A new load starts fetching only after the previous one has ended.
///
/// **A store.** Given a ``SQLiteDestination``, the screen shows what it holds at once (offline too),
/// and each page fetched is committed into it before it shows, through the same ``CommittedWalk`` as
/// the command line's: the rows shown are the store's. A load that fails over cached rows shows the
/// rows and the failure.
///
/// ```swift
/// let model = NotesScreenModel(endpoint: URL(string: "https://api.example/notes")!)
/// await model.load().value   // .loaded, .empty, .failed or .sessionExpired
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class NotesScreenModel {
    /// What the screen shows.
    public private(set) var phase: NotesScreenPhase = .idle

    /// The client: endpoint, configuration, transport.
    @ObservationIgnored public let fetcher: NotesFetcher

    /// The app's sign-in, run by ``signIn()`` after the session expired: it shows whatever the app
    /// needs, puts the new token where the fetcher's ``TokenProvider`` reads it, and returns whether it
    /// did. The model never sees the token.
    @ObservationIgnored public let signInHook: (@MainActor () async -> Bool)?

    /// The copy the screen shows and refreshes into, if it keeps one.
    @ObservationIgnored public let store: SQLiteDestination?

    @ObservationIgnored private var session: PageSession
    /// The walk of this session's pages into ``store``.
    @ObservationIgnored private var walk: CommittedWalk?
    @ObservationIgnored private var generation = 0
    /// The last load started; a new one waits for it to end.
    @ObservationIgnored private var current: Load?
    /// Called after every change of ``phase``, in order (tests record the whole sequence with it).
    @ObservationIgnored var onPhaseChange: ((NotesScreenPhase) -> Void)?

    private struct Load: Sendable {
        let task: Task<Void, Never>
        let cancellation: CancellationFlag
    }

    /// What a load needs to fetch its page off the main actor.
    private struct PageRequest: Sendable {
        let ids: SessionIDs
        let location: PageLocation
        let number: Int
        let fetcher: NotesFetcher
    }

    /// - Parameters:
    ///   - fetcher: The client: its locator is the endpoint; its configuration's ``TokenProvider`` is
    ///     asked for the token before every request.
    ///   - store: The copy to show at once and to commit each page into; `nil` keeps none. The fetcher's
    ///     configuration must keep each note's JSON (``PageConfiguration/keepsJSON``).
    ///   - signIn: The app's sign-in, for ``signIn()``; without one, an expired session stays expired.
    public init(
        fetcher: NotesFetcher, store: SQLiteDestination? = nil, signIn: (@MainActor () async -> Bool)? = nil
    ) {
        self.fetcher = fetcher
        self.store = store
        self.signInHook = signIn
        session = PageSession(locator: fetcher.locator)
    }

    /// - Parameters:
    ///   - endpoint: The first page, e.g. `https://api.example/notes?limit=50`.
    ///   - cursorParameter: The query parameter that carries an opaque cursor; defaults to `cursor`.
    ///   - configuration: Limits, retries, headers, credentials; defaults to ``FetchConfiguration``'s defaults.
    ///   - transport: Defaults to ``defaultTransport()``: libcurl on Linux, URLSession on Apple platforms.
    ///   - environment: Clock, sleep and random source; defaults to ``FetchEnvironment/live``.
    ///   - signIn: The app's sign-in, for ``signIn()``.
    public convenience init(
        endpoint: URL,
        cursorParameter: String = "cursor",
        configuration: FetchConfiguration = FetchConfiguration(),
        transport: any HTTPTransport = defaultTransport(),
        environment: FetchEnvironment = .live,
        signIn: (@MainActor () async -> Bool)? = nil
    ) {
        let locator = PageLocator(endpoint: endpoint, cursorParameter: cursorParameter)
        self.init(
            fetcher: NotesFetcher(
                locator: locator, configuration: configuration, transport: transport, environment: environment),
            signIn: signIn)
    }

    deinit {
        current?.cancellation.cancel()
        current?.task.cancel()
    }

    // MARK: - Actions

    /// Loads the first page when nothing is shown yet (``NotesScreenPhase/idle``); otherwise does nothing.
    /// - Returns: The load, or the last one started; awaiting it waits for its page to be applied.
    @discardableResult
    public func load() -> Task<Void, Never> {
        guard case .idle = phase else { return lastTask }
        return startSession()
    }

    /// Loads the next page when there is one and nothing else is loading; otherwise does nothing.
    /// - Returns: The load, or the last one started.
    @discardableResult
    public func loadMore() -> Task<Void, Never> {
        guard case .loaded(let rows, .available) = phase else { return lastTask }
        show(.loaded(rows: rows, next: .loading))
        return start()
    }

    /// After a failure that offers it: fetches the failed page again, keeping the pages before it (or
    /// starts over when the first page failed). After the session expired (the app has signed in again):
    /// starts over, with the token the provider gives now. Otherwise does nothing.
    /// - Returns: The load, or the last one started.
    @discardableResult
    public func retry() -> Task<Void, Never> {
        switch phase {
        case .failed(let failure) where failure.canRetry:
            return startSession()
        case .sessionExpired:
            return startSession()
        case .loaded(let rows, .failed(let failure)) where failure.canRetry:
            show(.loaded(rows: rows, next: .loading))
        default:
            return lastTask
        }
        return start()
    }

    /// Whether ``signIn()`` can do anything: the session expired and the app gave a sign-in.
    public var canSignIn: Bool {
        guard case .sessionExpired = phase else { return false }
        return signInHook != nil
    }

    /// After the session expired: runs the app's sign-in, and when it says it signed in, ``retry()``.
    /// Otherwise does nothing.
    /// - Returns: The sign-in and the load after it.
    @discardableResult
    public func signIn() -> Task<Void, Never> {
        guard canSignIn, let signInHook else { return lastTask }
        let task = Task { @MainActor [weak self] in
            guard await signInHook() else { return }
            guard let self, case .sessionExpired = self.phase else { return }
            await self.retry().value
        }
        return task
    }

    /// Starts over from the first page with a new id set, cancelling whatever was loading.
    /// - Returns: The load.
    @discardableResult
    public func refresh() -> Task<Void, Never> {
        startSession()
    }

    /// Stops loading (the reader left the screen): the load in flight is cancelled and nothing it
    /// produces is applied. A first page not yet arrived goes back to ``NotesScreenPhase/idle``; a next
    /// page not yet arrived goes back to ``NextPageState/available``.
    public func cancel() {
        supersede()
        settleCancelled()
    }

    // MARK: - Loads

    private var lastTask: Task<Void, Never> { current?.task ?? Task {} }

    /// Starts over from the first page: a new session (and a new run into the store), showing the
    /// store's rows meanwhile.
    private func startSession() -> Task<Void, Never> {
        session = PageSession(locator: fetcher.locator)
        walk = nil
        if let store {
            do throws(StoreError) {
                guard fetcher.configuration.page.keepsJSON else {
                    throw StoreError(
                        "a store keeps each note's JSON: the fetcher's configuration must keep it (page.keepsJSON)")
                }
                walk = try CommittedWalk(
                    url: fetcher.locator.endpoint, pagination: fetcher.locator.pagination, destination: store,
                    startsOver: true)
            } catch {
                supersede()
                let failure = LoadFailure(FetchError(.output(error), page: 1, location: .start))
                let rows = storedRows()
                show(rows.isEmpty ? .failed(failure) : .loaded(rows: rows, next: .failed(failure)))
                return lastTask
            }
        }
        let rows = storedRows()
        show(rows.isEmpty ? .loading : .loaded(rows: rows, next: .loading))
        return start()
    }

    /// The rows to show: the store's when there is one, else the session's.
    private func storedRows() -> [NoteRow] {
        guard let store else { return session.rows }
        let rows = (try? store.rows()) ?? []
        return rows.map { NoteRow(Note(id: $0.id, title: $0.title ?? "", json: $0.json)) }
    }

    /// Moves to a new generation and cancels the load in flight, if any.
    /// - Returns: The new generation.
    @discardableResult
    private func supersede() -> Int {
        generation += 1
        current?.cancellation.cancel()
        current?.task.cancel()
        return generation
    }

    /// Starts a load of `session.next` in a new generation, after the previous load has ended.
    private func start() -> Task<Void, Never> {
        let generation = supersede()
        let previous = current?.task
        let cancellation = CancellationFlag()
        let task = Task { [weak self] in
            await previous?.value
            guard let request = self?.request(for: generation) else { return }
            let result = await request.ids.fetchPage(
                request.location, number: request.number, with: request.fetcher, cancellation: cancellation)
            guard let self else { return }
            self.apply(result, generation: generation, ids: request.ids)
        }
        current = Load(task: task, cancellation: cancellation)
        return task
    }

    /// What to fetch, or `nil` when `generation` was superseded while the previous load ended.
    private func request(for generation: Int) -> PageRequest? {
        guard generation == self.generation, let location = session.next else { return nil }
        return PageRequest(ids: session.ids, location: location, number: session.pageCount + 1, fetcher: fetcher)
    }

    /// Applies a load's outcome if its generation is still current; a page that is not applied has its
    /// ids taken back out of `ids`, the set it was fetched through.
    private func apply(_ result: Result<FetchedPage, FetchError>, generation: Int, ids: SessionIDs) {
        guard generation == self.generation else {
            if case .success = result { ids.rollbackPage() }
            return
        }
        do throws(FetchError) {
            let walk = walk
            let locator = fetcher.locator
            try session.append(result.get()) { page throws(FetchError) in try walk?.commit(page, locator: locator) }
            let rows = storedRows()
            if rows.isEmpty && session.next == nil {
                show(.empty)
            } else {
                show(.loaded(rows: rows, next: session.next == nil ? .end : .available))
            }
        } catch {
            switch error.kind {
            case .sessionExpired:
                show(.sessionExpired)
            case .cancelled:
                settleCancelled()  // the caller cancelled the task it was given
            default:
                let failure = LoadFailure(error)
                let rows = storedRows()
                show(
                    session.pageCount == 0 && rows.isEmpty
                        ? .failed(failure) : .loaded(rows: rows, next: .failed(failure)))
            }
        }
    }

    /// The phase a cancelled load leaves behind.
    private func settleCancelled() {
        switch phase {
        case .loading: show(.idle)
        case .loaded(let rows, .loading): show(.loaded(rows: rows, next: .available))
        default: break
        }
    }

    private func show(_ phase: NotesScreenPhase) {
        self.phase = phase
        onPhaseChange?(phase)
    }
}
