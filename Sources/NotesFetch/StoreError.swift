/// Where a walk commits its pages failed: it cannot be read or written, belongs to another walk, or its
/// database server is unreachable or refuses the credentials. Pages committed before it stay. The store
/// (NotesStore) throws it; a walk that meets it stops with ``FetchError/Code/output(_:)`` holding it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, which decides the command's exit code.
    public enum Kind: Sendable, Hashable {
        /// Reading or writing failed, or the destination belongs to another walk (exit 74).
        case output
        /// A database server that cannot be reached (exit 69).
        case unavailable
        /// A database server that refused the credentials (exit 77).
        case credentials
        /// A record the copy cannot take: one another unit of the same run committed (exit 65).
        case record
    }

    public var description: String
    public var kind: Kind

    public init(_ description: String, kind: Kind = .output) {
        self.description = description
        self.kind = kind
    }
}
