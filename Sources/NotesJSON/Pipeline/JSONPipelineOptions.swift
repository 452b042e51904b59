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

/// A ``JSONStreamParser`` whose work moves to a second thread once a document is past
/// ``JSONPipelineOptions/threshold``: that thread runs the scanner and yajl and records the events into a
/// bounded ring of blocks; the caller's thread copies the input in and replays the events into the handler.
///
/// Everything the handler sees, every error and its offset, is what ``JSONStreamParser`` gives for the
/// same input: the parsing thread runs one, fed the same pieces. What differs is when: ``feed(_:)``
/// returns once its bytes are in the ring, so the handler may not have seen all their events yet (nor
/// the error among them, which a later call throws). ``synchronize()`` waits until it has. The first error
/// in the document's order wins: the parsing thread's is the last event of its block, so a handler that
/// stops at an earlier event reports that one, at the offset just past its token; and a stop makes the
/// parsing thread stop too.
///
/// Memory: the ring's `blocks × (blockBytes + events + arena)` (``EventBlock``), allocated when the
/// document passes the threshold, besides ``JSONStreamParser``'s.
