import NotesPage

/// Where a walk starts counting its pages and where it stops short of the end.
public struct WalkSpan: Sendable, Hashable {
    /// The start's number in the run: more than 1 when a run resumes.
    public var firstNumber: Int
    /// Stop after this many pages, if set.
    public var maxPages: Int?
    /// Stop after the page that brings the run's notes to this many, if set.
    public var maxNotes: Int?

    public init(firstNumber: Int = 1, maxPages: Int? = nil, maxNotes: Int? = nil) {
        self.firstNumber = firstNumber
        self.maxPages = maxPages
        self.maxNotes = maxNotes
    }
}

/// Where a walk starts and what bounds it: what each of the fetcher's walks hands on to the one that
/// takes over (the rest of a walk after its first page, the switch to pages in parallel).
struct WalkPlan {
    var start: PageLocation
    /// The start's number in the run (more than 1 when resuming).
    var firstNumber: Int
    /// The run's id set.
    let ids: IDSet
    /// Page URLs seen in the run, for cycle detection.
    let visited: IDSet
    /// Pages the walk may still fetch, if bounded.
    var maxPages: Int?
    /// Notes after which the walk stops at the end of a page, if bounded.
    var maxNotes: Int?
    let cancellation: CancellationFlag

    /// The plan for the pages from `next`, once `pages` pages holding `notes` notes were walked.
    func rest(from next: PageLocation, after pages: Int, notes: Int) -> WalkPlan {
        WalkPlan(
            start: next, firstNumber: firstNumber + pages, ids: ids, visited: visited,
            maxPages: maxPages.map { $0 - pages }, maxNotes: maxNotes.map { $0 - notes }, cancellation: cancellation)
    }
}
