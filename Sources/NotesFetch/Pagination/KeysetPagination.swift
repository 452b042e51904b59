public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Stripe's lists: the last note's id sent as `starting_after`; ends when `has_more` is false.
public struct KeysetPagination: Pagination {
    public var afterParameter: String
    public var hasMorePath: FieldPath
    public var limitParameter: String
    /// Notes per page, sent as `limitParameter` when set.
    public var pageSize: Int?

    public init(
        afterParameter: String = "starting_after", hasMorePath: FieldPath = FieldPath("has_more"),
        limitParameter: String = "limit", pageSize: Int?
    ) {
        self.afterParameter = afterParameter
        self.hasMorePath = hasMorePath
        self.limitParameter = limitParameter
        self.pageSize = pageSize
    }

    public var description: String { "keyset (\(afterParameter), \(hasMorePath))" }
    public var readsNextValue: Bool { false }
    public var fieldPaths: [FieldPath] { [hasMorePath] }

    public func location(cursor: String) -> PageLocation? { .after(cursor) }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        var parameters: [(String, String)] = []
        if let pageSize { parameters.append((limitParameter, "\(pageSize)")) }
        switch location {
        case .after(let id): parameters.append((afterParameter, id))
        case .start: break
        default: return PageLocator.url(for: location, endpoint: endpoint, cursorParameter: "cursor")
        }
        return parameters.isEmpty ? endpoint.absoluteString : PageLocator.setting(parameters, on: endpoint)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        switch page.value(at: hasMorePath) {
        case .bool(false): return nil
        case .bool(true):
            guard let last = page.summary.lastID else { return nil }
            return .after(String(decoding: last, as: UTF8.self))
        case nil:
            throw PaginationError("the page has no '\(hasMorePath)': --paginate keyset needs it (--has-more-path)")
        case let value?:
            throw PaginationError("'\(hasMorePath)' is \(value), not true or false")
        }
    }
}
