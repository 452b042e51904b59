public import NotesPage

/// What a GraphQL document asks for, read far enough to walk one connection of it: the operation's kind
/// and variables, and the selections at the connection's path. Anything a walk cannot follow is a
/// ``GraphQLQuery/Problem`` before any request, so that a query that forgets its cursor variable is an
/// error, not a walk that asks for the first page forever.
///
/// It reads the executable subset of the GraphQL grammar (October 2021): operations, fields with aliases,
/// arguments and directives (skipped, balanced), fragment spreads, inline fragments and fragment
/// definitions. Selections reached through fragments count as the field's own.
public struct GraphQLQuery: Sendable, Hashable {
    /// How the connection lists its records.
    public enum Shape: String, Sendable, Hashable {
        /// `edges { node { … } }`: each edge's `node` is a record.
        case edges
        /// `nodes { … }`: each element is a record.
        case nodes
    }

    /// Why a query cannot be walked.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The query's text, sent as it is.
    public let text: String
    /// The connection's response path, e.g. `data.repository.issues`.
    public let connection: FieldPath
    public let shape: Shape
    /// The variable that takes the cursor, without its `$`.
    public let cursorVariable: String
    /// Whether the connection asks for `totalCount`.
    public let asksTotalCount: Bool
    /// Whether `pageInfo` comes before the records in the response (the query's field order decides), so
    /// that the next cursor is known before the records stream.
    public let pageInfoFirst: Bool

    /// Reads `text` and checks that the connection at `connection` can be walked with `cursorVariable`.
    /// - Parameters:
    ///   - text: The query, as GraphQL writes it.
    ///   - connection: The connection's path in the response, starting with `data`.
    ///   - cursorVariable: Defaults to `after`.
    /// - Throws: ``Problem``: not a query (a mutation or subscription), a syntax error, the variable not
    ///   declared or not passed to the connection, no such connection, no `edges { node }` or `nodes`, no
    ///   `pageInfo { hasNextPage endCursor }`.
    public init(_ text: String, connection: FieldPath, cursorVariable: String = "after") throws(Problem) {
        self.text = text
        self.connection = connection
        self.cursorVariable = cursorVariable
        var parser = Parser(Array(text.utf8))
        let document = try parser.document()
        let operations = document.operations
        guard let operation = operations.first else { throw Problem("the document has no operation") }
        guard operations.count == 1 else {
            throw Problem("the document has \(operations.count) operations: keep one query")
        }
        guard operation.kind == "query" else {
            throw Problem("the document is a \(operation.kind): only queries are walked (a walk reads, never writes)")
        }
        guard operation.variables.contains(cursorVariable) else {
            throw Problem(
                "the query declares no $\(cursorVariable): declare it, as query($\(cursorVariable): String), pass it to the connection, or name another with --cursor-variable"
            )
        }
        let components = connection.components.map { String(decoding: $0, as: UTF8.self) }
        guard components.count >= 2, components[0] == "data" else {
            throw Problem("the connection path must start with data and name a field, e.g. data.viewer.issues")
        }
        var selections = operation.selections
        var field: Field?
        for (index, key) in components.dropFirst().enumerated() {
            guard let found = document.field(key, in: selections) else {
                let at = components[0...index].joined(separator: ".")
                throw Problem("the query asks for no '\(key)' at \(at)")
            }
            field = found
            selections = found.selections
        }
        guard let field else { throw Problem("no connection") }
        guard field.arguments.contains("$" + cursorVariable) else {
            throw Problem(
                "the connection '\(field.key)' does not take $\(cursorVariable): without it every page would be the first"
            )
        }
        let edges = document.field("edges", in: selections)
        let nodes = document.field("nodes", in: selections)
        let pageInfo = document.field("pageInfo", in: selections)
        switch (edges, nodes) {
        case (.some(let edges), nil):
            guard document.field("node", in: edges.selections)?.selections.isEmpty == false else {
                throw Problem("the connection's edges ask for no node { … }")
            }
            shape = .edges
        case (nil, .some):
            shape = .nodes
        case (.some, .some):
            throw Problem("the connection asks for both edges and nodes: keep one")
        case (nil, nil):
            throw Problem("the connection asks for neither edges { node { … } } nor nodes { … }")
        }
        guard let pageInfo, document.field("hasNextPage", in: pageInfo.selections) != nil,
            document.field("endCursor", in: pageInfo.selections) != nil
        else { throw Problem("the connection must ask for pageInfo { hasNextPage endCursor }") }
        asksTotalCount = document.field("totalCount", in: selections) != nil
        let records = (edges ?? nodes)!
        pageInfoFirst = pageInfo.order < records.order
    }

    // MARK: - The document

    struct Field: Hashable {
        /// The response key: the alias, else the name.
        var key: String
        /// The arguments' text, for the cursor variable.
        var arguments: String
        var selections: [Selection]
        /// Where the field starts in the text: response keys come in the order of the query's fields.
        var order: Int
    }

    indirect enum Selection: Hashable {
        case field(Field)
        case spread(String)
        case inline([Selection])
    }

    struct Operation: Hashable {
        var kind: String
        var variables: [String]
        var selections: [Selection]
    }

    struct Document {
        var operations: [Operation] = []
        var fragments: [String: [Selection]] = [:]

        /// The field with response key `key` among `selections`, fragments followed (at most 64 deep, so
        /// that fragments that spread each other end).
        func field(_ key: String, in selections: [Selection], depth: Int = 0) -> Field? {
            guard depth < 64 else { return nil }
            for selection in selections {
                switch selection {
                case .field(let field) where field.key == key:
                    return field
                case .field:
                    continue
                case .inline(let inner):
                    if let found = field(key, in: inner, depth: depth + 1) { return found }
                case .spread(let name):
                    if let inner = fragments[name], let found = field(key, in: inner, depth: depth + 1) {
                        return found
                    }
                }
            }
            return nil
        }
    }

    /// A recursive-descent reader over the query's bytes; nesting is bounded (256) so that no text can
    /// exhaust the stack.
    struct Parser {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Problem) -> Document {
            var document = Document()
            skipIgnored()
            while index < bytes.count {
                if peek("{") {
                    document.operations.append(
                        Operation(kind: "query", variables: [], selections: try selectionSet()))
                } else {
                    let keyword = try name()
                    switch keyword {
                    case "query", "mutation", "subscription":
                        if isNameStart(current) { _ = try name() }
                        var variables: [String] = []
                        if peek("(") { variables = try variableDefinitions() }
                        try directives()
                        document.operations.append(
                            Operation(kind: keyword, variables: variables, selections: try selectionSet()))
                    case "fragment":
                        let fragment = try name()
                        guard try name() == "on" else { throw problem("expected 'on' after fragment \(fragment)") }
                        _ = try name()
                        try directives()
                        document.fragments[fragment] = try selectionSet()
                    default:
                        throw problem("unexpected '\(keyword.prefix(40))'")
                    }
                }
                skipIgnored()
            }
            return document
        }

        mutating func selectionSet() throws(Problem) -> [Selection] {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 256 else { throw problem("selections nested more than 256 deep") }
            try expect("{")
            var selections: [Selection] = []
            while !peek("}") {
                guard index < bytes.count else { throw problem("a selection set is not closed") }
                if peek("...") {
                    index += 3
                    skipIgnored()
                    if isNameStart(current), !startsName("on") {
                        selections.append(.spread(try name()))
                        try directives()
                    } else {
                        if startsName("on") {
                            _ = try name()
                            _ = try name()
                        }
                        try directives()
                        selections.append(.inline(try selectionSet()))
                    }
                    continue
                }
                let order = index
                // `alias: name`: the response key is the alias.
                let key = try name()
                if peek(":") {
                    index += 1
                    skipIgnored()
                    _ = try name()
                }
                let arguments = peek("(") ? try balanced("(", ")") : ""
                try directives()
                let inner = peek("{") ? try selectionSet() : []
                selections.append(.field(Field(key: key, arguments: arguments, selections: inner, order: order)))
            }
            index += 1
            skipIgnored()
            return selections
        }

        /// `($after: String, $n: Int = 10)`: the variables' names.
        mutating func variableDefinitions() throws(Problem) -> [String] {
            let text = try balanced("(", ")")
            var names: [String] = []
            var reader = Parser(Array(text.utf8))
            while reader.index < reader.bytes.count {
                if reader.bytes[reader.index] == UInt8(ascii: "$") {
                    reader.index += 1
                    if let name = try? reader.name() { names.append(name) }
                } else if reader.bytes[reader.index] == UInt8(ascii: "\"") {
                    try reader.string()
                } else {
                    reader.index += 1
                }
            }
            return names
        }

        mutating func directives() throws(Problem) {
            while peek("@") {
                index += 1
                _ = try name()
                if peek("(") { _ = try balanced("(", ")") }
            }
        }

        /// The text from `open` to its matching `close`, strings skipped whole.
        mutating func balanced(_ open: Character, _ close: Character) throws(Problem) -> String {
            let start = index
            var level = 0
            let (opening, closing) = (open.asciiValue!, close.asciiValue!)
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try string()
                    continue
                }
                if byte == UInt8(ascii: "#") {
                    skipIgnored()
                    continue
                }
                index += 1
                if byte == opening { level += 1 }
                if byte == closing {
                    level -= 1
                    if level == 0 {
                        let text = String(decoding: bytes[start..<index], as: UTF8.self)
                        skipIgnored()
                        return text
                    }
                }
            }
            throw problem("'\(open)' is not closed")
        }

        /// Skips a string or a block string.
        mutating func string() throws(Problem) {
            if bytes[index...].starts(with: #"""""#.utf8) {
                index += 3
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "\\"), bytes[(index + 1)...].starts(with: #"""""#.utf8) {
                        index = min(index + 4, bytes.count)
                    } else if bytes[index...].starts(with: #"""""#.utf8) {
                        index += 3
                        return
                    } else {
                        index += 1
                    }
                }
                throw problem("a block string is not closed")
            }
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index = min(index + 2, bytes.count)
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"): throw problem("a string is not closed on its line")
                default: index += 1
                }
            }
            throw problem("a string is not closed")
        }

        mutating func name() throws(Problem) -> String {
            guard isNameStart(current) else {
                throw problem(index < bytes.count ? "expected a name" : "the document ends early")
            }
            let start = index
            while index < bytes.count, isNameStart(bytes[index]) || (bytes[index] >= 0x30 && bytes[index] <= 0x39) {
                index += 1
            }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            skipIgnored()
            return name
        }

        mutating func expect(_ text: String) throws(Problem) {
            guard peek(text) else { throw problem("expected '\(text)'") }
            index += text.utf8.count
            skipIgnored()
        }

        func peek(_ text: String) -> Bool { bytes[index...].starts(with: text.utf8) }

        func startsName(_ word: String) -> Bool {
            let end = index + word.utf8.count
            return peek(word) && (end >= bytes.count || !isNameStart(bytes[end]))
        }

        var current: UInt8 { index < bytes.count ? bytes[index] : 0 }

        func isNameStart(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }

        /// Whitespace, commas, a byte order mark and comments are ignored tokens in GraphQL.
        mutating func skipIgnored() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","):
                    index += 1
                case UInt8(ascii: "#"):
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                case 0xEF where bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]):
                    index += 3
                default:
                    return
                }
            }
        }

        func problem(_ reason: String) -> Problem {
            var line = 1
            var column = 1
            for byte in bytes[..<min(index, bytes.count)] {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return Problem("line \(line), column \(column): \(reason)")
        }
    }
}
