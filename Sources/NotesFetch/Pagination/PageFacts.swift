public import NotesPage

/// What one page told about where the walk goes: its head, the values the decoder read, its notes.
public struct PageFacts: Sendable {
    public var location: PageLocation
    /// The URL the page came from, after redirects.
    public var url: String
    public var head: HTTPResponseHead
    public var summary: PageDecoder.Summary
    /// The ``Pagination/fieldPaths`` of the scheme, in the order of ``PageDecoder/Summary/fields``.
    public var fieldPaths: [FieldPath] {
        didSet { fieldPositions = nil }
    }
    /// Where each of `fieldPaths` first is, when the walk's ``PagePlan`` said; else they are searched.
    private var fieldPositions: [FieldPath: Int]?

    public init(
        location: PageLocation, url: String, head: HTTPResponseHead, summary: PageDecoder.Summary,
        fieldPaths: [FieldPath]
    ) {
        self.location = location
        self.url = url
        self.head = head
        self.summary = summary
        self.fieldPaths = fieldPaths
        fieldPositions = nil
    }

    /// A page read with `plan`: its field paths are the plan's configuration's, found by the plan's positions.
    package init(
        location: PageLocation, url: String, head: HTTPResponseHead, summary: PageDecoder.Summary, plan: PagePlan
    ) {
        self.location = location
        self.url = url
        self.head = head
        self.summary = summary
        fieldPaths = plan.configuration.fieldPaths
        fieldPositions = plan.fieldPositions
    }

    /// Where `path` first is among ``fieldPaths``.
    private func position(of path: FieldPath) -> Int? {
        if let fieldPositions { return fieldPositions[path] }
        return fieldPaths.firstIndex(of: path)
    }

    /// The value the page has at `path`, if the scheme asked for it and the page has it.
    public func value(at path: FieldPath) -> FieldValue? {
        position(of: path).flatMap { summary.fields.indices.contains($0) ? summary.fields[$0] : nil }
    }

    /// What the page's flag at `path` says (a GraphQL `hasNextPage`, Notion's `has_more`): `true` or
    /// `false`.
    /// - Throws: ``PaginationError`` when the page has no such flag, or it is not a boolean.
    public func flag(at path: FieldPath) throws(PaginationError) -> Bool {
        switch value(at: path) {
        case .bool(let flag): return flag
        case nil: throw PaginationError("the page has no '\(path)'")
        case let value?: throw PaginationError("'\(path)' is \(value), not true or false")
        }
    }

    /// The compact JSON of the object or array the page has at `path` (at most ``PageDecoder/maxFieldJSONBytes``), if the scheme asked
    /// for it and the page has one that fits.
    public func json(at path: FieldPath) -> String? {
        position(of: path).flatMap { summary.fieldJSON.indices.contains($0) ? summary.fieldJSON[$0] : nil }
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
        // Spring Data's `page` object (its `number` and `size` beside it).
        if orCommon, path == nil, case .container? = value(at: Self.springPage), let json = json(at: Self.springPage),
            case .object(let members)? = try? JSONTree.parse(Array(json.utf8)),
            case .number(let text)? = members.first(where: { $0.key == "totalElements" })?.value,
            let total = Int(text), total >= 0
        {
            return (total, "'page.totalElements'")
        }
        return head.value(of: "X-Total-Count").flatMap { Int($0.trimming(" \t")) }.flatMap {
            $0 >= 0 ? ($0, "X-Total-Count") : nil
        }
    }

    /// Spring Data's `page` object.
    private static let springPage = FieldPath("page")

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
        if let id = summary.detectedIDPath { parts.append("ids at '\(id)'") }
        if let next = summary.detectedNextShown ?? summary.detectedNextPath?.description {
            parts.append("next at '\(next)'")
        }
        guard !parts.isEmpty else { return nil }
        if let total = PageSignals(self).total { parts.append("total at \(total.source) (\(total.value))") }
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
        "pagination.total", "pagination.count", "numberMatched", "_meta.total", "totalItems", "total_items",
    ].map(FieldPath.init)
}
