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
    /// Whether the decoder hands each note back as a ``Note``. When `false` every note is still read and
    /// checked against the contract, its id taken by the id set and counted
    /// (``PageDecoder/Summary/noteCount``), but none is built: for a caller that only validates.
    public var keepsNotes = true
    /// Other values to read off the page, e.g. `count` or `has_more`: each is reported in
    /// ``PageDecoder/Summary/fields`` (at most ``maxFieldPaths``).
    public var fieldPaths: [FieldPath] = []
    /// What a note whose id the run has seen before is: an error (the default) or left out.
    public var duplicates: DuplicatePolicy = .fail
    /// Where a note's id is, relative to the note, e.g. `id` or `attributes.uuid`: a non-empty string or
    /// an integer (a JSON number with no fraction or exponent, kept as written).
    public var idPath = FieldPath("id")
    /// Where a note's title is, relative to the note (a string); `nil` when notes need none.
    public var titlePath: FieldPath? = FieldPath("title")
    /// When a note must have a title at ``titlePath``. A title not required is kept when it is a string and
    /// ignored otherwise.
    public var titleRule = TitleRule.required
    /// The paths to find on the page when it does not have them where ``itemsPath`` and ``nextPath`` say
    /// (those the caller was not told): the first page of a walk (``PathDetection``).
    public var detects: PathDetection = []
    /// The key, inside each item, of the object that is the record (a GraphQL edge's `node`: the edge's
    /// other keys, such as `cursor`, are not kept); `nil` when each item is the record. An item without it
    /// is a contract error.
    public var recordKey: String?
    /// Whether a page without the items is an error. `false` for a scheme that reads what such a page
    /// says instead (a GraphQL response with `errors` and no `data`): the page then has no notes, and
    /// ``PageDecoder/Summary/hasItems`` is `false`.
    public var requiresItems = true

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

    /// The most field paths a page reads, the next paths it looks for included.
    public static let maxFieldPaths = 120

    /// Why the paths cannot work together, or `nil` when they can: neither may be empty, and neither may
    /// be the other or lie inside it.
    public var pathProblem: String? {
        if itemsPath.components.isEmpty { return "the items path is empty" }
        if nextPath.components.isEmpty { return "the next path is empty" }
        if idPath.components.isEmpty { return "the id path is empty" }
        if let titlePath {
            if titlePath.components.isEmpty { return "the title path is empty" }
            if titlePath.overlaps(idPath) {
                return "the id path '\(idPath)' and the title path '\(titlePath)' overlap"
            }
        }
        if fieldPaths.count > Self.maxFieldPaths { return "more than \(Self.maxFieldPaths) field paths" }
        if let empty = fieldPaths.first(where: { $0.components.isEmpty }) { return "a field path is empty (\(empty))" }
        let named = [("items", itemsPath), ("next", nextPath)] + fieldPaths.map { ("field", $0) }
        for (first, (name, path)) in named.enumerated() {
            for (otherName, other) in named[(first + 1)...] where path.overlaps(other) {
                return "the \(name) path '\(path)' and the \(otherName) path '\(other)' overlap"
            }
        }
        return nil
    }

    /// Whether `path` can be read at once with the paths already here (``pathProblem`` of the configuration
    /// with `path` added is `nil`, for a configuration that has none): not empty, not past ``maxFieldPaths``, and neither
    /// the items path, the next path nor a field path is it or lies inside it, nor the other way round.
    package func canRead(_ path: FieldPath) -> Bool {
        !path.components.isEmpty && fieldPaths.count < Self.maxFieldPaths && !path.overlaps(itemsPath)
            && !path.overlaps(nextPath)
            && !fieldPaths.contains { $0.overlaps(path) }
    }
}

/// Which of a page's paths its decoder finds for itself when the page does not have them where the
/// configuration says.
///
/// - ``items``: the items path (when the page has no array there) is the one array of objects at the top
///   level, or the one of them with a common name (``PathDetection/itemNames``); an array of objects met
///   after the first one chosen is an ``PageError/Code/ambiguousPaths`` error naming both, unless the one
///   chosen has a common name and the other not (JSON:API's `included` beside its `data`).
/// - ``next``: the next path (when the page has no value there) is the one of ``PathDetection/nextPaths``
///   the page has; two of them is an error naming both.
///
/// The choice is in ``PageDecoder/Summary/detectedItemsPath`` and ``PageDecoder/Summary/detectedNextPath``.
public struct PathDetection: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let items = PathDetection(rawValue: 1)
    public static let next = PathDetection(rawValue: 2)
    /// The id path (when the first note has no `id`): the one of ``PathDetection/idNames`` the note has.
    public static let id = PathDetection(rawValue: 4)

    /// The keys that plainly hold a record's id when it has no `id` (MongoDB's and Eve's `_id`, Django's
    /// `pk`), in no order: a note with two of them is an error naming both.
    public static let idNames = ["_id", "uuid", "pk", "guid", "uid", "ID", "Id", "_key"]

    /// The names that make a top-level array of objects the items, in the order of preference.
    public static let itemNames = [
        "notes", "results", "data", "items", "records", "rows", "entries", "nodes", "value", "content", "objects",
        "elements", "list", "features", "hits",
    ]

    /// Where the common APIs write the next cursor or URL: Django REST framework's `next`, Laravel's
    /// `next_page_url`, JSON:API's `links.next`, OData's `@odata.nextLink`, Google's `nextPageToken`, HAL's
    /// and Eve's `_links.next.href`, and others.
    ///
    /// Two of them read differently: `links` is JSON:API's object (its `next`) or the array of link objects
    /// of OGC API, STAC and Siren (the `href` of the one whose `rel` is `next`); `cursor` is an object's
    /// `next`, or, as a string or number, the next cursor only when the page has no other candidate
    /// (Litestar's cursor pages).
    public static let nextPaths: [FieldPath] = [
        "next_cursor", "next", "next_page_url", "next_url", "links", "meta.next_page", "meta.next_cursor",
        "meta.next", "/@odata.nextLink", "nextPageToken", "next_page", "nextCursor", "next_page_token",
        "pagination.next", "pagination.next_cursor", "paging.next", "cursor", "_links.next.href", "nextPage",
    ].map { $0.hasPrefix("/") ? FieldPath(components: [Array($0.utf8.dropFirst())]) : FieldPath($0) }

    /// The candidate whose object or array is read for the next reference (``nextPaths``).
    static let linksPath = FieldPath("links")
    /// The candidate taken only when no other is on the page, or read as an object's `next`.
    static let cursorPath = FieldPath("cursor")
}

/// When a note must have a title (``PageConfiguration/titlePath``).
public enum TitleRule: Sendable, Hashable {
    /// Always: a note without a string title is a contract error.
    case required
    /// Only when the items are the notes contract's `notes` array (which the notes screen shows by title);
    /// the records of other APIs need none.
    case whenItemsAreNotes
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

/// A path of object keys, such as `data.items`: dotted, or an RFC 6901 JSON Pointer (`/data/items`) for
/// keys that hold dots or slashes.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The keys as UTF-8 bytes, outermost first.
    public let components: [[UInt8]]
    /// The keys hashed once, when the path is made (`Hasher`, seeded for the process): a walk looks up
    /// some forty signal paths on every page (``PagePlan/fieldPositions``), and two paths that differ
    /// mostly differ here.
    private let keysHash: Int

    /// - Parameter dotted: Keys separated by dots; a key cannot contain a dot.
    public init(_ dotted: String) {
        self.init(
            components: dotted.isEmpty
                ? [] : dotted.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) })
    }

    /// The path of these keys, one per level.
    public init(components: [[UInt8]]) {
        self.components = components
        var hasher = Hasher()
        hasher.combine(components.count)
        for key in components {
            hasher.combine(key.count)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        keysHash = hasher.finalize()
    }

    public static func == (lhs: FieldPath, rhs: FieldPath) -> Bool {
        lhs.keysHash == rhs.keysHash && lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keysHash)
    }

    /// The path `text` names: a JSON Pointer when it starts with `/` (`~0` is `~`, `~1` is `/`), else keys
    /// separated by dots.
    /// - Throws: ``FieldPath/SyntaxError`` for an empty text, an empty dotted key (`a..b`), a `~` not
    ///   followed by `0` or `1`, or more than 64 keys.
    public static func parse(_ text: String) throws(SyntaxError) -> FieldPath {
        guard !text.isEmpty else { throw SyntaxError(path: text, reason: "it is empty") }
        var keys: [[UInt8]] = []
        if text.utf8.first == UInt8(ascii: "/") {
            for token in text.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
                var key: [UInt8] = []
                var escaped = false
                for byte in token {
                    if escaped {
                        guard byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1") else {
                            throw SyntaxError(path: text, reason: "'~' must be followed by 0 or 1")
                        }
                        key.append(byte == UInt8(ascii: "0") ? UInt8(ascii: "~") : UInt8(ascii: "/"))
                        escaped = false
                    } else if byte == UInt8(ascii: "~") {
                        escaped = true
                    } else {
                        key.append(byte)
                    }
                }
                if escaped { throw SyntaxError(path: text, reason: "'~' must be followed by 0 or 1") }
                keys.append(key)
            }
        } else {
            keys = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
            if keys.contains(where: \.isEmpty) {
                throw SyntaxError(path: text, reason: "a key is empty (a JSON Pointer starting with / takes any key)")
            }
        }
        guard keys.count <= Self.maxComponents else {
            throw SyntaxError(path: text, reason: "more than \(Self.maxComponents) keys")
        }
        return FieldPath(components: keys)
    }

    /// The most keys a parsed path may have: deeper than any page the default depth limit lets through.
    public static let maxComponents = 64

    /// A path that cannot be a path.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text given (at most 80 bytes of it in ``description``).
        public var path: String
        public var reason: String

        public var description: String { "'\(path.prefix(80))' is not a path: \(reason)" }
    }

    /// Dotted when every key can be written so (no dots, none empty, the first not starting with `/`), else
    /// the JSON Pointer.
    public var description: String {
        let keys = components.map { String(decoding: $0, as: UTF8.self) }
        let dottable =
            !keys.isEmpty && keys.allSatisfy { !$0.isEmpty && !$0.contains(".") }
            && keys.first?.hasPrefix("/") == false
        if dottable { return keys.joined(separator: ".") }
        return keys.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }

    /// Whether one path is the other or lies inside it.
    func overlaps(_ other: FieldPath) -> Bool {
        // Key by key, with no copies: every page's decoder asks this of each pair of its paths.
        for index in 0..<min(components.count, other.components.count)
        where components[index] != other.components[index] {
            return false
        }
        return true
    }
}
