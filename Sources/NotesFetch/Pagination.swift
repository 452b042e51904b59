public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How an endpoint's pages follow one another: where the first page is, the URL of a page, and what a
/// page says about the next one. One type per scheme; ``NotesFetcher/walk`` and the notes screen
/// follow any of them the same way.
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
    /// - Parameter nextValue: The body's next value once read (`.some(nil)` for `null`), else `nil`.
    func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation?
    /// The scheme for the pages after `page`, addressed ahead so that they can be fetched in parallel, when
    /// `page` shows that they can be (its next URL walks offsets or page numbers); `nil` otherwise.
    func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)?
    /// Whether the scheme reads the body's next value (so that a next path found on the page matters).
    var readsNextValue: Bool { get }
    /// Whether the scheme learns how the server pages from a walk's first page (``learned(from:)``): the walk
    /// then fetches that page on its own before any other.
    var learnsFromFirstPage: Bool { get }
    /// The scheme for the rest of a walk whose first page is `first`: one that advances by the page size the
    /// server showed (a server that caps the size asked sends fewer notes a page), or `nil` when nothing
    /// changes.
    func learned(from first: PageFacts) -> (any Pagination)?
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
    public func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation? {
        nil
    }
    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? { nil }
    public var readsNextValue: Bool { true }
    public var learnsFromFirstPage: Bool { false }
    public func learned(from first: PageFacts) -> (any Pagination)? { nil }

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

/// What one page told about where the walk goes: its head, the values the decoder read, its notes.
public struct PageFacts: Sendable {
    public var location: PageLocation
    /// The URL the page came from, after redirects.
    public var url: String
    public var head: HTTPResponseHead
    public var summary: PageDecoder.Summary
    /// The ``Pagination/fieldPaths`` of the scheme, in the order of ``PageDecoder/Summary/fields``.
    public var fieldPaths: [FieldPath]

    public init(
        location: PageLocation, url: String, head: HTTPResponseHead, summary: PageDecoder.Summary,
        fieldPaths: [FieldPath]
    ) {
        self.location = location
        self.url = url
        self.head = head
        self.summary = summary
        self.fieldPaths = fieldPaths
    }

    /// The value the page has at `path`, if the scheme asked for it and the page has it.
    public func value(at path: FieldPath) -> FieldValue? {
        fieldPaths.firstIndex(of: path).flatMap { summary.fields.indices.contains($0) ? summary.fields[$0] : nil }
    }

    /// The first `Link` header target with relation `relation`, resolved against the page's URL.
    public func link(_ relation: String) -> String? {
        for header in head.values(of: "Link") {
            if let target = PageLocator.link(relation, in: header) {
                return PageLocator.resolve(target, against: url) ?? target
            }
        }
        return nil
    }

    /// The total the page announces: the number at `path` if given and present, else `X-Total-Count`.
    public func total(path: FieldPath?) -> Int? {
        total(path: path, orCommon: false)?.value
    }

    /// The total the page announces at `path`, or else at the first of ``TotalPaths/common`` it has, or in
    /// `X-Total-Count`; and where it was read.
    func total(path: FieldPath?, orCommon: Bool) -> (value: Int, source: String)? {
        let paths = path.map { [$0] } ?? (orCommon ? TotalPaths.common : [])
        for path in paths {
            if case .number(let text) = value(at: path), let total = Int(text), total >= 0 {
                return (total, "'\(path)'")
            }
        }
        return head.value(of: "X-Total-Count").flatMap { Int($0.trimming(" \t")) }.flatMap {
            $0 >= 0 ? ($0, "X-Total-Count") : nil
        }
    }

    /// What the server says of the page after this one: a next reference (the body's next value, else a
    /// `Link` `rel="next"`, resolved against the page's URL), that there is none (the next value is `null`
    /// or empty, with no `Link`), or nothing either way.
    var nextReference: NextReference {
        if let value = summary.nextCursor, !value.isEmpty {
            let isURL = value.hasPrefix("/") || value.hasPrefix("?") || PageLocator.hasScheme(value)
            return .some(isURL ? PageLocator.resolve(value, against: url) ?? value : value)
        }
        if let link = link("next") { return .some(link) }
        return summary.hasNextValue ? .none : .unknown
    }

    /// What the page showed of paths nobody gave (``PathDetection``): the items and the next value found
    /// on it, and where its total is, said once after the first page; `nil` when nothing was found.
    public var foundPaths: String? {
        var parts: [String] = []
        if let items = summary.detectedItemsPath { parts.append("items at '\(items)'") }
        if let next = summary.detectedNextPath { parts.append("next at '\(next)'") }
        guard !parts.isEmpty else { return nil }
        if let total = total(path: nil, orCommon: true) { parts.append("total at \(total.source) (\(total.value))") }
        return "Pagination: found " + parts.joined(separator: ", ")
    }

    /// What a page says of the page after it (``PageFacts/nextReference``).
    enum NextReference: Equatable {
        /// A cursor or a URL.
        case some(String)
        /// The page is the last.
        case none
        /// The page does not say.
        case unknown
    }
}

/// Where the common APIs write the number of records a collection holds.
enum TotalPaths {
    /// Django REST framework's `count`, FastAPI's `total`, JSON:API's `meta.pagination.count`, and others.
    static let common: [FieldPath] = [
        "count", "total", "total_count", "totalCount", "total_results", "totalResults", "meta.total",
        "meta.count", "meta.total_count", "meta.totalCount", "meta.pagination.count", "meta.pagination.total",
        "pagination.total", "pagination.count", "page.totalElements",
    ].map(FieldPath.init)
}

/// A page says something its pagination scheme cannot follow.
public struct PaginationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

// MARK: - Schemes

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

    public func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation? {
        guard case .some(let value) = nextValue else { return nil }
        return location(of: value, pageURL: url)
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

    public func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation? {
        for header in head.values(of: "Link") {
            if let target = PageLocator.link("next", in: header) {
                return .url(PageLocator.resolve(target, against: url) ?? target)
            }
        }
        return nil
    }
}

/// A cursor in a response header (`X-Next-Cursor`), sent back as a query parameter.
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
        earlyNext(head: page.head, nextValue: nil, url: page.url, endpoint: endpoint)
    }

    public func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation? {
        guard let value = head.value(of: header)?.trimming(" \t"), !value.isEmpty else { return nil }
        return .cursor(value)
    }
}

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
    /// Where the total is in the body (e.g. `count`); when `nil`, the common places (``TotalPaths``).
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

    public func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .offset(let first) = start else { return nil }
        let (product, overflow) = index.multipliedReportingOverflow(by: step)
        guard !overflow, product <= Int.max - first else { return nil }
        return .offset(first + product)
    }

    public var pageSize: Int? { step }

    public func lastIndex(after first: PageFacts, start: PageLocation) -> Int? {
        guard case .offset(let offset) = start, let total = total(of: first) else { return nil }
        guard total > offset else { return 0 }
        return (total - offset - 1) / step
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

/// `?page=P&per_page=L`: page numbers. Ends at an empty page, at the `Link` header's `rel="last"` page, at
/// the total when the server announces one, or where its next reference ends; never at a page only because
/// it is short (a server may send fewer notes than asked: the page size is what the first page showed).
public struct PageNumberPagination: Pagination {
    public var pageParameter: String
    public var firstPage: Int
    public var pageSizeParameter: String
    /// Notes per page, sent as `pageSizeParameter` when set.
    public var pageSize: Int?
    /// Where the total is in the body (e.g. `count`); when `nil`, the common places (``TotalPaths``).
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

    public func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .page(let first) = start, pageSize != nil || serverPageSize != nil, index <= Int.max - first else {
            return nil
        }
        return .page(first + index)
    }

    public func lastIndex(after first: PageFacts, start: PageLocation) -> Int? {
        guard case .page(let number) = start else { return nil }
        if let last = first.link("last").flatMap({ PageLocator.integer(pageParameter, in: $0) }) {
            return max(0, last - number)
        }
        guard let size = serverPageSize ?? pageSize, let total = total(of: first) else { return nil }
        return max(0, (total + size - 1) / size - 1 - (number - firstPage))
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
        // Notes on the pages up to this one, at the server's page size.
        let through = size.map { $0.multipliedReportingOverflow(by: number - firstPage + 1) }
            .flatMap { $0.overflow ? nil : $0.partialValue }
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
                if count == 0 && through - (size ?? 0) < total.value {
                    throw PaginationError(
                        "an empty page at page \(number), but \(total.source) says \(total.value) notes")
                }
                return through >= total.value ? nil : .page(number + 1)
            }
            return count == 0 || page.summary.skippedCount == count ? nil : .page(number + 1)
        }
    }
}

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

/// Today's rules: the body's next value (a cursor or a URL), else a `Link` header with `rel="next"`.
/// After the first page it says what it found, and whether next URLs walk offsets or page numbers.
public struct AutoPagination: Pagination {
    public var cursorParameter: String

    public init(cursorParameter: String = "cursor") {
        self.cursorParameter = cursorParameter
    }

    public var description: String { "auto" }
    public var fieldPaths: [FieldPath] { TotalPaths.common }
    public func total(of page: PageFacts) -> Int? { page.total(path: nil, orCommon: true)?.value }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        PageLocator.url(for: location, endpoint: endpoint, cursorParameter: cursorParameter)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        if let next = try NextValuePagination(cursorParameter: cursorParameter).next(after: page, endpoint: endpoint) {
            return next
        }
        return try LinkPagination().next(after: page, endpoint: endpoint)
    }

    /// Only a next value read from the body: a `Link` header counts only when the body has none.
    public func earlyNext(head: HTTPResponseHead, nextValue: String??, url: String, endpoint: URL) -> PageLocation? {
        NextValuePagination(cursorParameter: cursorParameter).earlyNext(
            head: head, nextValue: nextValue, url: url, endpoint: endpoint)
    }

    public func recognition(after page: PageFacts, endpoint: URL) -> String? {
        let source: String
        let next: PageLocation?
        if let value = page.summary.nextCursor, !value.isEmpty {
            next = try? NextValuePagination(cursorParameter: cursorParameter).next(after: page, endpoint: endpoint)
            source = "the body's next value"
        } else if let link = page.link("next") {
            next = .url(link)
            source = "Link rel=\"next\""
        } else {
            return nil
        }
        switch next {
        case .cursor?:
            return "Pagination: auto follows \(source), a cursor sent as ?\(cursorParameter)="
        case .url(let url)?:
            let walk = URLAddressing(from: page.url, to: url, noteCount: page.summary.noteCount)
            return "Pagination: auto follows \(source), a URL\(walk.map { ", which walks \($0)" } ?? "")"
        default:
            return nil
        }
    }

    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? {
        addressedByURL(after: page, endpoint: endpoint)
    }
}

/// How next URLs walk a collection, recognised from a page's URL and its next page's: an offset advanced
/// by the page's note count, or a page number advanced by one, and nothing else changed.
struct URLAddressing: Sendable, Hashable, CustomStringConvertible {
    /// The query parameter that changes from page to page.
    var parameter: String
    /// How much it changes by.
    var step: Int
    /// Whether it counts notes (an offset) rather than pages.
    var isOffset: Bool
    /// The parameter that carries the page size, if the URL has one of the usual names.
    var limitParameter: String?

    /// The walk from `current` to `next`, or `nil` when they differ in anything but one integer parameter
    /// advanced by `noteCount` (an offset) or by one (a page number).
    init?(from current: String, to next: String, noteCount: Int) {
        guard let here = URLComponents(string: current), let there = URLComponents(string: next),
            here.path == there.path, here.host == there.host
        else { return nil }
        let before = Self.query(here)
        let after = Self.query(there)
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        guard changed.count == 1, let name = changed.first, let to = after[name].flatMap({ Int($0) }) else {
            return nil
        }
        let from = before[name].flatMap { Int($0) } ?? (name.lowercased().contains("page") ? 1 : 0)
        parameter = name
        limitParameter = after.keys.sorted().first {
            ["limit", "per_page", "page_size", "size", "count"].contains($0.lowercased())
        }
        if to == from + noteCount && noteCount > 0 && name.lowercased() != "page" {
            step = noteCount
            isOffset = true
        } else if to == from + 1 {
            step = 1
            isOffset = false
        } else {
            return nil
        }
    }

    var description: String {
        isOffset
            ? "offset pages (\(parameter)\(limitParameter.map { ", \($0)" } ?? ""))" : "page numbers (\(parameter))"
    }

    /// The value of the parameter in `url` when `url` is `base` with only that parameter changed.
    func value(in url: String, template base: URLComponents) -> Int? {
        guard let candidate = URLComponents(string: url), candidate.path == base.path, candidate.host == base.host,
            candidate.port == base.port,
            candidate.scheme == base.scheme
        else { return nil }
        var query = Self.query(candidate)
        var expected = Self.query(base)
        guard let value = query.removeValue(forKey: parameter).flatMap({ Int($0) }) else { return nil }
        expected[parameter] = nil
        return query == expected ? value : nil
    }

    private static func query(_ components: URLComponents) -> [String: String] {
        Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }
}

/// A scheme that follows next URLs (`auto`, `next`, `link`) once they are seen to walk offsets or page
/// numbers: page `index` after the start is
/// the start's URL with the parameter advanced `index` steps, so pages can be fetched in parallel. The
/// server's own next URL is still what ends the walk, and it must be the one predicted; no page size is
/// assumed (a short page is not the last unless the server says so).
struct AddressedURLPagination: Pagination {
    let base: any Pagination
    let addressing: URLAddressing
    /// The first page addressed (the next URL the server gave), parsed once: every page's URL is it with
    /// the parameter changed.
    private let template: URLComponents
    private let templateURL: URL

    init?(base: any Pagination, addressing: URLAddressing, template: String) {
        guard let components = URLComponents(string: template), let url = URL(string: template) else { return nil }
        self.base = base
        self.addressing = addressing
        self.template = components
        templateURL = url
    }

    var description: String { base.description }
    var readsNextValue: Bool { base.readsNextValue }
    var fieldPaths: [FieldPath] { base.fieldPaths }

    func url(for location: PageLocation, endpoint: URL) -> String {
        base.url(for: location, endpoint: endpoint)
    }

    func total(of page: PageFacts) -> Int? { base.total(of: page) }

    func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .url(let url) = start, let first = addressing.value(in: url, template: template) else { return nil }
        return addressedPage(first + index * addressing.step)
    }

    /// The server's next page, in the form ``location(_:after:)`` gives when it follows the walk.
    func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        let next = try base.next(after: page, endpoint: endpoint)
        guard case .url(let url)? = next, let value = addressing.value(in: url, template: template) else { return next }
        return addressedPage(value)
    }

    /// The template's URL with the parameter at `value`.
    private func addressedPage(_ value: Int) -> PageLocation {
        .url(PageLocator.setting([(addressing.parameter, "\(value)")], on: templateURL))
    }
}
