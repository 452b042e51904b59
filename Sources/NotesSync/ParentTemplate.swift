public import NotesFetch
public import NotesPage
import NotesSystem

/// A child resource's value with placeholders for its parent record's fields: `{parent.FIELD}`, FIELD a
/// dotted path or a JSON Pointer (`{parent./a~1b}`), in a path, a header's value, a body or GraphQL
/// variables. A `{` that does not start `{parent.` is text.
///
/// A placeholder's value comes from the server, so it is made to address nothing but its own parent's
/// child: in a URL it is percent-encoded as one path segment or one query value (a `/`, `?`, `#`, `%` or
/// `..` in it is data), in a header it may hold no control character, in JSON it is one string's content
/// (or, filling a whole string, the field's own JSON scalar). A placeholder that is a whole path is a URL
/// reference (GitHub's records carry their children's URLs): it must be an http or https URL that passes
/// the strict URL check, on the source's own origin.
public struct ParentTemplate: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case text(String)
        /// A field of the parent record, and the placeholder as written.
        case field(FieldPath, written: String)
    }

    public let parts: [Part]

    /// The template of `text`.
    /// - Throws: ``ParentError`` for a `{parent.` with no `}`, or a field that is not a path.
    public init(_ text: String) throws(ParentError) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{parent.") {
            literal += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw ParentError("'{parent.' with no '}'")
            }
            let written = String(rest[open.lowerBound...close])
            let path: FieldPath
            do {
                path = try FieldPath.parse(String(rest[open.upperBound..<close]))
            } catch {
                throw ParentError("\(SourceError.clip(written)): \(error)")
            }
            if !literal.isEmpty { parts.append(.text(literal)) }
            literal = ""
            parts.append(.field(path, written: written))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty || parts.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    /// Whether the text has a placeholder.
    public var hasPlaceholders: Bool { parts.contains { if case .field = $0 { true } else { false } } }

    /// Whether the text is one placeholder and nothing else.
    public var isOnePlaceholder: Bool {
        if parts.count == 1, case .field = parts[0] { return true }
        return false
    }

    /// The longest value a placeholder takes, in bytes.
    public static let maxValueBytes = 2048

    /// The URL of a child: the template of its path, with its placeholders' values percent-encoded (one
    /// segment before the first `?`, one query value after it), put after `folder` (the base URL, ending
    /// in `/`) unless it is a whole URL. A template that is one placeholder is a whole URL the parent
    /// holds, which must be on `origin`.
    public func url(for parent: ParentRecord, folder: String?, origin: Origin?) throws(ParentError) -> String {
        if isOnePlaceholder, case .field(let path, _) = parts[0] {
            let value = try parent.text(at: path)
            let place = "\(parent.place), field \(path)"
            if let problem = PageLocator.urlProblem(value, what: "the URL") {
                throw ParentError("\(place): \(problem)")
            }
            guard let origin, Origin(value) == origin else {
                throw ParentError(
                    "\(place): the URL '\(SourceError.clip(value))' is not on the source's origin; children are fetched from it only"
                )
            }
            return value
        }
        var text = ""
        var inQuery = false
        for part in parts {
            switch part {
            case .text(let literal):
                text += literal
                if literal.contains("?") { inQuery = true }
            case .field(let path, _):
                text += Self.percentEncoded(try parent.text(at: path), dots: !inQuery)
            }
        }
        if Self.isWholeURL(text) {
            // A whole URL written in the template: its host is the template's own, never a parent's value.
            guard case .text(let literal) = parts[0], let scheme = literal.firstRange(of: "://"),
                literal[scheme.upperBound...].contains("/") || parts.count == 1
            else {
                throw ParentError(
                    "\(parent.place): a placeholder in the host of a child's URL, which the parent would choose")
            }
            return text
        }
        return (folder ?? "") + text.drop { $0 == "/" }
    }

    /// Whether `text` is a whole http or https URL, not a path: its scheme is read without regard to case,
    /// as RFC 3986 reads it (`HTTPS://` and `htTp://` are whole URLs too).
    public static func isWholeURL(_ text: String) -> Bool {
        let start = text.prefix(8).lowercased()
        return start.hasPrefix("http://") || start.hasPrefix("https://")
    }

    /// A header's value with the placeholders' values as they are.
    /// - Throws: ``ParentError`` for a value with a control character (a header it would end).
    public func headerValue(for parent: ParentRecord) throws(ParentError) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .field(let path, _):
                let value = try parent.text(at: path)
                guard !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                    throw ParentError("\(parent.place), field \(path): a control character, which a header cannot hold")
                }
                text += value
            }
        }
        return text
    }

    /// Every byte but RFC 3986's unreserved ones (letters, digits, `-._~`) as `%XX`; with `dots`, a value
    /// of dots alone (`.`, `..`: a segment that climbs) has them encoded too.
    static func percentEncoded(_ value: String, dots: Bool) -> String {
        let climbs = dots && value.utf8.allSatisfy { $0 == UInt8(ascii: ".") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            let unreserved =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || (byte == UInt8(ascii: ".") && !climbs)
            if unreserved {
                bytes.append(byte)
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension ParentTemplate {
    /// A JSON document (a body, GraphQL variables) with the placeholders in its strings filled: inside a
    /// string, the value is that string's content; a string that is one placeholder becomes the field's
    /// own value (a number stays a number). Keys are left as they are.
    public static func json(_ text: String, for parent: ParentRecord) throws(ParentError) -> String {
        let tree: JSONTree
        do {
            tree = try JSONTree.parse(Array(text.utf8))
        } catch {
            throw ParentError("not JSON: \(error.description)")
        }
        return String(decoding: try filled(tree, parent).bytes, as: UTF8.self)
    }

    private static func filled(_ node: JSONTree, _ parent: ParentRecord) throws(ParentError) -> JSONTree {
        switch node {
        case .string(let text):
            let template = try ParentTemplate(text)
            guard template.hasPlaceholders else { return node }
            if template.isOnePlaceholder, case .field(let path, _) = template.parts[0] {
                return try parent.scalar(at: path)
            }
            var filled = ""
            for part in template.parts {
                switch part {
                case .text(let literal): filled += literal
                case .field(let path, _): filled += try parent.text(at: path)
                }
            }
            return .string(filled)
        case .array(let elements):
            var result: [JSONTree] = []
            for element in elements { result.append(try filled(element, parent)) }
            return .array(result)
        case .object(let members):
            var result: [JSONTree.Member] = []
            for member in members {
                result.append(JSONTree.Member(key: member.key, value: try filled(member.value, parent)))
            }
            return .object(result)
        default:
            return node
        }
    }
}

/// A parent's record, as its child's placeholders read it.
public struct ParentRecord: Sendable {
    /// The parent resource's name.
    public var resource: String
    /// The record's key in its table (its id; under a parent of its own, that parent's key and its id).
    public var key: String
    public var tree: JSONTree

    /// The largest record read as a parent.
    public static let maxBytes = 1 << 20

    /// - Throws: ``ParentError`` when `json` is not one JSON object within the limits.
    public init(resource: String, key: String, json: [UInt8]) throws(ParentError) {
        self.resource = resource
        self.key = key
        tree = .null
        guard json.count <= Self.maxBytes else {
            throw ParentError("\(place): \(json.count) bytes, over the \(Self.maxBytes) a parent may have")
        }
        do {
            tree = try JSONTree.parse(json)
        } catch {
            throw ParentError("\(place): \(error.description)")
        }
        guard case .object = tree else { throw ParentError("\(place): not a JSON object") }
    }

    /// "resource 'issues' record 17", for errors.
    public var place: String { "resource '\(resource)' record \(SourceError.clip(key))" }

    /// The scalar at `path`: a string, a number or a boolean.
    /// - Throws: ``ParentError`` naming the record and the field when it is missing, null, an object or an
    ///   array, empty, or longer than ``ParentTemplate/maxValueBytes``.
    public func scalar(at path: FieldPath) throws(ParentError) -> JSONTree {
        guard let node = tree.value(at: path) else { throw ParentError("\(place): field \(path) is missing") }
        let length: Int
        switch node {
        case .null: throw ParentError("\(place): field \(path) is null")
        case .object, .array: throw ParentError("\(place): field \(path) is not a value (a string, number or boolean)")
        case .string(let text):
            guard !text.isEmpty else { throw ParentError("\(place): field \(path) is empty") }
            length = text.utf8.count
        case .number(let text): length = text.utf8.count
        case .bool: length = 5
        }
        guard length <= ParentTemplate.maxValueBytes else {
            throw ParentError(
                "\(place): field \(path) is \(length) bytes, over the \(ParentTemplate.maxValueBytes) a placeholder takes"
            )
        }
        return node
    }

    /// The scalar at `path` as text: a string's content, a number as written, `true` or `false`.
    public func text(at path: FieldPath) throws(ParentError) -> String {
        switch try scalar(at: path) {
        case .string(let text): return text
        case .number(let text): return text
        case .bool(let value): return value ? "true" : "false"
        default: return ""
        }
    }

    /// The value at `path` as a column holds it: a string's content, any other value's JSON; `nil` when
    /// missing or null.
    public func column(at path: FieldPath) -> String? {
        switch tree.value(at: path) {
        case .null, nil: return nil
        case .string(let text)?: return text
        case let node?: return String(decoding: node.bytes, as: UTF8.self)
        }
    }
}

/// Why a parent's record cannot make its child's request: the record, the field and what is wrong. No
/// request is sent for that child.
public struct ParentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
