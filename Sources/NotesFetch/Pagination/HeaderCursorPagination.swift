public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A cursor in a response header (`X-Next-Cursor`), sent back as a query parameter; a header that holds a
/// URL (Kinto's `Next-Page`: a scheme, or a leading `/`) is followed as it is.
public struct HeaderCursorPagination: Pagination {
    public var header: String
    public var cursorParameter: String

    public init(header: String, cursorParameter: String = "cursor") {
        self.header = header
        self.cursorParameter = cursorParameter
    }

    public var description: String { "header (\(header), \(cursorParameter))" }
    public var readsNextValue: Bool { false }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        PageLocator.url(for: location, endpoint: endpoint, cursorParameter: cursorParameter)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        earlyNext(head: page.head, nextValue: .unread, read: page.value(at:), url: page.url, endpoint: endpoint)
    }

    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        guard let value = head.value(of: header)?.trimming(" \t"), !value.isEmpty else { return nil }
        if value.hasPrefix("/") || PageLocator.hasScheme(value) {
            return .url(PageLocator.resolve(value, against: url) ?? value)
        }
        return .cursor(value)
    }
}
