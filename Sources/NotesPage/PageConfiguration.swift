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
        let shorter = min(itemsPath.components.count, nextPath.components.count)
        if Array(itemsPath.components.prefix(shorter)) == Array(nextPath.components.prefix(shorter)) {
            return "the items path '\(itemsPath)' and the next path '\(nextPath)' overlap"
        }
        return nil
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
}
