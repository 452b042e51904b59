/// Hard bounds on one JSON document, enforced on the bytes before they reach yajl.
public struct JSONLimits: Sendable, Hashable {
    /// Most bytes the whole document may have, trailing whitespace included.
    public var maxDocumentBytes: Int
    /// Most bytes one string, key or number may have as written (between the quotes for strings,
    /// escapes counted as written). yajl copies a token that spans chunks whole into its own buffer, so
    /// this bounds that buffer.
    public var maxTokenBytes: Int
    /// Most arrays and objects open at once.
    public var maxDepth: Int

    /// - Parameters:
    ///   - maxDocumentBytes: Defaults to 64 MiB.
    ///   - maxTokenBytes: Defaults to 1 MiB.
    ///   - maxDepth: Defaults to 64.
    public init(maxDocumentBytes: Int = 64 << 20, maxTokenBytes: Int = 1 << 20, maxDepth: Int = 64) {
        precondition(maxDocumentBytes >= 0 && maxTokenBytes >= 0 && maxDepth >= 0, "limits are not negative")
        self.maxDocumentBytes = maxDocumentBytes
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
    }
}

/// A limit that was hit, with its value.
public enum JSONLimit: Sendable, Hashable {
    case documentBytes(Int)
    case tokenBytes(Int)
    case depth(Int)
}
