import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
package struct PipelinedJSONParser: ~Copyable {
    private let core: PipelineCore

    /// - Parameters:
    ///   - limits: The bounds to enforce.
    ///   - handler: Receives every event, on the caller's thread.
    ///   - options: Defaults to ``JSONPipelineOptions/init(threshold:blockBytes:blocks:)``'s.
    ///   - worker: The parsing thread and ring to borrow once past the threshold, kept from document to
    ///     document (a walk's pages); `nil`, or a worker another document holds, starts a thread of this
    ///     document's own (unless this one is held, ``hold()``: its parse then queues behind the other's).
    package init(
        limits: JSONLimits, handler: some JSONEventHandler, options: JSONPipelineOptions = .init(),
        worker: JSONPipelineWorker? = nil
    ) {
        core = PipelineCore(limits: limits, handler: handler, options: options, worker: worker)
    }

    deinit {
        core.stop()
    }

    /// Bytes of the document accepted so far, once the handler has seen their events (this waits for
    /// that); after an error, as ``JSONStreamParser/offset`` would be.
    package var offset: Int { core.offset }

    /// Whether the parse has moved to the second thread.
    package var isPipelined: Bool { core.ring != nil }

    /// Whether the parse is on the second thread, or moves there with the first byte fed (a document
    /// announced past the threshold): a feed then takes a chunk in about the time of a copy.
    package var parsesElsewhere: Bool { core.parsesElsewhere }

    /// Says how long the document is (an HTTP body's `Content-Length`), before its first byte: one that
    /// will pass the threshold moves to the second thread from its first byte, one that will not stays on
    /// the caller's thread whatever arrives. Ignored once bytes have been fed.
    package mutating func announce(byteCount: Int) {
        core.announce(byteCount: byteCount)
    }

    /// Parses the next chunk; the handler may see some of its events only on a later call.
    /// - Throws: ``JSONError``: the first error of the document the handler has reached; then again on
    ///   every call.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        try core.feed(chunk)
    }

    /// Waits until the handler has seen every event of the bytes fed so far. An error met meanwhile is
    /// kept, and thrown by the next ``feed(_:)`` or ``finish()``.
    package func synchronize() {
        core.catchUp()
    }

    /// Waits, block by block, until the handler has seen enough events for `reached()` to hold, or every
    /// event of the bytes fed so far. An error met meanwhile is kept, as with ``synchronize()``.
    package func synchronize(until reached: () -> Bool) {
        core.catchUp(until: reached)
    }

    /// Holds the handler's events back until ``release()``: the bytes fed meanwhile are copied in and parsed
    /// on the second thread (after the document before this one on the same worker), and the handler sees
    /// nothing. What a caller does when another document is still being finished: this one's parse starts,
    /// and its handler is not touched before the other is done. Only while ``parsesElsewhere``, and only
    /// chunks that ``canHold(byteCount:)``.
    package mutating func hold() {
        core.hold()
    }

    /// Whether a chunk of `byteCount` bytes may be fed while holding: its pieces fit in the ring's free
    /// blocks, however the chunks before it filled them.
    package func canHold(byteCount: Int) -> Bool { core.canHold(byteCount: byteCount) }

    /// Whether the handler's events are held back (``hold()``).
    package var isHolding: Bool { core.holding }

    /// Ends a hold: the handler sees the events parsed so far, and the next calls go on as usual.
    /// - Throws: ``JSONError``: the first error of the bytes fed while holding.
    package mutating func release() throws(JSONError) {
        try core.release()
    }

    /// Stops the parse where it is and waits for the parsing thread to leave the document, as the parser's
    /// end does: what a caller does with a document it drops while another may still hold it.
    package func stop() {
        core.stop()
    }

    /// Ends the document: waits for every event, then for the parse's end.
    /// - Throws: ``JSONError``, as ``JSONStreamParser/finish()``.
    package mutating func finish() throws(JSONError) {
        try core.finish()
    }

    /// Where the token the handler is called back for ends, while the parse is on the caller's thread (a
    /// pipelined parse's handler replays events that carry their ends instead).
    package var tokenEnd: JSONTokenEnd { JSONTokenEnd(position: core.parser.callbackContext.position) }

    /// The state shared with the parsing thread: it lives as long as that thread does.
    package var sharedState: AnyObject { core }

    /// The most ring blocks in use at once so far (copied in, parsed or being replayed): never more than
    /// ``JSONPipelineOptions/blocks``.
    package var peakBlocksInUse: Int { core.peakBlocksInUse }
}

/// The document offset just past the token a handler is called back for, read in the callback, on the
/// thread that parses (``PipelinedJSONParser/tokenEnd``).
package struct JSONTokenEnd {
    let position: YajlPosition

    package var offset: Int { position.tokenEnd }
}
