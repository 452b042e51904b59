/// A range of an addressable resource's pages (offsets, page numbers) that one unit of a worker run walks
/// (`pages-per-unit` in a source): pages ``first`` to ``last``, counted from 1.
///
/// A run starts with the first range alone. Its first page says how many pages there are (a total), and
/// brings a unit for every range after it up to the last page, in the same transaction; a range whose last
/// page is followed by another brings the next range (a total that grew, or none announced). Each range is
/// its own walk, its rows in the resource's table with the range's ``key`` in `slice`, its checkpoint
/// under `TABLE@KEY` and tied to the worker run: a range of an earlier run is walked again from its start.
public struct PageRange: Sendable, Hashable {
    /// The first page, counted from 1.
    public var first: Int
    /// Pages in the range.
    public var count: Int

    /// The most ranges one page brings: the first range's first page brings the next `maxBrought`, and the
    /// first page of every `maxBrought`-th range after it the next `maxBrought` again.
    public static let maxBrought = 10_000

    public init(first: Int, count: Int) {
        self.first = first
        self.count = count
    }

    /// The last page of the range.
    public var last: Int { first + count - 1 }

    /// `pages FIRST-LAST`: the range's name in its checkpoint's key, in its rows and in a worker's unit.
    public var key: String { "pages \(first)-\(last)" }

    /// The range named `key` (``key``), or `nil`.
    public init?(key: String) {
        guard key.hasPrefix("pages ") else { return nil }
        let bounds = key.dropFirst("pages ".count).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2,
            bounds.allSatisfy({ !$0.isEmpty && $0.count <= 12 && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 1, last >= first
        else { return nil }
        self.init(first: first, count: last - first + 1)
    }

    /// The ranges a committed page of this one brings: given on its first page the last page of the
    /// resource (`lastPage`, when the page says), the ranges after this one up to it; on its last page, when
    /// a page follows it (`followed`), the next range. At most ``maxBrought``.
    public func following(lastPage: Int?, followed: Bool) -> [PageRange] {
        let end = max(lastPage ?? 0, followed ? last + 1 : 0)
        var ranges: [PageRange] = []
        var start = last + 1
        while start <= end, ranges.count < Self.maxBrought {
            ranges.append(PageRange(first: start, count: count))
            let (next, overflow) = start.addingReportingOverflow(count)
            if overflow { break }
            start = next
        }
        return ranges
    }
}
