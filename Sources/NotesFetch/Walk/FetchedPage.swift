import Dispatch
internal import NotesJSON
public import NotesPage

/// A page fetched, decoded and checked: its notes are complete and their ids are in the run's set.
public struct FetchedPage: Sendable {
    /// 1-based number of the page in the run.
    public var number: Int
    public var location: PageLocation
    /// The page's notes, in order; empty where the page configuration keeps none
    /// (``PageConfiguration/keepsNotes``): ``noteCount`` counts them still.
    public var notes: [Note]
    /// How many notes the page brought (duplicates skipped not counted), whether or not they are in
    /// ``notes``.
    public var noteCount: Int
    /// Where the next page is; `nil` on the last page.
    public var next: PageLocation?
    /// Bytes of the body.
    public var byteCount: Int
    /// Requests made for the page, redirects not counted.
    public var attempts: Int
    /// Bytes of the body on the wire (compressed, when the server compressed it), or 0 when unknown.
    public var wireBytes: Int = 0
    /// Notes left out as duplicates (``DuplicatePolicy/skip``).
    public var skippedCount: Int = 0
    /// The notes the server says the collection holds, when it says.
    public var total: Int?
    /// What the page told about the walk.
    public var facts: PageFacts?
}
