public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// RFC 8288 `Link` headers: the target of `rel="next"`.
public struct LinkPagination: Pagination {
    public init() {}

    public var description: String { "link (rel=\"next\")" }
    public var readsNextValue: Bool { false }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        PageLocator.url(for: location, endpoint: endpoint, cursorParameter: "cursor")
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        page.link("next").map(PageLocation.url)
    }

    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? {
        addressedByURL(after: page, endpoint: endpoint)
    }

    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        for header in head.values(of: "Link") {
            if let target = PageLocator.link("next", in: header) {
                return .url(PageLocator.resolve(target, against: url) ?? target)
            }
        }
        return nil
    }
}
