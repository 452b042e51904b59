public import NotesFetch

/// Where a walk stands after its last committed page: what a destination commits with each page, and
/// what a run started again reads to go on exactly once.
public struct WalkCheckpoint: Sendable, Hashable, Codable {
    /// The endpoint walked, as the user gave it (without an incremental sync's parameter).
    public var url: String
    /// The pagination scheme and its parameters (``Pagination/description``): a resumed run must walk the
    /// same way, since the next page is in the scheme's own terms.
    public var pagination: String
    /// The next page to fetch; `nil` when the run reached the last page.
    public var next: PageLocation?
    /// Pages committed in this run.
    public var pages = 0
    /// Notes committed in this run.
    public var notes = 0
    /// Bytes of page bodies downloaded in this run.
    public var bytes = 0
    /// Notes left out as duplicates (``DuplicatePolicy/skip``) in this run.
    public var skipped = 0
    /// The total the server last announced, if it did.
    public var total: Int?
    /// Bytes of page bodies on the wire (compressed, when the server compressed them).
    public var wireBytes: Int?
    /// The run: 1 for the first walk into a destination, one more for each walk started after a
    /// complete one (an incremental sync, or a refresh of a copy).
    public var run: Int?
    /// An incremental sync's values, when the walk is one.
    public var since: SinceState?
    /// A child walk's: the run of its parent's row it was made for (``ChildUnit/parentRun``).
    public var parentRun: Int?
    /// A child walk's: its parent record's digest (``ChildUnit/parentDigest``).
    public var parentDigest: String?

    public init(url: String, pagination: String) {
        self.url = url
        self.pagination = pagination
    }

    /// Whether the run reached its last page.
    public var isDone: Bool { next == nil && pages > 0 }

    /// The run's number (1 when not recorded).
    public var runNumber: Int { run ?? 1 }

    /// The checkpoint of a new run after this complete one: counters at zero, the sync's highest value kept.
    public func nextRun() -> WalkCheckpoint {
        var next = WalkCheckpoint(url: url, pagination: pagination)
        next.run = runNumber + 1
        next.since = since.map { SinceState(path: $0.path, parameter: $0.parameter, highest: $0.highest) }
        return next
    }

    /// Counts `page` in: what the checkpoint says once `page` is committed.
    public mutating func add(_ page: FetchedPage) {
        pages += 1
        notes += page.noteCount
        skipped += page.skippedCount
        total = page.total ?? total
        bytes += page.byteCount
        wireBytes = (wireBytes ?? 0) + page.wireBytes
        next = page.next
    }
}

/// An incremental sync's state: the field, the parameter, the highest value committed, and what this
/// run asked from.
public struct SinceState: Sendable, Hashable, Codable {
    /// The records' field (``IncrementalSync/path``), as given.
    public var path: String
    /// The query parameter that sends it.
    public var parameter: String
    /// The highest value committed so far, as JSON text (`"2026-11-30T08:00:00Z"` with its quotes, or
    /// `1764489600`); `nil` before the first record.
    public var highest: String?
    /// The value this run sent (``highest`` of the run before, less the lookback), as sent; `nil` when it
    /// sent none (the first sync).
    public var from: String?

    public init(path: String, parameter: String, highest: String? = nil, from: String? = nil) {
        self.path = path
        self.parameter = parameter
        self.highest = highest
        self.from = from
    }
}
