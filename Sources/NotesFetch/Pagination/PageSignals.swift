import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything a page says about the pages after it, besides its items: next references in the body and
/// in headers, flags, the page it says it is and how many there are, its offset, its total.
///
/// `auto` walks by them (``next(after:)``), and every scheme ends only where none of them says there is
/// more (``unfollowedMore(on:)``): a walk never ends quietly on a page that says it is not the last.
struct PageSignals {
    let facts: PageFacts

    init(_ facts: PageFacts) {
        self.facts = facts
    }

    // MARK: - Where they are

    /// Flags that are `true` while pages follow (Stripe's `has_more`, many others').
    static let flagPaths: [FieldPath] = [
        "has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage", "meta.has_more",
    ].map(FieldPath.init)

    /// The page a body says it is, and the query parameter that asks for a page there: the key itself at the
    /// top level (Litestar's `current_page`, fastapi-pagination's `page`), `page` inside an object (Eve's
    /// `_meta.page`, Laravel's `meta.current_page`).
    static let pageEchoes: [(path: FieldPath, parameter: String)] = [
        ("page", "page"), ("current_page", "current_page"), ("currentPage", "currentPage"), ("_meta.page", "page"),
        ("meta.current_page", "page"), ("meta.page", "page"),
    ].map { (FieldPath($0.0), $0.1) }

    /// How many pages there are.
    static let pageCountPaths: [FieldPath] = [
        "total_pages", "totalPages", "pages", "page_count", "pageCount", "last_page", "meta.last_page",
        "meta.total_pages", "meta.pagination.pages", "pagination.total_pages",
    ].map(FieldPath.init)

    /// The offset a body says it starts at, sent back as `offset`.
    static let offsetPaths: [FieldPath] = ["offset", "meta.offset"].map(FieldPath.init)

    /// The page size a body says it serves (with a page number and a total, the page count).
    static let pageSizePaths: [FieldPath] = [
        "page_size", "per_page", "size", "pageSize", "max_results", "results_per_page", "_meta.max_results",
        "meta.per_page",
    ].map(FieldPath.init)

    /// Every path above: read on every page of every walk, where the page's own paths leave room.
    static let fieldPaths: [FieldPath] =
        flagPaths + pageEchoes.map(\.path) + pageCountPaths + offsetPaths + pageSizePaths

    /// Headers that hold the next page's URL (Kinto's `Next-Page`) or number (GitLab's `X-Next-Page`).
    static let nextHeaders = [
        "Next-Page", "X-Next-Page", "X-Next", "Next-Page-Url", "X-Next-Page-Url", "X-Next-Cursor",
    ]

    /// Headers that hold the total of the collection.
    static let totalHeaders = ["X-Total-Count", "X-Total", "Total", "Total-Records", "X-Total-Records"]

    // MARK: - What they say

    /// The first flag the page has, and what it says.
    var flag: (path: FieldPath, value: Bool)? {
        for path in Self.flagPaths {
            if case .bool(let value) = facts.value(at: path) { return (path, value) }
        }
        return nil
    }

    /// The page number the body says it is, and the parameter that asks for it.
    var pageEcho: (path: FieldPath, parameter: String, page: Int)? {
        for (path, parameter) in Self.pageEchoes {
            if let page = integer(at: path) { return (path, parameter, page) }
        }
        return nil
    }

    /// How many pages the body says there are.
    var pageCount: (path: FieldPath, count: Int)? {
        for path in Self.pageCountPaths {
            if let count = integer(at: path) { return (path, count) }
        }
        return nil
    }

    /// How many pages there are, as the body says, or as its total and page size make it (`_meta.total` and
    /// `_meta.max_results`: Eve's).
    var pageCountOrSizes: (path: String, count: Int)? {
        if let count = pageCount { return ("'\(count.path)'", count.count) }
        guard let total,
            let size = Self.pageSizePaths.lazy.compactMap({ path in integer(at: path).map { (path, $0) } }).first,
            size.1 > 0
        else { return nil }
        let (pages, overflow) = total.value.addingReportingOverflow(size.1 - 1)
        return overflow ? nil : ("\(total.source) of '\(size.0)' (\(size.1))", pages / size.1)
    }

    /// The offset the body says the page starts at.
    var offsetEcho: (path: FieldPath, offset: Int)? {
        for path in Self.offsetPaths {
            if let offset = integer(at: path) { return (path, offset) }
        }
        return nil
    }

    /// The first of ``nextHeaders`` the response has, not empty.
    var nextHeader: (name: String, value: String)? {
        for name in Self.nextHeaders {
            if let value = facts.head.value(of: name)?.trimming(" \t"), !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// flask-smorest's `X-Pagination` header: a JSON object with `total`, `total_pages`, `page` and
    /// `next_page`; `nil` when the response has none or it is no such object (at most 4 KiB is read).
    var xPagination: XPagination? {
        guard let text = facts.head.value(of: "X-Pagination"), text.utf8.count <= 4096,
            case .object(let members)? = try? JSONTree.parse(Array(text.utf8))
        else { return nil }
        func integer(_ key: String) -> Int? {
            guard case .number(let text)? = members.first(where: { $0.key == key })?.value else { return nil }
            return Self.bounded(text)
        }
        return XPagination(
            total: integer("total"), totalPages: integer("total_pages"), page: integer("page"),
            nextPage: integer("next_page"))
    }

    struct XPagination {
        var total: Int?
        var totalPages: Int?
        var page: Int?
        var nextPage: Int?

        /// The next page's number, when the header says there is one.
        var next: Int? {
            if let nextPage { return nextPage }
            if let page, let totalPages, page < totalPages { return page + 1 }
            return nil
        }
    }

    /// The total the page announces, and where: the body's (``TotalPaths/common``, a Spring `page`
    /// object's `totalElements`), `X-Pagination`'s, or a header's (``totalHeaders``).
    var total: (value: Int, source: String)? {
        if let total = facts.total(path: nil, orCommon: true) { return total }
        if let total = xPagination?.total, total >= 0 { return (total, "X-Pagination") }
        for name in Self.totalHeaders {
            if let text = facts.head.value(of: name), let total = Self.bounded(text.trimming(" \t")) {
                return (total, name)
            }
        }
        return nil
    }

    /// The integer at `path`: a JSON integer, or a string of digits, from 0 to 2^48 (``bounded(_:)``).
    private func integer(at path: FieldPath) -> Int? {
        switch facts.value(at: path) {
        case .number(let text)?, .string(let text)?: return Self.bounded(text)
        default: return nil
        }
    }

    /// `text`'s integer when it is from 0 to 2^48: a page number, an offset, a count or a total the server
    /// sends. Sums of two of them and a page's records cannot overflow; others are no signal.
    static func bounded(_ text: some StringProtocol) -> Int? {
        guard let value = Int(text), value >= 0, value <= 1 << 48 else { return nil }
        return value
    }

    /// The value of the query parameter `name` in the page's URL, as an integer.
    func requested(_ name: String) -> Int? {
        guard let components = URLComponents(string: facts.url) else { return nil }
        return components.queryItems?.first { $0.name == name }?.value.flatMap { Self.bounded($0) }
    }

    /// Whether the page's URL has the query parameter `name`.
    func requests(_ name: String) -> Bool {
        URLComponents(string: facts.url)?.queryItems?.contains { $0.name == name } ?? false
    }

    // MARK: - Whether the walk may end

    /// Whether `reference`, this page's next, only numbers the page after an empty one: past the end of
    /// numbered pages, where a server that links every page onward (Eve without a total) would lead on
    /// forever, the walk ends.
    func isPastTheEnd(_ reference: String) -> Bool {
        guard facts.summary.noteCount == 0 else { return false }
        let url = PageLocator.resolve(reference, against: facts.url) ?? reference
        return URLAddressing(from: facts.url, to: url, noteCount: 0).map { !$0.isOffset } ?? false
    }

    /// What the page says of more pages when the walk ends at it, or `nil` when nothing does: a next
    /// reference the scheme did not follow (a next value, `Link` `rel="next"`, a next-page header,
    /// `X-Pagination`'s next page), a flag that is `true`, a page number below the page count, an offset
    /// before the total.
    func unfollowedMore(scheme: any Pagination) -> String? {
        let summary = facts.summary
        if let value = summary.nextCursor, scheme.nextValueSaysMore, !isPastTheEnd(value) {
            let path = summary.detectedNextShown ?? summary.nextPath?.description ?? "the next path"
            return "its '\(path)' is \(Self.quoted(value))"
        }
        if let link = facts.link("next"), !isPastTheEnd(link) {
            return "its Link header names a next page, \(Self.quoted(link))"
        }
        if let (name, value) = nextHeader, !isPastTheEnd(value) { return "its \(name) header is \(Self.quoted(value))" }
        if let next = xPagination?.next { return "its X-Pagination header says the next page is \(next)" }
        if let (path, value) = flag, value { return "its '\(path)' is true" }
        if let echo = pageEcho, let count = pageCount, (0...1).contains(scheme.firstPageNumber),
            echo.page - scheme.firstPageNumber + 1 < count.count
        {
            return "its '\(echo.path)' is \(echo.page) of \(count.count) ('\(count.path)')"
        }
        if let (path, offset) = offsetEcho, let total = total, summary.noteCount > 0,
            offset + summary.noteCount < total.value
        {
            return
                "its '\(path)' is \(offset) and it has \(summary.noteCount) records of the \(total.value) at \(total.source)"
        }
        return nil
    }

    /// At most 80 characters of `text`, quoted.
    static func quoted(_ text: String) -> String {
        "'\(text.prefix(80))\(text.count > 80 ? "…" : "")'"
    }
}
