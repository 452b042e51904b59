public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

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
    public func earlyNext(
        head: HTTPResponseHead, nextValue: String??, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        NextValuePagination(cursorParameter: cursorParameter).earlyNext(
            head: head, nextValue: nextValue, read: read, url: url, endpoint: endpoint)
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
