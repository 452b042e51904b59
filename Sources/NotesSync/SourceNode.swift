import NotesSystem

/// Where a node of a source file starts: 1-based line and column.
public struct SourceMark: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A node of a source file as read, YAML or JSON: a scalar, a sequence or a mapping, with where it starts.
public struct SourceNode: Sendable {
    public enum Value: Sendable {
        /// A scalar's text; `plain` when written without quotes, so that `true` or `12` may be meant as such.
        case scalar(String, plain: Bool)
        case sequence([SourceNode])
        case mapping([SourceEntry])
    }

    public var value: Value
    public var mark: SourceMark

    public init(_ value: Value, at mark: SourceMark) {
        self.value = value
        self.mark = mark
    }

    /// What the node is, for an error: "a mapping", "a list", "a value".
    public var kind: String {
        switch value {
        case .scalar: "a value"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}

/// One key of a mapping and its value. Keys are scalars, each once in its mapping.
public struct SourceEntry: Sendable {
    public var key: String
    public var keyMark: SourceMark
    public var value: SourceNode

    public init(key: String, at keyMark: SourceMark, value: SourceNode) {
        self.key = key
        self.keyMark = keyMark
        self.value = value
    }
}

/// A source file that cannot be used: what is wrong and where (file, line, column), before any request.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var mark: SourceMark?
    public var message: String

    public init(_ message: String, file: String, at mark: SourceMark? = nil) {
        self.file = file
        self.mark = mark
        self.message = message
    }

    public var description: String { mark.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }

    /// `text` cut to 80 bytes of UTF-8, for a message: a key or value from a file is never printed whole.
    public static func clip(_ text: some StringProtocol) -> String { text.clipped(toUTF8Bytes: 80) }
}
