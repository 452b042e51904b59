import NotesFetch
import NotesPage

/// The pages of one session (from the first page to a refresh): the rows shown, the id set that keeps
/// them unique across pages, the page URLs seen (to refuse a cursor cycle), and where the next page is.
///
/// Owned by the model on the main actor; only ``SessionIDs`` crosses to the load that fetches a page.
struct PageSession {
    let locator: PageLocator
    /// The id set every page of the session goes through.
    private(set) var ids = SessionIDs(IDSet())
    private(set) var rows: [NoteRow] = []
    /// Pages applied so far.
    private(set) var pageCount = 0
    /// The URLs of the first page and of every next page promised so far.
    private var visited: Set<String>
    /// The page to fetch next, or again after it failed; `nil` after the last page.
    private(set) var next: PageLocation?

    init(locator: PageLocator) {
        self.locator = locator
        next = locator.start
        visited = [locator.identity(for: locator.start)]
    }

    /// Whether nothing is left to show: no notes and no next page.
    var isEmpty: Bool { rows.isEmpty && next == nil }

    /// Adds a page fetched through ``ids``, committing its ids.
    /// - Parameter committing: Commits the page elsewhere first (the store); when it throws, the page is
    ///   not applied and its ids are taken back.
    /// - Throws: ``FetchError/Code/cycle`` when its next page is one already requested or promised; the
    ///   page is then not applied and its ids are taken back, as the command line refuses it whole.
    mutating func append(
        _ page: FetchedPage, committing: (FetchedPage) throws(FetchError) -> Void = { _ throws(FetchError) in }
    ) throws(FetchError) {
        let following = page.next.map { locator.identity(for: $0) }
        if let following, visited.contains(following) {
            ids.rollbackPage()
            throw FetchError(.cycle, page: page.number, location: page.location, attempts: page.attempts)
        }
        do {
            try committing(page)
        } catch {
            ids.rollbackPage()
            throw error
        }
        if let following { visited.insert(following) }
        ids.commitPage()
        rows.append(contentsOf: page.notes.map(NoteRow.init))
        pageCount += 1
        next = page.next
    }
}

/// A session's ``IDSet``, handed to the one load that fetches a page with it.
///
/// `@unchecked Sendable`: an `IDSet` is not for concurrent use, and the model guarantees one user at a
/// time: a load starts only after the previous load has ended, and the model reads the set only between
/// loads.
final class SessionIDs: @unchecked Sendable {
    private let ids: IDSet

    init(_ ids: IDSet) {
        self.ids = ids
    }

    /// Makes the ids of the page last fetched permanent.
    func commitPage() { ids.commitPage() }

    /// Takes back the ids of the page last fetched, which is not shown.
    func rollbackPage() { ids.rollbackPage() }

    /// Fetches one page through the set; its ids stay open until ``commitPage()`` or ``rollbackPage()``.
    func fetchPage(
        _ location: PageLocation,
        number: Int,
        with fetcher: NotesFetcher,
        cancellation: CancellationFlag
    ) async -> Result<FetchedPage, FetchError> {
        do {
            return .success(try await fetcher.fetchPage(location, number: number, ids: ids, cancellation: cancellation))
        } catch {
            return .failure(error)
        }
    }
}
