public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// `?offset=K&limit=L`: the next page starts where the server's next reference says, else one page size on.
///
/// Pages are never taken as the last because they are short: a server may send fewer notes than asked (it
/// caps the size, or hides some). The page size is what the walk's first page showed (``learned(from:)``),
/// and the walk ends at an empty page, at the total the server announces, or where its next reference
/// (the body's next value, `Link` `rel="next"`) ends.
public struct OffsetPagination: Pagination {
    public var offsetParameter: String
    public var limitParameter: String
    /// Notes per page to ask for.
    public var limit: Int
    /// Where the total is in the body (e.g. `count`); when `nil`, the common places (`count`, `total`,
    /// `meta.total`, …).
    /// `X-Total-Count` is read either way.
    public var totalPath: FieldPath?
    /// Notes per page as the server sends them, once a first page showed fewer than ``limit``.
    public var serverPageSize: Int?

    public init(
        offsetParameter: String = "offset", limitParameter: String = "limit", limit: Int, totalPath: FieldPath?,
        serverPageSize: Int? = nil
    ) {
        self.offsetParameter = offsetParameter
        self.limitParameter = limitParameter
        self.limit = limit
        self.totalPath = totalPath
        self.serverPageSize = serverPageSize
    }

    public var description: String { "offset (\(offsetParameter), \(limitParameter)=\(limit))" }
    public var fieldPaths: [FieldPath] { totalPath.map { [$0] } ?? TotalPaths.common }
    public func total(of page: PageFacts) -> Int? { page.total(path: totalPath, orCommon: true)?.value }

    /// How far one page moves the offset.
    private var step: Int { serverPageSize ?? limit }

    public func start(endpoint: URL) -> PageLocation {
        .offset(PageLocator.integer(offsetParameter, in: endpoint.absoluteString) ?? 0)
    }

    public func location(cursor: String) -> PageLocation? {
        Int(cursor).flatMap { $0 >= 0 ? .offset($0) : nil }
    }

    /// `nil` past the largest integer (a start that is negative, from the endpoint's URL, included).
    public func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .offset(let first) = start else { return nil }
        let (product, overflow) = index.multipliedReportingOverflow(by: step)
        let (offset, past) = first.addingReportingOverflow(product)
        return overflow || past ? nil : .offset(offset)
    }

    public var pageSize: Int? { step }

    /// `nil` when the notes from `start` to the total are more than an integer holds (a start far below
    /// zero), or the step is not positive.
    public func lastIndex(after first: PageFacts, start: PageLocation) -> Int? {
        guard case .offset(let offset) = start, step > 0, let total = total(of: first) else { return nil }
        guard total > offset else { return 0 }
        let (remaining, overflow) = total.subtractingReportingOverflow(offset)
        return overflow ? nil : (remaining - 1) / step
    }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        guard case .offset(let offset) = location else {
            return PageLocator.url(for: location, endpoint: endpoint, cursorParameter: "cursor")
        }
        return PageLocator.setting([(offsetParameter, "\(offset)"), (limitParameter, "\(limit)")], on: endpoint)
    }

    public var learnsFromFirstPage: Bool { serverPageSize == nil }

    /// The scheme with the server's page size fixed: the first page's count when it is shorter than asked,
    /// else the size asked, so that no later short page moves the offsets.
    public func learned(from first: PageFacts) -> (any Pagination)? {
        let count = first.summary.noteCount
        guard serverPageSize == nil, count > 0 else { return nil }
        var learned = self
        learned.serverPageSize = min(count, limit)
        return learned
    }

    public func recognition(after page: PageFacts, endpoint: URL) -> String? {
        let count = page.summary.noteCount
        guard serverPageSize == nil, count > 0, count < limit, (try? next(after: page, endpoint: endpoint)) != nil
        else { return nil }
        return "Pagination: the server sends \(count) a page (\(limit) asked)"
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        guard case .offset(let offset) = page.location else { return nil }
        let count = page.summary.noteCount
        // A first page shorter than asked shows the server's page size.
        let step = serverPageSize ?? (count > 0 && count < limit ? count : limit)
        let (following, overflow) = offset.addingReportingOverflow(step)
        if overflow { throw PaginationError("the offset after \(offset) is past the largest integer") }
        let total = page.total(path: totalPath, orCommon: true)
        switch page.nextReference {
        case .some(let reference):
            // Where the server's own next reference says, when it names the offset.
            guard let named = PageLocator.integer(offsetParameter, in: reference) else { return .offset(following) }
            guard named > offset else {
                throw PaginationError("the next reference names offset \(named), not one after \(offset)")
            }
            return .offset(named)
        case .none:
            if let total, following < total.value {
                throw PaginationError(
                    "the page says it is the last, at offset \(offset), but \(total.source) says \(total.value) notes")
            }
            return nil
        case .unknown:
            if let total {
                if count == 0 && offset < total.value {
                    throw PaginationError(
                        "an empty page at offset \(offset), but \(total.source) says \(total.value) notes")
                }
                return following >= total.value ? nil : .offset(following)
            }
            // Without a total, the end is a page with nothing new: empty, or (skipping duplicates) a server
            // that answers every offset with the same notes.
            return count == 0 || page.summary.skippedCount == count ? nil : .offset(following)
        }
    }
}
