import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How ``PipelinedJSONParser`` shares a document between two threads.
package struct JSONPipelineOptions: Sendable, Hashable {
    /// Bytes of a document parsed on the caller's thread before the parse moves to a thread of its own;
    /// `Int.max` keeps the whole document on the caller's thread.
    package var threshold: Int
    /// Bytes of input one block of the ring holds.
    package var blockBytes: Int
    /// Blocks in the ring: how far the parsing thread may run ahead of the caller's.
    package var blocks: Int
    /// Where the strict-text scan runs once the parse has moved: on the caller's thread (with the copying
    /// and the replay), or on the parsing thread (with yajl). Whichever evens out the two threads' work:
    /// the caller's also writes each note's JSON when the page keeps it.
    package var scansOnCaller: Bool

    /// - Parameters:
    ///   - threshold: Defaults to 256 KiB: a smaller page costs less on one thread than starting another.
    ///   - blockBytes: Defaults to 64 KiB (``JSONStreamParser``'s piece).
    ///   - blocks: Defaults to 4.
    ///   - scansOnCaller: Defaults to `true`.
    package init(
        threshold: Int = 256 << 10, blockBytes: Int = JSONStreamParser.pieceBytes, blocks: Int = 4,
        scansOnCaller: Bool = true
    ) {
        precondition(threshold >= 0 && blockBytes > 0 && blocks > 0, "a threshold, and a ring of some blocks")
        self.threshold = threshold
        self.blockBytes = blockBytes
        self.blocks = blocks
        self.scansOnCaller = scansOnCaller
    }

    /// Every document on the caller's thread.
    package static let singleThreaded = JSONPipelineOptions(threshold: .max)
}
