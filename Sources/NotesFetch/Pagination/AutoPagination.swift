public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Every signal a page sends (`PageSignals`), read on each page in this order: the body's next value (a
/// cursor or a URL, `links[rel=next]`, a `next_page` number; `null` is the end), a `Link` header with
/// `rel="next"`, a next-page header (`Next-Page`), `X-Pagination`'s next page, the page the body says it is
/// (`current_page` of `total_pages`), its offset (`offset` before `total`), a total above the page with
/// nothing of how to go on (offsets tried from the first page, and checked). The first that names a next
/// page is followed. Those with no bound of their own (a page number without a count, an offset without a
/// total) go on to an empty page, and an empty page whose next reference only numbers the page after it
/// ends the walk.
///
/// A page asked for by a number or an offset must say it is that one when it says which it is: a server
/// that ignores the parameter is an error, never the same page again.
public struct AutoPagination: Pagination {
    public var cursorParameter: String

    /// The signals `auto` can follow, in the order it looks for them.
    enum Signal: Sendable, Hashable, CaseIterable {
        case nextValue, link, nextHeader, xPagination, pageEcho, offsetEcho, total
    }

    public init(cursorParameter: String = "cursor") {
        self.cursorParameter = cursorParameter
    }

    public var description: String { "auto" }
    public var fieldPaths: [FieldPath] { TotalPaths.common }
    public func total(of page: PageFacts) -> Int? { PageSignals(page).total?.value }

    public func url(for location: PageLocation, endpoint: URL) -> String {
        PageLocator.url(for: location, endpoint: endpoint, cursorParameter: cursorParameter)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        try follow(page)?.location
    }

    /// A next value read from the body when it is plainly a URL or a cursor: a `Link` header counts only
    /// when the body has none, and a relative reference waits for the whole page (as does a page number: the
    /// walk sends none early from a path of `pageNumberKeys`).
    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        guard case .value(let value) = nextValue else {
            return NextValuePagination(cursorParameter: cursorParameter).earlyNext(
                head: head, nextValue: nextValue, read: read, url: url, endpoint: endpoint)
        }
        let isURL = value.hasPrefix("/") || PageLocator.hasScheme(value)
        if !isURL && (value.contains("?") || value.hasPrefix("{") || value.hasPrefix("[")) {
            return nil
        }
        return NextValuePagination(cursorParameter: cursorParameter).earlyNext(
            head: head, nextValue: nextValue, read: read, url: url, endpoint: endpoint)
    }

    public func recognition(after page: PageFacts, endpoint: URL) -> String? {
        guard let (next, source, _) = try? follow(page) else { return nil }
        switch next {
        case .cursor:
            return "Pagination: auto follows \(source), a cursor sent as ?\(cursorParameter)="
        case .url(let url):
            if source.contains(" sent as ?") { return "Pagination: auto follows \(source)" }
            let walk = URLAddressing(from: page.url, to: url, noteCount: page.summary.noteCount)
            return "Pagination: auto follows \(source), a URL\(walk.map { ", which walks \($0)" } ?? "")"
        default:
            return nil
        }
    }

    public func addressed(after page: PageFacts, endpoint: URL) -> (any Pagination)? {
        addressedByURL(after: page, endpoint: endpoint)
    }

    /// Paths whose next value is a page number (Kaminari's `next_page: 2`), sent back as `page`.
    static let pageNumberKeys: Set<String> = ["next_page", "nextPage"]

    /// Whether the next value at `path` is a page number rather than a cursor (``pageNumberKeys``).
    static func readsPageNumber(at path: FieldPath) -> Bool {
        path.components.last.map { pageNumberKeys.contains(String(decoding: $0, as: UTF8.self)) } ?? false
    }

    /// Paths whose next value is a URL reference even without a scheme or a leading slash (Eve's
    /// `notes?page=2`).
    private static let urlKeys: Set<String> = ["href", "next_url", "next_page_url", "@odata.nextLink", "links"]

    /// Where the page after `page` is, what said so (for the `Pagination:` line) and which signal that is;
    /// `nil` when nothing does.
    /// - Throws: ``PaginationError`` when the page is not the one its URL asked for (the server ignores the
    ///   parameter), or its next value is JSON (which only a POST body carries).
    func follow(_ page: PageFacts) throws(PaginationError) -> (location: PageLocation, source: String, signal: Signal)?
    {
        let signals = PageSignals(page)
        try checkEchoes(signals)
        for candidate in Signal.allCases {
            guard let (location, source) = try reference(candidate, page, signals) else {
                // The body's next value, where the page has one, says the last word: null is the end.
                if candidate == .nextValue && page.summary.hasNextValue { return nil }
                continue
            }
            // Past the end of numbered pages, a server that links every page to the next (Eve without a
            // total) would lead on forever: an empty page ends such a walk.
            if case .url(let url) = location, signals.isPastTheEnd(url) { return nil }
            return (location, source, candidate)
        }
        return nil
    }

    /// The page after `page` by `signal`, and what said so; `nil` when that signal names none.
    private func reference(_ signal: Signal, _ page: PageFacts, _ signals: PageSignals) throws(PaginationError)
        -> (location: PageLocation, source: String)?
    {
        let summary = page.summary
        let count = summary.noteCount
        func numbered(_ parameter: String, _ value: Int) -> PageLocation {
            .url(PageLocator.setting([(parameter, "\(value)")], on: page.url))
        }
        switch signal {
        case .nextValue:
            guard let value = summary.nextCursor else { return nil }
            let shown = "the body's '\(summary.detectedNextShown ?? summary.nextPath?.description ?? "next")'"
            let key = summary.nextPath?.components.last.map { String(decoding: $0, as: UTF8.self) } ?? ""
            if summary.nextIsJSON {
                throw PaginationError(
                    "\(shown) is a JSON object or array: such a cursor goes in a POST body (--body-cursor)")
            }
            if Self.pageNumberKeys.contains(key), let number = Int(value) {
                return (numbered("page", number), "\(shown), a page number sent as ?page=")
            }
            let isURL =
                value.hasPrefix("/") || value.hasPrefix("?") || PageLocator.hasScheme(value)
                || summary.nextIsLinkRelation || Self.urlKeys.contains(key)
            if isURL { return (.url(PageLocator.resolve(value, against: page.url) ?? value), shown) }
            return (.cursor(value), shown)
        case .link:
            return page.link("next").map { (.url($0), "Link rel=\"next\"") }
        case .nextHeader:
            guard let (name, value) = signals.nextHeader else { return nil }
            if value.hasPrefix("/") || value.hasPrefix("?") || PageLocator.hasScheme(value) {
                return (.url(PageLocator.resolve(value, against: page.url) ?? value), "the \(name) header")
            }
            if let number = Int(value) {
                return (numbered("page", number), "the \(name) header, a page number sent as ?page=")
            }
            return (.cursor(value), "the \(name) header")
        case .xPagination:
            guard let next = signals.xPagination?.next else { return nil }
            return (numbered("page", next), "X-Pagination's next page, a page number sent as ?page=")
        case .pageEcho:
            guard let echo = signals.pageEcho else { return nil }
            if let pages = signals.pageCountOrSizes {
                guard echo.page < pages.count else { return nil }
                return (
                    numbered(echo.parameter, echo.page + 1),
                    "'\(echo.path)' of \(pages.path) (\(pages.count)), page numbers sent as ?\(echo.parameter)="
                )
            }
            // Without a count: from the first page, or along the parameter it echoes, up to an empty page.
            guard count > 0, page.location == .start || signals.requests(echo.parameter) else { return nil }
            return (
                numbered(echo.parameter, echo.page + 1),
                "'\(echo.path)', page numbers sent as ?\(echo.parameter)= up to an empty page"
            )
        case .offsetEcho:
            let total = signals.total
            guard let echo = signals.offsetEcho, count > 0, total.map({ echo.offset + count < $0.value }) ?? true
            else { return nil }
            let until = total.map { "before \($0.source) (\($0.value))" } ?? "up to an empty page"
            return (numbered("offset", echo.offset + count), "'\(echo.path)' \(until), offsets sent as ?offset=")
        case .total:
            // A total above what came, and nothing of how to go on: offsets, checked by the ids and the total.
            guard let total = signals.total, count > 0, page.location == .start || signals.requests("offset")
            else { return nil }
            let offset = signals.requested("offset") ?? 0
            guard offset + count < total.value else { return nil }
            return (
                numbered("offset", offset + count),
                "the total at \(total.source) (\(total.value)) with no next reference, offsets sent as ?offset="
            )
        }
    }

    /// Throws when the page says it is another page than its URL asked for (`?current_page=2` answered
    /// with `"current_page": 1`): the server does not take that parameter.
    private func checkEchoes(_ signals: PageSignals) throws(PaginationError) {
        if let echo = signals.pageEcho, let asked = signals.requested(echo.parameter), asked != echo.page {
            throw PaginationError(
                "the page asked for with ?\(echo.parameter)=\(asked) says its '\(echo.path)' is \(echo.page): the server does not page by '\(echo.parameter)'"
            )
        }
        if let echo = signals.offsetEcho, let asked = signals.requested("offset"), asked != echo.offset {
            throw PaginationError(
                "the page asked for with ?offset=\(asked) says its '\(echo.path)' is \(echo.offset): the server does not page by 'offset'"
            )
        }
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
        // `from` is the server's (the page's URL): near the largest integer, no page follows it.
        let (byNotes, pastNotes) = from.addingReportingOverflow(noteCount)
        let (byOne, pastOne) = from.addingReportingOverflow(1)
        if !pastNotes && to == byNotes && noteCount > 0 && name.lowercased() != "page" {
            step = noteCount
            isOffset = true
        } else if !pastOne && to == byOne {
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
    var nextValueSaysMore: Bool { base.nextValueSaysMore }
    var firstPageNumber: Int { base.firstPageNumber }
    var fieldPaths: [FieldPath] { base.fieldPaths }

    func url(for location: PageLocation, endpoint: URL) -> String {
        base.url(for: location, endpoint: endpoint)
    }

    func total(of page: PageFacts) -> Int? { base.total(of: page) }

    /// `nil` past the largest integer: the start's value is the server's, and may be near it.
    func location(_ index: Int, after start: PageLocation) -> PageLocation? {
        guard case .url(let url) = start, let first = addressing.value(in: url, template: template) else { return nil }
        let (steps, overflow) = index.multipliedReportingOverflow(by: addressing.step)
        let (value, past) = first.addingReportingOverflow(steps)
        guard !overflow, !past else { return nil }
        return addressedPage(value)
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
