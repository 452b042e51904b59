import NotesSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state behind a ``PipelinedJSONParser``, shared with its parsing thread.
///
/// The caller's thread owns everything but the ring's counters, which sit behind the ring's mutex, and the
/// ring's blocks, each owned by one thread at a time, handed over under that mutex. While the parsing
/// thread runs it alone uses ``parser``.
final class PipelineCore: @unchecked Sendable {
    private(set) var options: JSONPipelineOptions
    var parser: JSONStreamParser
    /// The handler the document's events go to, on the caller's thread.
    let handler: any JSONEventHandler
    /// The same handler when it replays a block's events itself.
    private let blockHandler: (any BlockEventHandler)?
    /// Set once the document passes the threshold.
    var ring: EventRing?
    /// Runs ``work()`` once the document passes the threshold: the worker lent for the document, or a
    /// thread of its own.
    private let worker: JSONPipelineWorker?
    /// The worker's ring this document borrows (then ``ring``, not to be freed here), and its job's ticket.
    private var loan: JSONPipelineWorker.Loan?
    private var ticket = 0
    /// Whether ``work()`` may still be running: from ``start()`` until it is waited for.
    private var working = false
    private var thread: WorkerThread?
    /// Where the parser's yajl is, and which block the parsing thread records its events into.
    private let position: YajlPosition
    /// The scan stage, on the caller's thread once the parse has moved: taken over from ``parser`` at the
    /// threshold, so that the two threads share the work about evenly (scan and replay here; yajl and
    /// recording there).
    private var scanStage: PieceScanner?

    // The caller's side.
    /// Bytes fed so far.
    private var fed = 0
    private var failure: JSONError?
    private var finished = false
    /// Whether the handler is to see no event yet (``hold()``): bytes are copied in and parsed, nothing
    /// is replayed.
    private(set) var holding = false
    /// Whether, while holding, the scan or the cap ended the document: what follows is not taken, and
    /// ``release()`` says why.
    private var endedWhileHolding = false
    /// The parser's offset after the last piece replayed.
    private var replayedOffset = 0
    /// The block being filled, if any: the one after the last published.
    private var filling: UnsafeMutablePointer<EventBlock>?
    /// Blocks replayed and emptied (the caller's count; `ring.filled` and `ring.parsed` are shared).
    private var replayed = 0
    private(set) var peakBlocksInUse = 0

    /// The document byte cap: a chunk past it is refused in the call that feeds it, as on one thread.
    private let maxDocumentBytes: Int

    init(limits: JSONLimits, handler: some JSONEventHandler, options: JSONPipelineOptions, worker: JSONPipelineWorker?)
    {
        self.options = options
        self.worker = worker
        maxDocumentBytes = limits.maxDocumentBytes
        self.handler = handler
        blockHandler = handler as? any BlockEventHandler
        parser = JSONStreamParser(limits: limits, handler: handler)
        position = parser.callbackContext.position
    }

    deinit {
        if loan == nil { ring?.deallocate() }
    }

    var offset: Int {
        guard ring != nil else { return parser.offset }
        catchUp()
        return replayedOffset
    }

    /// Whether the parse is on the other thread, or goes there with the first byte: a feed then only
    /// scans and copies.
    var parsesElsewhere: Bool { ring != nil || (fed == 0 && options.threshold == 0) }

    func announce(byteCount: Int) {
        guard fed == 0, ring == nil else { return }
        options.threshold = byteCount > options.threshold ? 0 : .max
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "feed(_:) after finish()")
        precondition(!holding || parsesElsewhere, "bytes held while the parse is on the caller's thread")
        if endedWhileHolding { return }
        var rest = chunk
        if ring == nil {
            if rest.count <= options.threshold - fed {
                fed += rest.count
                return try parser.feed(rest)
            }
            // Up to the threshold here, rounded up to whole pieces so the pieces stay those of one thread.
            let piece = JSONStreamParser.pieceBytes
            let head = min(rest.count, (max(0, options.threshold - fed) + piece - 1) / piece * piece)
            fed += head
            try parser.feed(UnsafeRawBufferPointer(rebasing: rest[..<head]))
            rest = UnsafeRawBufferPointer(rebasing: rest[head...])
            if rest.isEmpty { return }
            start()
        }
        let piece = min(JSONStreamParser.pieceBytes, options.blockBytes)
        fed += rest.count
        while !rest.isEmpty {
            let count = min(rest.count, piece)
            if let block = filling, block.pointee.room < count { publish() }
            if filling == nil { try take() }
            let bytes = UnsafeRawBufferPointer(rebasing: rest[..<count])
            let scanned = scanStage?.scan(bytes)
            filling!.pointee.append(piece: bytes, scanned: scanned)
            if scanned?.pending != nil {
                // A violation or the cap ends the document here, if nothing before it did: the parse stops
                // there, and this call says which error came first, as one thread would (held, the release).
                if holding { return endHolding() }
                catchUp()
                if let failure { throw failure }
                preconditionFailure("the parse went past the end the scan found")
            }
            if filling!.pointee.room == 0 { publish() }
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
        if fed > maxDocumentBytes {
            // The parse stops at the cap, if not before: say which in this call, as one thread would.
            if holding { return endHolding() }
            catchUp()
            if let failure { throw failure }
        }
        // Keep the notes coming: whatever the parsing thread has finished, without waiting for more.
        if holding { return }
        while try replayNext(waiting: false) {}
    }

    /// Holds the handler's events back: from now until ``release()`` the bytes fed are copied in and
    /// parsed on the other thread, and nothing is replayed. Only while the parse is there (or goes there
    /// with the first byte), and for no more bytes than the ring holds.
    func hold() {
        precondition(parsesElsewhere && !finished, "a hold while the parse is on the caller's thread")
        holding = true
    }

    /// Whether a chunk of `byteCount` bytes fits in the ring's free blocks: each of its pieces may take a
    /// block, and the block being filled may be handed over first.
    func canHold(byteCount: Int) -> Bool {
        let piece = min(JSONStreamParser.pieceBytes, options.blockBytes)
        let inUse = ring.map { $0.filled - replayed + (filling == nil ? 0 : 1) } ?? 0
        return inUse + (byteCount + piece - 1) / piece + 1 <= options.blocks
    }

    /// Ends a hold: the handler sees every event parsed so far.
    /// - Throws: The first error of the bytes fed while holding, as ``feed(_:)`` would have.
    func release() throws(JSONError) {
        guard holding else { return }
        holding = false
        if let failure { throw failure }
        guard ring != nil else { return }
        if endedWhileHolding {
            catchUp()
            if let failure { throw failure }
            preconditionFailure("the parse went past the end the scan or the cap found")
        }
        while try replayNext(waiting: false) {}
    }

    /// While holding, the scan or the cap has ended the document: the block goes to the parsing thread,
    /// which stops at the error, and the bytes after it are not taken.
    private func endHolding() {
        endedWhileHolding = true
        if filling != nil { publish() }
    }

    /// Replays every block fed so far, sleeping for several at a time.
    func catchUp() {
        catchUp(soon: false) { false }
    }

    /// Replays the blocks fed so far until `reached()` holds, block by block: each is replayed as soon as
    /// it is parsed, and the parse goes on meanwhile with the blocks after it.
    func catchUp(until reached: () -> Bool) {
        catchUp(soon: true, until: reached)
    }

    private func catchUp(soon: Bool, until reached: () -> Bool) {
        // Once the work has ended (finished, or stopped) every block is replayed, and the ring, if it was a
        // worker's, may already be another document's.
        guard ring != nil, working, failure == nil, !holding, !reached() else { return }
        do {
            if filling != nil { publish() }
            while replayed < ring!.filled, !reached() { _ = try replayNext(waiting: true, soon: soon) }
        } catch {
            // Kept in `failure`: the next feed or finish throws it.
        }
    }

    func finish() throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "finish() called twice")
        precondition(!holding, "finish() while holding")
        finished = true
        guard let ring else { return try parser.finish() }
        if filling == nil { try take() }
        filling!.pointee.isLast = true
        publish()
        while replayed < ring.filled { _ = try replayNext(waiting: true) }
        awaitWork()
    }

    /// Stops the parsing thread, if it is still at this document, and waits for it to end.
    func stop() {
        guard let ring, working else { return }
        ring.stop()
        awaitWork()
    }

    /// Waits for ``work()`` to end, and gives the worker back.
    private func awaitWork() {
        guard working else { return }
        working = false
        if let thread {
            thread.awaitIdle()
            self.thread = nil
        } else if let worker, let loan {
            worker.finishJob(loan, ticket: ticket)
        }
    }

    // MARK: - The caller's side of the ring

    /// Moves the parse to a thread of its own: from now on the parser's events are recorded into the ring.
    private func start() {
        loan = worker?.lend(blocks: options.blocks, blockBytes: options.blockBytes, queued: holding)
        let ring = loan?.ring ?? EventRing(blocks: options.blocks, blockBytes: options.blockBytes)
        self.ring = ring
        parser.callbackContext.startRecording()
        replayedOffset = parser.offset
        if options.scansOnCaller { scanStage = parser.pieceScanner }
        working = true
        if let worker, loan != nil {
            ticket = worker.run { [self] in work() }
        } else {
            let thread = WorkerThread(name: "notes-parse")
            thread.submit { [self] in work() }
            self.thread = thread
        }
    }

    /// Waits for a free block to fill, replaying parsed ones meanwhile.
    private func take() throws(JSONError) {
        let ring = ring!
        precondition(!holding || ring.filled - replayed < ring.count, "a chunk held that the ring cannot hold")
        while ring.filled - replayed == ring.count { _ = try replayNext(waiting: true) }
        filling = ring.block(ring.filled)
        peakBlocksInUse = max(peakBlocksInUse, ring.filled + 1 - replayed)
    }

    /// Hands the block being filled to the parsing thread.
    private func publish() {
        filling = nil
        ring!.publish()
    }

    /// The most blocks the caller sleeps for at once: when replaying costs about as much as parsing (a
    /// note's JSON kept and written), the blocks parsed while it slept are still to replay once the parse
    /// ends. With 32 blocks of 8 KiB (a walk's pages), four against half of those outstanding: 0.92 × the
    /// wall time of `fetch --all -o /dev/null`, the same CPU time.
    static let maxBlocksPerWake = 4

    /// Replays the next parsed block, if there is one (or, `waiting`, once there is).
    ///
    /// Waiting, it sleeps until half the blocks published and not yet replayed are parsed (at least the
    /// next, at most ``maxBlocksPerWake``): waking for each block would put the caller to sleep again
    /// after each when it replays faster than yajl parses, and halving leaves little to replay once the
    /// parse ends. `soon`, it wakes as soon as the next block is parsed.
    /// - Returns: Whether a block was replayed.
    /// - Throws: The first error of the document, the handler's stop or the parser's error.
    private func replayNext(waiting: Bool, soon: Bool = false) throws(JSONError) -> Bool {
        let ring = ring!
        let filled = ring.filled
        let target = soon ? replayed + 1 : replayed + min((filled - replayed + 1) / 2, Self.maxBlocksPerWake)
        guard replayed < filled, ring.waitParsed(beyond: replayed, waiting: waiting, target: target) else {
            // Blocks are replayed in order, and the parse ends only at the last block or at one with an
            // error, which throws when replayed: it cannot end before a block the caller waits for.
            precondition(!waiting, "the parse ended before a block published")
            return false
        }
        let block = ring.block(replayed)
        defer {
            block.pointee.reset()
            replayed += 1
        }
        let events = block.pointee.events
        let eventCount = block.pointee.eventCount
        let recorded = RecordedEvents(block)
        let stop =
            if let blockHandler {
                blockHandler.handle(recorded: recorded)
            } else {
                replay(recorded)
            }
        // The parser's offset, as on one thread: at a stop, the end of the piece holding the event that
        // stopped (the next piece end, or the last one before it if the piece goes on past the block); else
        // the end of the last piece replayed.
        let after = stop.map { $0 + 1 } ?? eventCount
        let isPieceEnd = { (index: Int) in events[index].kind == .pieceEnd }
        if let end = (after..<eventCount).first(where: isPieceEnd) ?? (0..<after).last(where: isPieceEnd) {
            replayedOffset = events[end].end
        }
        if let stop {
            try fail(JSONError(.stopped, offset: events[stop].end, message: "stopped by the handler"))
        }
        if let error = block.pointee.failure { try fail(error) }
        return true
    }

    /// Gives the handler `events` one by one. - Returns: The index of the event it stopped at, or `nil`.
    private func replay(_ events: RecordedEvents) -> Int? {
        for index in 0..<events.count {
            guard let (event, plain) = events[index] else { continue }
            if !(plain ? handler.handle(plainText: event) : handler.handle(event)) { return index }
        }
        return nil
    }

    private func fail(_ error: JSONError) throws(JSONError) -> Never {
        failure = error
        ring!.stop()
        throw error
    }

    // MARK: - The parsing thread

    private func work() {
        let ring = ring!
        var index = 0
        while ring.waitFilled(beyond: index) {
            let block = ring.block(index)
            position.begin(block)
            let ended = parse(block)
            position.end(block)
            ring.parsed(index + 1, ended: ended)
            if ended { return }
            index += 1
        }
    }

    /// Parses one block's pieces into its events. - Returns: Whether the document ended (an error, or
    /// its last block).
    private func parse(_ block: UnsafeMutablePointer<EventBlock>) -> Bool {
        var start = 0
        for piece in block.pointee.pieces {
            do {
                let bytes = UnsafeRawBufferPointer(start: block.pointee.input + start, count: piece.end - start)
                if let scanned = piece.scanned {
                    try parser.parse(piece: bytes, scanned: scanned)
                } else {
                    try parser.feed(bytes)
                }
            } catch {
                block.pointee.failure = error
                position.record(.pieceEnd, end: parser.offset)
                return true
            }
            position.record(.pieceEnd, end: parser.offset)
            start = piece.end
        }
        guard block.pointee.isLast else { return false }
        do {
            try parser.finish()
        } catch {
            block.pointee.failure = error
        }
        position.record(.pieceEnd, end: parser.offset)
        return true
    }
}
