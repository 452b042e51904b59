import Dispatch
public import NotesFetch
public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A walk whose pages are committed to a ``PageDestination``: the one way the command line, the notes
/// screen and tests commit a page.
///
/// Opening reads what the destination holds and decides what this run does: start, resume a run cut
/// short (after its last committed page, with its ids and visited pages), walk again over a complete
/// one (a copy refreshed, or an incremental sync asking from the highest value committed), or nothing
/// (``Opening/complete``). Each page the walk delivers is then committed with the checkpoint that
/// counts it.
///
/// ```swift
/// let destination = try SQLiteDestination(path: "notes.db")
/// let walk = try CommittedWalk(url: endpoint, pagination: pagination, destination: destination)
/// let fetcher = NotesFetcher(locator: walk.locator, configuration: configuration, transport: transport)
/// try await walk.run(fetcher: fetcher, from: pagination.start(endpoint: walk.endpoint))
/// ```
public final class CommittedWalk {
    /// What opening found, and so what this run does.
    public enum Opening: Sendable, Hashable {
        /// Nothing was there: a first run.
        case new
        /// A run cut short: this one goes on after its last committed page.
        case resumed
        /// A complete run: this one walks again (a refresh, or an incremental sync).
        case again
        /// A complete run, and a destination that does not walk again: nothing to do.
        case complete
    }

    public let destination: any PageDestination
    public let opening: Opening
    /// The endpoint as given: what the checkpoint records.
    public let url: URL
    /// The endpoint this run asks: ``url``, with the incremental sync's parameter when it sends one.
    public let endpoint: URL
    public let pagination: any Pagination
    public let incremental: IncrementalSync?
    /// The time window this walk is of, whose bounds each note is checked against (a sliced resource's).
    public let window: SliceWindow?
    /// The range of pages this walk is of (a worker's unit of a resource split into ranges): it starts at
    /// the range's first page and ends after its last, and its commits bring the ranges after it
    /// (``PageRange/following(lastPage:followed:)``).
    public let pages: PageRange?
    /// The ids committed in this run: the id set the walk's pages go through.
    public let ids: IDSet
    /// The ids a destination that cannot replace a record already holds (an NDJSON file's, from the runs
    /// before): an incremental sync's overlap, left out when it comes again; `nil` where records are
    /// replaced (SQLite) or no run came before.
    private let earlier: IDSet?
    /// The pages this run visited or was promised.
    public let visited: IDSet
    /// Where the walk stands: updated with each committed page.
    public private(set) var checkpoint: WalkCheckpoint
    /// A range's last page committed, when it held fewer notes than asked and was not the last: the page
    /// after it must be empty (``checkGrid(_:range:)``).
    private var shortPage: (number: Int, count: Int)?

    /// Opens `destination` for the walk of `url` with `pagination`.
    /// - Throws: ``StoreError`` when the destination cannot be read, belongs to another walk, or the
    ///   incremental sync cannot go on from what it holds.
    /// - Parameter startsOver: Walk again from the first page even over a run cut short (the notes screen,
    ///   which always shows the first page first); otherwise such a run is resumed.
    /// - Parameter pages: The range of pages this walk is of, and the worker run it is walked in: its
    ///   checkpoint's run. A checkpoint of another run is started over; one of this run goes on, or is
    ///   complete.
    public init(
        url: URL, pagination: any Pagination, destination: any PageDestination, incremental: IncrementalSync? = nil,
        window: SliceWindow? = nil, pages: (range: PageRange, run: Int)? = nil, startsOver: Bool = false
    ) throws(StoreError) {
        self.url = url
        self.window = window
        self.pages = pages?.range
        self.pagination = pagination
        self.destination = destination
        self.incremental = incremental
        var ids = IDSet()
        var visited = IDSet()
        let found = try destination.open(
            url: url.absoluteString, pagination: pagination.description, ids: ids, visited: visited)
        var checkpoint = found ?? WalkCheckpoint(url: url.absoluteString, pagination: pagination.description)
        // A range of another worker run (or none): this run's walk of it starts at its first page.
        let ofAnotherRun = pages.map { found?.runNumber != $0.run } ?? false
        if let run = pages?.run, ofAnotherRun {
            checkpoint = WalkCheckpoint(url: url.absoluteString, pagination: pagination.description)
            checkpoint.run = run
            ids = IDSet()
            visited = IDSet()
        }
        if let incremental, let since = checkpoint.since,
            since.path != incremental.path.description || since.parameter != incremental.parameter
        {
            throw StoreError(
                "this copy was synced with --since-path \(since.path) --since-param \(since.parameter), not --since-path \(incremental.path) --since-param \(incremental.parameter)"
            )
        }
        let opening: Opening
        switch found {
        case _ where found == nil || ofAnotherRun: opening = .new
        case let found? where !found.isDone && !startsOver: opening = .resumed
        case _ where pages != nil: opening = .complete
        case _ where destination.refreshesWhenComplete || incremental != nil || startsOver: opening = .again
        default: opening = .complete
        }
        if opening == .again {
            checkpoint = checkpoint.nextRun()
            visited = IDSet()  // the pages of the run before are no cycle of this one
        }
        if let incremental {
            var since =
                checkpoint.since
                ?? SinceState(path: incremental.path.description, parameter: incremental.parameter)
            if opening != .resumed {
                since.from = try since.highest.map { (highest) throws(StoreError) in
                    try incremental.from(highest: highest)
                }
            }
            checkpoint.since = since
            endpoint = incremental.endpoint(url, from: since.from)
        } else {
            endpoint = url
        }
        // An NDJSON sync after another: the file's ids are its overlap, and the run's own set starts empty
        // (a note the run sees twice is still the run's duplicate).
        if incremental != nil, !destination.refreshesWhenComplete, checkpoint.runNumber > 1 {
            earlier = ids
            ids = IDSet()
        } else {
            earlier = nil
        }
        self.opening = opening
        self.checkpoint = checkpoint
        self.ids = ids
        self.visited = visited
    }

    /// The locator of this run's pages: ``endpoint`` walked with ``pagination``.
    public var locator: PageLocator { PageLocator(endpoint: endpoint, pagination: pagination) }

    /// Whether notes the destination already holds are left out (counted as skipped) rather than written
    /// again: an NDJSON incremental sync after the first, whose overlap must not be written twice.
    public var absorbsOverlap: Bool { earlier != nil }

    /// Walks from `start` (or, resuming, from the checkpoint's next page), committing each page.
    ///
    /// Where the destination says so (``PageDestination/commitsWhileFetching``: SQLite), a page commits
    /// on a thread of its own while the next page is fetched: commits stay in order, one page at most is
    /// ahead of the last commit, and a commit that fails stops the walk at the next page (which may have
    /// been requested by then). Otherwise each page commits before the next is asked for.
    /// - Parameters:
    ///   - fetcher: Made with ``locator``.
    ///   - onPage: Called after each page is committed, with it and the checkpoint that counts it, on the
    ///     walk's thread.
    /// - Returns: The next page when the walk stopped at `maxPages` or `maxNotes`; `nil` at the end.
    /// - Throws: ``FetchError``: the walk's, or ``FetchError/Code/output(_:)`` when a commit fails (no
    ///   committed page is lost), or ``FetchError/Code/record(_:)`` for an incremental sync's field or a
    ///   note outside the walk's window.
    @discardableResult
    public func run(
        fetcher: NotesFetcher,
        from start: PageLocation,
        maxPages: Int? = nil,
        maxNotes: Int? = nil,
        cancellation: CancellationFlag = CancellationFlag(),
        onPage: (FetchedPage, WalkCheckpoint) -> Void = { _, _ in }
    ) async throws(FetchError) -> PageLocation? {
        guard opening != .complete else { return nil }
        var from = opening == .resumed ? (checkpoint.next ?? start) : start
        if let pages, opening != .resumed {
            // The range's pages alone, from its first: the scheme addresses them (checked where made).
            guard let first = fetcher.locator.pagination.location(pages.first - 1, after: start) else {
                throw FetchError(
                    .pagination("\(pages.key): these pages cannot be addressed ahead"), page: pages.first,
                    location: start)
            }
            from = first
        }
        let locator = fetcher.locator
        let ahead = destination.commitsWhileFetching ? CommitThread() : nil
        var pending: PendingCommit?
        /// Waits for the page committing on the thread, and says it was committed.
        func settle() throws(FetchError) {
            guard let committing = pending else { return }
            pending = nil
            if let failure = committing.wait() { throw failure }
            onPage(committing.page, checkpoint)
        }
        var stop: PageLocation?
        do throws(FetchError) {
            while true {
                stop = try await fetcher.walk(
                    from: from,
                    ids: ids,
                    visited: visited,
                    span: WalkSpan(
                        firstNumber: (pages?.first ?? 1) + checkpoint.pages,
                        maxPages: pages.map { min(maxPages ?? .max, $0.count - checkpoint.pages) } ?? maxPages,
                        maxNotes: maxNotes),
                    cancellation: cancellation,
                    body: commitPage)
                // A range whose first page put the last page before the range's end, and whose pages went on
                // past it (the total grew meanwhile): walked on from its next page, to the range's end.
                guard let pages, stop == nil else { break }
                try settle()
                guard let next = checkpoint.next, checkpoint.pages < pages.count else { break }
                from = next
            }
        } catch {
            // The page before the failure is committed (or its own failure, the earlier one, is said).
            try settle()
            throw error
        }
        try settle()
        // A range that reached its last page is walked to its end, whatever follows it.
        return pages != nil && checkpoint.isDone ? nil : stop

        func commitPage(_ page: FetchedPage) async throws(FetchError) {
            if ahead != nil { destination.prepare(page) }
            try settle()
            if let ahead {
                let walk = UnsafeTransfer(self)
                pending = ahead.commit(page) { () throws(FetchError) in
                    try walk.value.commit(page, locator: locator)
                }
            } else {
                try commit(page, locator: locator)
                onPage(page, checkpoint)
            }
        }
    }

    /// Checks that a page of a range keeps to the grid the ranges are laid on: the page after it is the one
    /// the scheme addresses next, and, with offsets, the page holds as many notes as asked unless it is the
    /// last (a server that sends fewer, its own page size, would leave holes between the ranges). A short page
    /// is the last when the server's total says so, or when the page after it is empty.
    private func checkGrid(_ page: FetchedPage, range: PageRange) throws(FetchError) {
        func refuse(_ reason: String) -> FetchError {
            FetchError(
                .pagination(
                    reason
                        + ": ranges of pages are laid on the pages of the size asked; give the size the server sends (page-size)"
                ), page: page.number, location: page.location)
        }
        if let offsets = pagination as? OffsetPagination, case .offset(let offset) = page.location {
            let count = page.noteCount + page.skippedCount
            if let short = shortPage, count > 0 {
                throw refuse(
                    "page \(short.number) held \(short.count) notes, not the \(offsets.limit) asked, and the page after it has more"
                )
            }
            shortPage = nil
            if count < offsets.limit, page.next != nil {
                if let total = page.total, offset + count < total {
                    throw refuse(
                        "\(count) notes at offset \(offset), not the \(offsets.limit) asked, where the server announces \(total)"
                    )
                }
                // The last page, or the server's own page size: the page after it says which.
                shortPage = (page.number, count)
                return
            }
        }
        if let next = page.next, let expected = pagination.location(1, after: page.location), next != expected {
            throw refuse("the page is followed by \(next), not \(expected)")
        }
    }

    /// Commits one page fetched outside ``run(fetcher:from:maxPages:maxNotes:cancellation:onPage:)``
    /// (the notes screen fetches a page at a time), its ids already committed in ``ids``' page.
    public func commit(_ page: FetchedPage, locator: PageLocator) throws(FetchError) {
        try window?.check(page)
        var kept = page
        if let earlier {
            kept.notes = page.notes.filter { note in !note.idBytes.withUnsafeBytes { earlier.contains($0) } }
            kept.skippedCount += page.notes.count - kept.notes.count
            kept.noteCount = kept.notes.count
        }
        var next = checkpoint
        next.add(kept)
        var nextIdentity = page.next.map { locator.identity(for: $0) }
        if let pages {
            try checkGrid(page, range: pages)
            // Its first page says where the last page is, if it says (the first range's, and every
            // maxBrought-th's: each brings the next maxBrought ranges at most); its last page ends it, and
            // brings the next range when a page follows.
            let bringsAll = (pages.first - 1) / pages.count % PageRange.maxBrought == 0
            let lastPage =
                next.pages == 1 && bringsAll
                ? page.facts.flatMap { pagination.lastIndex(after: $0, start: page.location) }.flatMap {
                    let (last, overflow) = pages.first.addingReportingOverflow($0)
                    return overflow ? nil : last
                }
                : nil
            let ends = next.pages >= pages.count
            if ends {
                next.next = nil
                nextIdentity = nil
            }
            #if canImport(CPostgres)
                (destination as? PostgresDestination)?.bringing = pages.following(
                    lastPage: lastPage, followed: ends && page.next != nil)
            #endif
        }
        if let incremental {
            // Every note of the page counts, those already kept too: an edit raises the highest value.
            let highest = try incremental.highest(next.since?.highest, after: page)
            next.since?.highest = highest
        }
        do {
            try destination.commit(kept, checkpoint: next, nextIdentity: nextIdentity)
        } catch  where error.kind == .record {
            throw FetchError(.record(error.description), page: page.number, location: page.location)
        } catch {
            throw FetchError(.output(error), page: page.number, location: page.location)
        }
        checkpoint = next
    }
}

/// The thread a destination's commits run on while the walk fetches the next page.
private final class CommitThread: Sendable {
    private let queue = DispatchQueue(label: "notes-store.commit")

    /// Starts committing `page` with `work`.
    func commit(_ page: FetchedPage, _ work: @escaping @Sendable () throws(FetchError) -> Void) -> PendingCommit {
        let pending = PendingCommit(page)
        queue.async { pending.finish(Result { () throws(FetchError) in try work() }) }
        return pending
    }
}

/// A page committing on the ``CommitThread``.
private final class PendingCommit: @unchecked Sendable {
    // `outcome` is written once on the commit thread before `done` is signalled, read after the wait.
    let page: FetchedPage
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Void, FetchError> = .success(())

    init(_ page: FetchedPage) {
        self.page = page
    }

    func finish(_ result: Result<Void, FetchError>) {
        outcome = result
        done.signal()
    }

    /// Blocks until the commit ended (the walk's thread waits here: at most one page is ahead).
    /// - Returns: Its failure, if it failed.
    func wait() -> FetchError? {
        done.wait()
        if case .failure(let error) = outcome { return error }
        return nil
    }
}
