internal import NotesJSON
public import NotesPage

/// A small JSON document held whole, numbers as written and members in order: a request body the walk
/// edits (the cursor of a POST), parsed once with the project's strict parser and written compactly.
public indirect enum JSONTree: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, exactly as written.
    case number(String)
    case string(String)
    case array([JSONTree])
    case object([Member])

    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONTree

        public init(key: String, value: JSONTree) {
            self.key = key
            self.value = value
        }
    }

    /// Why a text is not a JSON document.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`: one JSON document, at most 1 MiB, strings at most 64 KiB, 64 deep.
    public static func parse(_ text: [UInt8]) throws(SyntaxError) -> JSONTree {
        let builder = Builder()
        var parser = JSONStreamParser(
            limits: JSONLimits(maxDocumentBytes: 1 << 20, maxTokenBytes: 64 << 10, maxDepth: 64), handler: builder)
        do {
            try parser.feed(text)
            try parser.finish()
        } catch {
            throw SyntaxError(description: error.description)
        }
        guard let tree = builder.result else { throw SyntaxError(description: "no JSON value") }
        return tree
    }

    /// Whether the value is an object or an array.
    public var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }

    /// The document as compact JSON text.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return bytes
    }

    private func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += Array("null".utf8)
        case .bool(let value): bytes += Array((value ? "true" : "false").utf8)
        case .number(let text): bytes += Array(text.utf8)
        case .string(let text): JSONText.appendQuoted(text, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The document with `value` at `path` (object keys; objects made where a key is missing), replacing
    /// what was there in its place; `nil` when the path goes through something that is not an object.
    public func setting(_ value: JSONTree, at path: ArraySlice<String>) -> JSONTree? {
        guard let key = path.first else { return value }
        guard case .object(var members) = self else { return nil }
        if let index = members.firstIndex(where: { $0.key == key }) {
            guard let inner = members[index].value.setting(value, at: path.dropFirst()) else { return nil }
            members[index].value = inner
        } else {
            guard let inner = JSONTree.object([]).setting(value, at: path.dropFirst()) else { return nil }
            members.append(Member(key: key, value: inner))
        }
        return .object(members)
    }

    /// Builds the tree from the parser's events: a stack of open containers.
    private final class Builder: JSONEventHandler {
        private enum Open {
            case array([JSONTree])
            case object([Member], key: String?)
        }

        private var stack: [Open] = []
        var result: JSONTree?

        func handle(_ event: JSONEvent) -> Bool {
            switch event {
            case .startObject: stack.append(.object([], key: nil))
            case .startArray: stack.append(.array([]))
            case .endObject, .endArray:
                guard let open = stack.popLast() else { return false }
                switch open {
                case .array(let elements): add(.array(elements))
                case .object(let members, _): add(.object(members))
                }
            case .key(let key):
                guard case .object(let members, _) = stack.popLast() else { return false }
                stack.append(.object(members, key: String(decoding: key, as: UTF8.self)))
            case .string(let text): add(.string(String(decoding: text, as: UTF8.self)))
            case .number(let text): add(.number(String(decoding: text, as: UTF8.self)))
            case .bool(let value): add(.bool(value))
            case .null: add(.null)
            }
            return true
        }

        /// Adds `value` to the open container: taken off the stack first, so that its array is not
        /// copied on each append.
        private func add(_ value: JSONTree) {
            switch stack.popLast() {
            case nil:
                result = value
            case .array(var elements):
                elements.append(value)
                stack.append(.array(elements))
            case .object(var members, let key):
                members.append(Member(key: key ?? "", value: value))
                stack.append(.object(members, key: nil))
            }
        }
    }
}

extension JSONTree {
    /// The value at `path` (object members only), or `nil` when it is not there.
    public func value(at path: FieldPath) -> JSONTree? {
        var node = self
        for component in path.components {
            guard case .object(let members) = node,
                let member = members.first(where: { Array($0.key.utf8) == component })
            else { return nil }
            node = member.value
        }
        return node
    }
}
