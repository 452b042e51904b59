/// Why a document was refused, and where.
///
/// The message is short and safe to log: it never quotes the input.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// yajl rejected the text (a lexical or parse error).
        case syntax
        /// Text yajl would let through but JSON forbids: invalid or overlong UTF-8, an encoded or escaped
        /// lone surrogate, a control character in a string, a form feed or other control byte between
        /// tokens.
        case invalidText
        /// The input ended before the document was complete.
        case truncated
        /// A limit of ``JSONLimits`` was hit; nothing past it reached yajl.
        case limitExceeded(JSONLimit)
        /// The ``JSONEventHandler`` returned `false`.
        case stopped
    }

    public var kind: Kind
    /// Byte offset in the document: the offending byte, or just past the token the handler stopped at.
    public var offset: Int
    public var message: String

    public init(_ kind: Kind, offset: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset)" }
}
