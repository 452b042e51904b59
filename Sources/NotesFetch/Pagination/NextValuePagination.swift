public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The body's next value (`--next-path`): a URL followed as it is, or a cursor sent as a query parameter.
public struct NextValuePagination: Pagination {
    /// How a next value is read.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A value with a scheme or starting with `/` is a URL; anything else a cursor.
        case auto
        case cursor
        case url
    }

    public var cursorParameter: String
    public var kind: Kind

    public init(cursorParameter: String = "cursor", kind: Kind = .auto) {
        self.cursorParameter = cursorParameter
        self.kind = kind
    }

    public var description: String { "next (\(kind == .auto ? "cursor or URL" : kind.rawValue), \(cursorParameter))" }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        PageLocator.url(for: location, endpoint: endpoint, cursorParameter: cursorParameter)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        location(of: page.summary.nextCursor, pageURL: page.url)
    }

    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        guard nextValue != .unread else { return nil }
        return location(of: nextValue.text, pageURL: url)
    }

    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? {
        addressedByURL(after: page, endpoint: endpoint)
    }

    /// The page a next value names, or `nil` for none.
    func location(of value: String?, pageURL: String) -> PageLocation? {
        guard let value, !value.isEmpty else { return nil }
        let isURL: Bool
        switch kind {
        case .auto: isURL = value.hasPrefix("/") || PageLocator.hasScheme(value)
        case .cursor: isURL = false
        case .url: isURL = true
        }
        guard isURL else { return .cursor(value) }
        return .url(PageLocator.resolve(value, against: pageURL) ?? value)
    }
}
