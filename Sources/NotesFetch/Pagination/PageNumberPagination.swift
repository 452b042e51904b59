public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// `?page=P&per_page=L`: page numbers. Ends at an empty page, at the `Link` header's `rel="last"` page, at
/// the total when the server announces one, or where its next reference ends; never at a page only because
/// it is short (a server may send fewer notes than asked: the page size is what the first page showed).
public struct PageNumberPagination: Pagination {
    public var pageParameter: String
    public var firstPage: Int
    public var pageSizeParameter: String
    /// Notes per page, sent as `pageSizeParameter` when set.
    public var pageSize: Int?
    /// Where the total is in the body (e.g. `count`); when `nil`, the common places (`count`, `total`,
    /// `meta.total`, …).
    public var totalPath: FieldPath?
    /// Notes per page as the server sends them, as the walk's first page showed.
    public var serverPageSize: Int?

    public init(
        pageParameter: String = "page", firstPage: Int = 1, pageSizeParameter: String = "per_page", pageSize: Int?,
        totalPath: FieldPath?, serverPageSize: Int? = nil
    ) {
        self.pageParameter = pageParameter
        self.firstPage = firstPage
        self.pageSizeParameter = pageSizeParameter
        self.pageSize = pageSize
        self.totalPath = totalPath
        self.serverPageSize = serverPageSize
    }

    public var firstPageNumber: Int { firstPage }

    public var description: String {
        "page (\(pageParameter) from \(firstPage)\(pageSize.map { ", \(pageSizeParameter)=\($0)" } ?? ""))"
    }
    public var fieldPaths: [FieldPath] { totalPath.map { [$0] } ?? TotalPaths.common }

    public func total(of page: PageFacts) -> Int? { page.total(path: totalPath, orCommon: true)?.value }

    public func start(endpoint: URL) -> PageLocation {
        .page(PageLocator.integer(pageParameter, in: endpoint.absoluteString) ?? firstPage)
    }

    public func location(cursor: String) -> PageLocation? {
        Int(cursor).flatMap { $0 >= firstPage ? .page($0) : nil }
    }

    /// `nil` past the largest integer (a start that is negative, from the endpoint's URL, included).
    public func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .page(let first) = start, pageSize != nil || serverPageSize != nil else { return nil }
        let (number, overflow) = first.addingReportingOverflow(index)
        return overflow ? nil : .page(number)
    }

    /// 0 when the `Link` header's `rel="last"` page is not after `start`, however far before it; `nil` when
    /// that page, or the total's last, is further from `start` than an integer holds: the walk then goes on
    /// until a page says it is the last.
    public func lastIndex(after first: PageFacts, start: PageLocation) -> Int? {
        guard case .page(let number) = start else { return nil }
        if let last = first.link("last").flatMap({ PageLocator.integer(pageParameter, in: $0) }) {
            if last <= number { return 0 }
            let (index, overflow) = last.subtractingReportingOverflow(number)
            return overflow ? nil : index
        }
        guard let size = serverPageSize ?? pageSize, size > 0, let total = total(of: first) else { return nil }
        // Pages the total fills, less those before `start` (a total is never negative).
        let pages = total / size + (total % size == 0 ? 0 : 1)
        let (before, overflow) = number.subtractingReportingOverflow(firstPage)
        let (index, past) = (pages - 1).subtractingReportingOverflow(before)
        return overflow || past ? nil : max(0, index)
    }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        guard case .page(let number) = location else {
            return PageLocator.url(for: location, endpoint: endpoint, cursorParameter: "cursor")
        }
        var parameters = [(pageParameter, "\(number)")]
        if let pageSize { parameters.append((pageSizeParameter, "\(pageSize)")) }
        return PageLocator.setting(parameters, on: endpoint)
    }

    public var learnsFromFirstPage: Bool { serverPageSize == nil }

    public func learned(from first: PageFacts) -> (any Pagination)? {
        let count = first.summary.noteCount
        guard serverPageSize == nil, count > 0 else { return nil }
        var learned = self
        learned.serverPageSize = min(count, pageSize ?? count)
        return learned
    }

    public func recognition(after page: PageFacts, endpoint: URL) -> String? {
        let count = page.summary.noteCount
        guard serverPageSize == nil, let pageSize, count > 0, count < pageSize,
            (try? next(after: page, endpoint: endpoint)) != nil
        else { return nil }
        return "Pagination: the server sends \(count) a page (\(pageSize) asked)"
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        guard case .page(let number) = page.location else { return nil }
        let count = page.summary.noteCount
        guard number < Int.max else { throw PaginationError("the page number after \(number) is too large") }
        if let last = page.link("last").flatMap({ PageLocator.integer(pageParameter, in: $0) }) {
            return number >= last ? nil : .page(number + 1)
        }
        let size = serverPageSize ?? (count > 0 ? min(count, pageSize ?? count) : pageSize)
        let total = page.total(path: totalPath, orCommon: true)
        // Notes on the pages up to this one, at the server's page size; `nil` past what an integer holds
        // (a page number far from the first, from the endpoint's URL).
        let through: Int? = size.flatMap { size in
            let (before, overflow) = number.subtractingReportingOverflow(firstPage)
            let (pages, past) = before.addingReportingOverflow(1)
            let (notes, beyond) = size.multipliedReportingOverflow(by: pages)
            return overflow || past || beyond ? nil : notes
        }
        switch page.nextReference {
        case .some(let reference):
            guard let named = PageLocator.integer(pageParameter, in: reference) else { return .page(number + 1) }
            guard named > number else {
                throw PaginationError("the next reference names page \(named), not one after \(number)")
            }
            return .page(named)
        case .none:
            if let total, let through, through < total.value {
                throw PaginationError(
                    "the page says it is the last, at page \(number), but \(total.source) says \(total.value) notes")
            }
            return nil
        case .unknown:
            if let total, let through {
                let (beforeThis, overflow) = through.subtractingReportingOverflow(size ?? 0)
                if count == 0 && (overflow || beforeThis < total.value) {
                    throw PaginationError(
                        "an empty page at page \(number), but \(total.source) says \(total.value) notes")
                }
                return through >= total.value ? nil : .page(number + 1)
            }
            return count == 0 || page.summary.skippedCount == count ? nil : .page(number + 1)
        }
    }
}
