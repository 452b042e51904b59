public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How an endpoint's pages follow one another: where the first page is, the URL of a page, and what a
/// page says about the next one. One type per scheme; a walk
/// (``NotesFetcher/walk(from:ids:visited:span:cancellation:body:)``) and the
/// notes screen follow any of them the same way.
///
/// A scheme's locations are ``PageLocation`` values in its own terms (a cursor, an offset, a page
/// number, an id to go on after), so a resumed run knows where it was whatever the scheme.
public protocol Pagination: Sendable, CustomStringConvertible {
    /// Values the page decoder reads for the scheme besides the items and the next value.
    var fieldPaths: [FieldPath] { get }
    /// The first page.
    func start(endpoint: URL) -> PageLocation
    /// The page `--cursor TEXT` names, or `nil` when the text cannot name one in this scheme.
    func location(cursor: String) -> PageLocation?
    /// The URL to request for `location`.
    func url(for location: PageLocation, endpoint: URL) -> String
    /// The page after `page`, or `nil` when `page` is the last.
    /// - Throws: ``PaginationError`` when the page says something the scheme cannot follow.
    func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation?
    /// What the walk recognised, said once after the first page (for `auto`), or `nil`.
    func recognition(after page: PageFacts, endpoint: URL) -> String?
    /// The notes the server says the collection holds, when it says.
    func total(of page: PageFacts) -> Int?
    /// The `index`-th page after `start` (0 is `start`), when pages can be addressed without reading the
    /// ones before (offsets, page numbers), so that they can be fetched in parallel; `nil` otherwise.
    func location(_ index: Int, after start: PageLocation) -> PageLocation?
    /// Notes on every page but the last, when pages are addressable: a page with fewer is the last.
    var pageSize: Int? { get }
    /// The index (after `start`) of the last page, when the first page says how many there are.
    func lastIndex(after first: PageFacts, start: PageLocation) -> Int?
    /// The next page as soon as a page's head, or its next value read before the end of the body, says
    /// where it is (a `Link` or cursor header, `next` before the notes), so that it can be requested early;
    /// `nil` while that is not known. It must agree with ``next(after:endpoint:)``; the walk checks.
    /// - Parameters:
    ///   - head: The page's response head.
    ///   - nextValue: What the body has said of its next value so far.
    ///   - read: What the page has at a field path so far (a GraphQL page's `hasNextPage`), or `nil`.
    ///   - url: The page's URL.
    ///   - endpoint: The walk's endpoint.
    func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation?
    /// The scheme for the pages after `page`, addressed ahead so that they can be fetched in parallel, when
    /// `page` shows that they can be (its next URL walks offsets or page numbers); `nil` otherwise.
    func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)?
    /// Whether the scheme reads the body's next value (so that a next path found on the page matters).
    var readsNextValue: Bool { get }
    /// Whether a next value left on the page a walk ends at says that more pages follow: `true` but for
    /// schemes that end by a flag and keep the last cursor (GraphQL's `hasNextPage` with `endCursor`).
    var nextValueSaysMore: Bool { get }
    /// The number of a walk's first page in the server's terms (`--first-page`): a page that says it is page
    /// `n` of `count` is the last when `n - firstPageNumber + 1` is `count`.
    var firstPageNumber: Int { get }
    /// Whether the scheme learns how the server pages from a walk's first page (``learned(from:)``): the walk
    /// then fetches that page on its own before any other.
    var learnsFromFirstPage: Bool { get }
    /// The scheme for the rest of a walk whose first page is `first`: one that advances by the page size the
    /// server showed (a server that caps the size asked sends fewer notes a page), or `nil` when nothing
    /// changes.
    func learned(from first: PageFacts) -> (any Pagination)?
    /// Sets what the scheme decides of a page's shape (a GraphQL connection's items and next paths).
    func adapt(_ page: inout PageConfiguration)
    /// The body to POST for `location`, or `nil` for a GET (every scheme but GraphQL's).
    func body(for location: PageLocation) -> [UInt8]?
    /// What names `location` among the walk's pages, for cycles and resumes: its URL, unless pages share
    /// one (a POST's cursor is in its body), and at most ``FetchLimits/maxURLBytes``.
    func identity(of location: PageLocation, endpoint: URL) -> String
    /// Why a page the server answered with success is still no page (a GraphQL response's `errors`), or
    /// `nil` when it is one.
    /// - Parameters:
    ///   - page: What the page said.
    ///   - now: Seconds since 1970, for a rate limit's reset.
    func refusal(of page: PageFacts, now: Double) -> PageRefusal?
    /// Whether a body (``body(for:)``) the server may have acted on may be sent again: `true` for a query
    /// that only reads (GraphQL's), `false` for a POST that may change something unless the caller says.
    var resendsBody: Bool { get }
}

/// A page answered with success whose body says it failed (a GraphQL response with `errors`).
public enum PageRefusal: Sendable, Hashable {
    /// The server's rate limit is spent: wait this many seconds, then ask again.
    case rateLimited(reason: String, wait: Double)
    /// The request failed; the message says why, as the server said it.
    case failed(String)
}

extension Pagination {
    public var fieldPaths: [FieldPath] { [] }
    public func start(endpoint: URL) -> PageLocation { .start }
    public func location(cursor: String) -> PageLocation? { .cursor(cursor) }
    public func recognition(after page: PageFacts, endpoint: URL) -> String? { nil }
    public func total(of page: PageFacts) -> Int? { page.total(path: nil) }
    public func location(_ index: Int, after start: PageLocation) -> PageLocation? { nil }
    public var pageSize: Int? { nil }
    public func lastIndex(after first: PageFacts, start: PageLocation) -> Int? { nil }
    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        nil
    }
    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? { nil }
    public var readsNextValue: Bool { true }
    public var nextValueSaysMore: Bool { true }
    public var firstPageNumber: Int { 1 }
    public var learnsFromFirstPage: Bool { false }
    public func learned(from first: PageFacts) -> (any Pagination)? { nil }
    public func adapt(_ page: inout PageConfiguration) {}
    public func body(for location: PageLocation) -> [UInt8]? { nil }
    public func identity(of location: PageLocation, endpoint: URL) -> String { url(for: location, endpoint: endpoint) }
    public func refusal(of page: PageFacts, now: Double) -> PageRefusal? { nil }
    public var resendsBody: Bool { true }

    /// ``addressed(after:endpoint:)`` for schemes that follow next URLs: when `page`'s next URL is its own
    /// URL with an offset advanced by its note count or a page number advanced by one, and its own URL
    /// names its offset or number.
    func addressedByURL(after page: PageFacts, endpoint: URL) -> (any Pagination)? {
        // The page's own URL must carry the parameter, or its value is a guess (a first page at the bare
        // endpoint): the walk is addressed from the first page whose URL says where it is.
        guard case .url(let next)? = try? self.next(after: page, endpoint: endpoint),
            let addressing = URLAddressing(from: page.url, to: next, noteCount: page.summary.noteCount),
            let here = URLComponents(string: page.url), addressing.value(in: page.url, template: here) != nil
        else { return nil }
        return AddressedURLPagination(base: self, addressing: addressing, template: next)
    }
}
