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
    /// `rows.count` after each page applied, for rebuilding the id set page by page.
    private var pageEnds: [Int] = []
    /// The URLs of the first page and of every next page promised so far.
    private var visited: Set<String>
    /// The page to fetch next, or again after it failed; `nil` after the last page.
    private(set) var next: PageLocation?

    init(locator: PageLocator) {
        self.locator = locator
        next = locator.start
        visited = [locator.url(for: locator.start)]
    }

    /// Pages applied so far.
    var pageCount: Int { pageEnds.count }

    /// Whether nothing is left to show: no notes and no next page.
    var isEmpty: Bool { rows.isEmpty && next == nil }

    /// Adds a page the fetcher accepted (its ids are already in ``ids``).
    /// - Throws: ``FetchError/Code/cycle`` when its next page is one already requested or promised; the
    ///   page is then not applied, as the command line refuses it whole.
    mutating func append(_ page: FetchedPage) throws(FetchError) {
        if let following = page.next {
            let url = locator.url(for: following)
            guard visited.insert(url).inserted else {
                throw FetchError(.cycle, page: page.number, location: page.location, attempts: page.attempts)
            }
        }
        rows.append(contentsOf: page.notes.map(NoteRow.init))
        pageEnds.append(rows.count)
        next = page.next
    }

    /// Makes the id set hold exactly the ids of the pages applied.
    ///
    /// The fetcher commits a page's ids when the page succeeds, before the model decides to apply it; a
    /// page dropped after that (its load was superseded, or its next page was a cycle) leaves ids that
    /// would make the same page fail as a duplicate when it is fetched again. Then the set is rebuilt
    /// from the rows. Call only while no load of this session is running.
    mutating func reconcile() {
        guard ids.committedPages != pageEnds.count else { return }
        let rebuilt = IDSet(capacity: max(1024, rows.count))
        var start = 0
        for end in pageEnds {
            for row in rows[start..<end] { rebuilt.insert(row.id) }
            rebuilt.commitPage()
            start = end
        }
        ids = SessionIDs(rebuilt)
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

    /// Pages committed to the set.
    var committedPages: Int { ids.committedPages }

    /// Fetches one page through the set.
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
