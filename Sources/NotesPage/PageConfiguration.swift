public import NotesJSON

/// What a page looks like and how much of it to accept.
public struct PageConfiguration: Sendable, Hashable {
    /// Bounds on the JSON text of one page.
    public var limits: JSONLimits
    /// Most notes one page may hold.
    public var maxPageNotes: Int
    /// Where the notes array is, e.g. `notes`, `results`, `data.items`. A body that is a bare array is
    /// the notes array whatever this says.
    public var itemsPath: FieldPath
    /// Where the next cursor is, e.g. `next_cursor`, `next`, `meta.next_page`.
    public var nextPath: FieldPath
    /// Whether each note keeps its exact JSON (``Note/json``).
    public var keepsJSON: Bool
    /// Other values to read off the page, e.g. `count` or `has_more`: each is reported in
    /// ``PageDecoder/Summary/fields`` (at most 60 paths).
    public var fieldPaths: [FieldPath] = []
    /// What a note whose id the run has seen before is: an error (the default) or left out.
    public var duplicates: DuplicatePolicy = .fail

    /// - Parameters:
    ///   - limits: Defaults to 64 MiB pages, 1 MiB strings, depth 64.
    ///   - maxPageNotes: Defaults to 100,000.
    ///   - itemsPath: Defaults to `notes`.
    ///   - nextPath: Defaults to `next_cursor`.
    ///   - keepsJSON: Defaults to `true`.
    public init(
        limits: JSONLimits = JSONLimits(),
        maxPageNotes: Int = 100_000,
        itemsPath: FieldPath = FieldPath("notes"),
        nextPath: FieldPath = FieldPath("next_cursor"),
        keepsJSON: Bool = true
    ) {
        self.limits = limits
        self.maxPageNotes = maxPageNotes
        self.itemsPath = itemsPath
        self.nextPath = nextPath
        self.keepsJSON = keepsJSON
    }

    /// Why the paths cannot work together, or `nil` when they can: neither may be empty, and neither may
    /// be the other or lie inside it.
    public var pathProblem: String? {
        if itemsPath.components.isEmpty { return "the items path is empty" }
        if nextPath.components.isEmpty { return "the next path is empty" }
        if fieldPaths.count > 60 { return "more than 60 field paths" }
        if let empty = fieldPaths.first(where: { $0.components.isEmpty }) { return "a field path is empty (\(empty))" }
        let named = [("items", itemsPath), ("next", nextPath)] + fieldPaths.map { ("field", $0) }
        for (first, (name, path)) in named.enumerated() {
            for (otherName, other) in named[(first + 1)...] where path.overlaps(other) {
                return "the \(name) path '\(path)' and the \(otherName) path '\(other)' overlap"
            }
        }
        return nil
    }
}

/// What a page's decoder does with a note whose id the run has seen before.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// A contract error naming both pages.
    case fail
    /// The note is left out and counted (``PageDecoder/Summary/skippedCount``).
    case skip
}

/// A scalar read off a page at one of ``PageConfiguration/fieldPaths``.
public enum FieldValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    /// A number, exactly as written.
    case number(String)
    case bool(Bool)
    case null
    /// An object or an array, described (`an object`), not kept.
    case container(String)

    public var description: String {
        switch self {
        case .string: return "a string"
        case .number(let text): return "the number \(text.prefix(24))"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .container(let what): return what
        }
    }
}

/// A dotted path of object keys, such as `data.items`.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The keys as UTF-8 bytes, outermost first.
    public let components: [[UInt8]]

    /// - Parameter dotted: Keys separated by dots; a key cannot contain a dot.
    public init(_ dotted: String) {
        components =
            dotted.isEmpty ? [] : dotted.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
    }

    public var description: String {
        components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }

    /// Whether one path is the other or lies inside it.
    func overlaps(_ other: FieldPath) -> Bool {
        let shorter = min(components.count, other.components.count)
        return Array(components.prefix(shorter)) == Array(other.components.prefix(shorter))
    }
}
