public import NotesFetch
public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A resource walked in time windows: half-open `[start, end)` ranges of a field of its records (when
/// each was created), each window its own walk of the resource with two query parameters that bound it
/// (`created__gte`, `created__lt`), so that a cursor chain that cannot be addressed ahead is walked in
/// parallel, one window a walk.
///
/// Windows lie on a grid of ``step`` from ``from``: `[from, from+step)`, `[from+step, from+2·step)`, …,
/// the last one ending at ``to`` or now. They cover the range with no gap and no overlap, so a record on
/// an edge is in exactly one window; each record a window's walk brings is checked to be inside it
/// (``SliceWindow/check(_:)``), so that a server that ignores the parameters is an error, never the same
/// records once per window. A later run adds the windows from where the last one ended, less
/// ``lookback`` (records a server commits late), and goes on with any window a stopped run left.
public struct TimeSlices: Sendable, Hashable {
    /// How the window's bounds are written in the query.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// `2020-01-01T00:00:00Z`.
        case rfc3339
        /// Seconds since 1970: `1577836800`.
        case unix
    }

    /// The records' field the windows are of, relative to each record.
    public var path: FieldPath
    /// The query parameter that carries a window's start (the records at or after it).
    public var lower: String
    /// The query parameter that carries its end (the records before it).
    public var upper: String
    /// Seconds a window spans.
    public var step: Int
    /// The first window's start, in seconds since 1970.
    public var from: Int
    /// The last window's end; `nil`: the time the run is planned.
    public var to: Int?
    /// Seconds a later run goes back before where the windows before it ended.
    public var lookback: Int
    public var format: Format

    /// The most windows one run plans: a step far too small for the range is a mistake, not a plan.
    public static let maxWindows = 100_000

    public init(
        path: FieldPath, lower: String, upper: String, step: Int, from: Int, to: Int? = nil, lookback: Int = 0,
        format: Format = .rfc3339
    ) {
        self.path = path
        self.lower = lower
        self.upper = upper
        self.step = step
        self.from = from
        self.to = to
        self.lookback = lookback
        self.format = format
    }

    /// A point in time as a source writes it: an RFC 3339 date-time in whole seconds, a date (its
    /// midnight, UTC), or seconds since 1970; `nil` for anything else.
    /// Years 1 to 9999 only, so that every window's key reads back.
    public static func seconds(_ text: String) -> Int? {
        let valid = -62_135_596_800...253_402_300_799
        if let seconds = Int(text), text.utf8.count <= 12 { return valid.contains(seconds) ? seconds : nil }
        let bytes = Array(text.utf8)
        if bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") {
            return SinceValue.parseRFC3339(text + "T00:00:00Z").map { Int($0) }.flatMap {
                valid.contains($0) ? $0 : nil
            }
        }
        guard let seconds = SinceValue.parseRFC3339(text), seconds == seconds.rounded(.down),
            Double(valid.lowerBound) <= seconds,
            seconds <= Double(valid.upperBound)
        else { return nil }
        return Int(seconds)
    }

    /// `seconds` as the query sends it.
    public func text(_ seconds: Int) -> String {
        format == .unix ? String(seconds) : SinceValue.rfc3339(Double(seconds))
    }

    /// `url` bounded to `window`: its two query parameters set to the window's start and end (replacing
    /// any the URL has); `nil` when that makes no URL.
    public func url(_ url: URL, bounded window: SliceWindow) -> URL? {
        URL(
            string: PageLocator.setting(
                [(lower, text(window.start)), (upper, text(window.end))], on: url.absoluteString))
    }

    /// The windows that cover `[start, end)`: from `start` to the next point of the grid, then one a step,
    /// the last ending at `end`.
    /// - Throws: ``StoreError`` for more than ``maxWindows``.
    public func windows(from start: Int, until end: Int) throws(StoreError) -> [SliceWindow] {
        guard start < end else { return [] }
        let count = (end - start) / step + 2
        guard count <= Self.maxWindows + 1 else {
            throw StoreError(
                "slicing \(path) into windows of \(step) s from \(SinceValue.rfc3339(Double(start))) to \(SinceValue.rfc3339(Double(end))) makes more than \(Self.maxWindows) windows: take a larger step"
            )
        }
        var windows: [SliceWindow] = []
        var lower = start
        while lower < end {
            // The next point of the grid after `lower` (floor division, for a start before `from`).
            let offset = lower - from
            let index = offset >= 0 ? offset / step : -((-offset + step - 1) / step)
            let upper = min(end, from + (index + 1) * step)
            windows.append(SliceWindow(path: path, start: lower, end: upper))
            lower = upper
        }
        return windows
    }

    /// The windows a run walks, given those the runs before it began (each with whether its walk reached
    /// its end): each one not walked to its end, as it was planned; windows for any part of the range that
    /// none covers (a window whose walk never began: its run stopped first, or it could not be opened);
    /// then new ones from where the last of them ended, less ``lookback``, to ``to`` or `now`, whichever
    /// comes first (a window never reaches past now: it would be counted walked before its records exist).
    public func plan(existing: [(window: SliceWindow, isDone: Bool)], now: Int) throws(StoreError) -> [SliceWindow] {
        let unfinished = existing.filter { !$0.isDone }.map(\.window).sorted { $0.start < $1.start }
        let end = min(to ?? now, now)
        let tail = existing.map(\.window.end).max().map { max(from, $0 - lookback) } ?? from
        // The parts of [from, tail) no window began with.
        var gaps: [SliceWindow] = []
        var covered = from
        for window in existing.map(\.window).sorted(by: { $0.start < $1.start }) {
            if window.start > covered { gaps += try windows(from: covered, until: min(window.start, tail)) }
            covered = max(covered, window.end)
        }
        let fresh = try windows(from: tail, until: end)
        return unfinished
            + (gaps + fresh).filter { window in
                !unfinished.contains { $0.start == window.start && $0.end == window.end }
            }
    }
}

/// One window of a ``TimeSlices`` resource: its own walk, its own checkpoint (under `TABLE@KEY`), its rows
/// in the resource's table with the window's ``key`` in their `slice` column.
public struct SliceWindow: Sendable, Hashable {
    /// The records' field the window is of.
    public var path: FieldPath
    /// Seconds since 1970: the first second in it, and the first after it.
    public var start: Int
    public var end: Int

    public init(path: FieldPath, start: Int, end: Int) {
        self.path = path
        self.start = start
        self.end = end
    }

    /// `START/END`, each an RFC 3339 date-time: the window's name in its checkpoint's key, in its rows and
    /// in a worker's unit.
    public var key: String { SinceValue.rfc3339(Double(start)) + "/" + SinceValue.rfc3339(Double(end)) }

    /// The window named `key` (``key``), or `nil`.
    public init?(path: FieldPath, key: String) {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = TimeSlices.seconds(String(parts[0])),
            let end = TimeSlices.seconds(String(parts[1])), start < end, String(parts[0]).contains("T")
        else { return nil }
        self.init(path: path, start: start, end: end)
    }

    /// The key of the window's checkpoint in table `table`: `TABLE@KEY`. A table's name holds no `@`, so
    /// that no window's key is another walk's.
    public static func walkKey(table: String, key: String) -> String {
        table + "@" + key
    }

    /// Checks that every note of `page` has the window's field, a timestamp (RFC 3339) or a number of
    /// seconds, inside the window.
    /// - Throws: ``FetchError`` (a contract error naming the note): the field missing, of another kind,
    ///   or outside the window (a server that does not keep to the window's parameters).
    public func check(_ page: FetchedPage) throws(FetchError) {
        try page.forEachField(at: path) { field, refuse throws(FetchError) in
            let seconds: Double
            switch SinceValue(field) {
            case .timestamp(_, let value)?: seconds = value
            case .number(let text)?:
                guard let value = Double(text) else { throw refuse("is the number \(text.prefix(40)), not seconds") }
                seconds = value
            default:
                throw refuse("is \(field.kindName), not a timestamp or a number of seconds")
            }
            guard seconds >= Double(start), seconds < Double(end) else {
                let shown = String(decoding: field.bytes.prefix(80), as: UTF8.self)
                throw refuse(
                    "is \(shown), outside the window \(key) that was asked for: the server did not keep to the window's parameters"
                )
            }
        }
    }
}

/// Whose walks a table holds: one endpoint's own walk, a child resource's (one per parent), or a resource
/// walked in parts: a sliced resource's (one per time window) or one split into ranges of pages (one per
/// range, ``PageRange``). A table is only ever one kind's.
enum WalkKind: Sendable, Hashable {
    case own, child, window

    init(unit: ChildUnit?, parted: Bool) {
        self = unit != nil ? .child : parted ? .window : .own
    }

    /// Why a walk of this kind cannot go into a table that holds `own` walks of its own, `children` child
    /// walks and `windows` window walks; `nil` when it can.
    func refusal(own: Int, children: Int, windows: Int) -> String? {
        switch self {
        case .own where children > 0: return "holds a child resource's notes (one walk per parent)"
        case .own where windows > 0:
            return "holds the notes of a resource walked in parts (one walk per time window or range of pages)"
        case .child where own > 0: return "holds the notes of one endpoint, not a child resource's"
        case .child where windows > 0: return "holds a sliced resource's notes, not a child resource's"
        case .window where own > 0:
            return
                "holds the notes of one endpoint walked whole, not in time windows (slice) or ranges of pages (pages-per-unit)"
        case .window where children > 0: return "holds a child resource's notes, not a sliced resource's"
        default: return nil
        }
    }
}
