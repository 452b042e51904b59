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
/// in the document's order wins: the parsing thread's is the last record of its block, so a handler that
/// stops at an earlier event reports that one, at the offset just past its token; and a stop makes the
/// parsing thread stop too.
///
/// Memory: the ring's `blocks × (blockBytes + records + arena)` (``EventBlock``), allocated when the
/// document passes the threshold, besides ``JSONStreamParser``'s.
package struct PipelinedJSONParser: ~Copyable {
    private let core: PipelineCore

    /// - Parameters:
    ///   - limits: The bounds to enforce.
    ///   - handler: Receives every event, on the caller's thread.
    ///   - options: Defaults to ``JSONPipelineOptions/init(threshold:blockBytes:blocks:)``'s.
    ///   - worker: The parsing thread and ring to borrow once past the threshold, kept from document to
    ///     document (a walk's pages); `nil`, or a worker another document holds, starts a thread of this
    ///     document's own.
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

    /// Ends the document: waits for every event, then for the parse's end.
    /// - Throws: ``JSONError``, as ``JSONStreamParser/finish()``.
    package mutating func finish() throws(JSONError) {
        try core.finish()
    }

    /// The state shared with the parsing thread: it lives as long as that thread does.
    package var sharedState: AnyObject { core }

    /// The most ring blocks in use at once so far (copied in, parsed or being replayed): never more than
    /// ``JSONPipelineOptions/blocks``.
    package var peakBlocksInUse: Int { core.peakBlocksInUse }
}

/// The state behind a ``PipelinedJSONParser``, shared with its parsing thread.
///
/// The caller's thread owns everything but the ring's counters, which sit behind the ring's mutex, and the
/// ring's blocks, each owned by one thread at a time, handed over under that mutex. While the parsing
/// thread runs it alone uses ``parser``.
private final class PipelineCore: @unchecked Sendable {
    private(set) var options: JSONPipelineOptions
    var parser: JSONStreamParser
    /// The handler the document's events go to, on the caller's thread.
    let handler: any JSONEventHandler
    /// Set once the document passes the threshold.
    var ring: EventRing?
    /// Runs ``work()`` once the document passes the threshold: the worker lent for the document, or a
    /// thread of its own.
    private let worker: JSONPipelineWorker?
    /// Whether ``ring`` is the worker's (not to be freed here).
    private var borrowed = false
    /// Whether ``work()`` may still be running: from ``start()`` until it is waited for.
    private var working = false
    private var thread: WorkerThread?
    private var recorder: EventRecorder?
    /// The scan stage, on the caller's thread once the parse has moved: taken over from ``parser`` at the
    /// threshold, so that the two threads share the work about evenly (scan and replay here; yajl and
    /// recording there).
    private var scanStage: PieceScanner?

    // The caller's side.
    /// Bytes fed so far.
    private var fed = 0
    private var failure: JSONError?
    private var finished = false
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
        parser = JSONStreamParser(limits: limits, handler: handler)
    }

    deinit {
        if !borrowed { ring?.deallocate() }
    }

    var offset: Int {
        guard ring != nil else { return parser.offset }
        catchUp()
        return replayedOffset
    }

    func announce(byteCount: Int) {
        guard fed == 0, ring == nil else { return }
        options.threshold = byteCount > options.threshold ? 0 : .max
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "feed(_:) after finish()")
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
                // there, and this call says which error came first, as one thread would.
                catchUp()
                if let failure { throw failure }
                preconditionFailure("the parse went past the end the scan found")
            }
            if filling!.pointee.room == 0 { publish() }
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
        if fed > maxDocumentBytes {
            // The parse stops at the cap, if not before: say which in this call, as one thread would.
            catchUp()
            if let failure { throw failure }
        }
        // Keep the notes coming: whatever the parsing thread has finished, without waiting for more.
        while try replayNext(waiting: false) {}
    }

    func catchUp() {
        // Once the work has ended (finished, or stopped) every block is replayed, and the ring, if it was a
        // worker's, may already be another document's.
        guard ring != nil, working, failure == nil else { return }
        do {
            if filling != nil { publish() }
            while replayed < ring!.filled { _ = try replayNext(waiting: true) }
        } catch {
            // Kept in `failure`: the next feed or finish throws it.
        }
    }

    func finish() throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "finish() called twice")
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
        } else if let worker {
            worker.finishJob()
        }
    }

    // MARK: - The caller's side of the ring

    /// Moves the parse to a thread of its own: from now on the parser's events are recorded into the ring.
    private func start() {
        let lent = worker?.lend(blocks: options.blocks, blockBytes: options.blockBytes)
        let ring = lent ?? EventRing(blocks: options.blocks, blockBytes: options.blockBytes)
        self.ring = ring
        borrowed = lent != nil
        let context = parser.callbackContext
        let recorder = EventRecorder(position: context.position)
        self.recorder = recorder
        context.position.pointee.recorder = Unmanaged.passUnretained(recorder)
        replayedOffset = parser.offset
        if options.scansOnCaller { scanStage = parser.pieceScanner }
        working = true
        if let worker, borrowed {
            worker.run { [self] in work() }
        } else {
            let thread = WorkerThread(name: "notes-parse")
            thread.submit { [self] in work() }
            self.thread = thread
        }
    }

    /// Waits for a free block to fill, replaying parsed ones meanwhile.
    private func take() throws(JSONError) {
        let ring = ring!
        while ring.filled - replayed == ring.count { _ = try replayNext(waiting: true) }
        filling = ring.block(ring.filled)
        peakBlocksInUse = max(peakBlocksInUse, ring.filled + 1 - replayed)
    }

    /// Hands the block being filled to the parsing thread.
    private func publish() {
        filling = nil
        ring!.publish()
    }

    /// Replays the next parsed block, if there is one (or, `waiting`, once there is).
    /// - Returns: Whether a block was replayed.
    /// - Throws: The first error of the document, the handler's stop or the parser's error.
    private func replayNext(waiting: Bool) throws(JSONError) -> Bool {
        let ring = ring!
        guard replayed < ring.filled, ring.waitParsed(beyond: replayed, waiting: waiting) else { return false }
        let block = ring.block(replayed)
        defer {
            block.pointee.reset()
            replayed += 1
        }
        let records = block.pointee.records
        for index in 0..<block.pointee.recordCount {
            let record = records[index]
            let event: JSONEvent
            switch record.kind {
            case .startObject: event = .startObject
            case .endObject: event = .endObject
            case .startArray: event = .startArray
            case .endArray: event = .endArray
            case .key: event = .key(block.pointee.bytes(of: record))
            case .string: event = .string(block.pointee.bytes(of: record))
            case .number: event = .number(block.pointee.bytes(of: record))
            case .isFalse: event = .bool(false)
            case .isTrue: event = .bool(true)
            case .null: event = .null
            case .pieceEnd:
                replayedOffset = record.end
                continue
            }
            if !handler.handle(event) {
                // The parser's offset is the end of the piece holding this event, as on one thread.
                var after = index + 1
                while after < block.pointee.recordCount && records[after].kind != .pieceEnd { after += 1 }
                if after < block.pointee.recordCount { replayedOffset = records[after].end }
                try fail(JSONError(.stopped, offset: record.end, message: "stopped by the handler"))
            }
        }
        if let error = block.pointee.failure { try fail(error) }
        return true
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
            recorder!.state.pointee.block = block
            let ended = parse(block)
            ring.parsed(index + 1)
            if ended { return }
            index += 1
        }
    }

    /// Parses one block's pieces into its records. - Returns: Whether the document ended (an error, or
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
                block.pointee.record(.pieceEnd, end: parser.offset)
                return true
            }
            block.pointee.record(.pieceEnd, end: parser.offset)
            start = piece.end
        }
        guard block.pointee.isLast else { return false }
        do {
            try parser.finish()
        } catch {
            block.pointee.failure = error
        }
        block.pointee.record(.pieceEnd, end: parser.offset)
        return true
    }
}

/// The ring's blocks and the counters that hand them between the two threads, behind a pthread mutex
/// (which ThreadSanitizer sees, unlike `Synchronization.Mutex`'s futex).
///
/// Block `i` (counted from the document's first) is `blocks[i % count]`. The caller fills blocks and
/// publishes them (`filled`), the parsing thread parses them in order (`parsed`), the caller replays and
/// empties them; it fills a block only once the one `count` before it is replayed, so the ring never
/// holds more than `count` blocks.
private final class EventRing: @unchecked Sendable {
    let count: Int
    let blockBytes: Int
    private let blocks: UnsafeMutablePointer<EventBlock>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Signalled when a block is published or the ring stops; when a block is parsed.
    private let published: UnsafeMutablePointer<pthread_cond_t>
    private let parsedSignal: UnsafeMutablePointer<pthread_cond_t>
    // Behind `mutex`.
    private var filledCount = 0
    private var parsedCount = 0
    private var stopped = false

    init(blocks count: Int, blockBytes: Int) {
        self.count = count
        self.blockBytes = blockBytes
        blocks = .allocate(capacity: count)
        for index in 0..<count { (blocks + index).initialize(to: EventBlock(inputCapacity: blockBytes)) }
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        published = .allocate(capacity: 1)
        pthread_cond_init(published, nil)
        parsedSignal = .allocate(capacity: 1)
        pthread_cond_init(parsedSignal, nil)
    }

    /// Frees the blocks; only once the parsing thread has ended.
    func deallocate() {
        for index in 0..<count { blocks[index].deallocate() }
        blocks.deinitialize(count: count)
        blocks.deallocate()
        pthread_cond_destroy(published)
        published.deallocate()
        pthread_cond_destroy(parsedSignal)
        parsedSignal.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func block(_ index: Int) -> UnsafeMutablePointer<EventBlock> { blocks + index % count }

    /// Blocks published so far (the caller's own count: only the caller changes it).
    var filled: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return filledCount
    }

    /// The caller: the next block is ready to parse.
    func publish() {
        pthread_mutex_lock(mutex)
        filledCount += 1
        pthread_cond_signal(published)
        pthread_mutex_unlock(mutex)
    }

    /// The caller: whether block `index` is parsed, waiting for it if `waiting`.
    func waitParsed(beyond index: Int, waiting: Bool) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while parsedCount <= index {
            guard waiting else { return false }
            pthread_cond_wait(parsedSignal, mutex)
        }
        return true
    }

    /// The parsing thread: waits until block `index` is published. - Returns: `false` once stopped.
    func waitFilled(beyond index: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while filledCount <= index && !stopped { pthread_cond_wait(published, mutex) }
        return !stopped
    }

    /// The parsing thread: blocks before `count` are parsed.
    func parsed(_ count: Int) {
        pthread_mutex_lock(mutex)
        parsedCount = count
        pthread_cond_signal(parsedSignal)
        pthread_mutex_unlock(mutex)
    }

    /// Empties every block and the counters, for the next document; only while no thread parses.
    func reset() {
        for index in 0..<count { blocks[index].reset() }
        pthread_mutex_lock(mutex)
        filledCount = 0
        parsedCount = 0
        stopped = false
        pthread_mutex_unlock(mutex)
    }

    /// Tells the parsing thread to stop at its next block.
    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_signal(published)
        pthread_mutex_unlock(mutex)
    }
}

/// A parsing thread and its ring, kept from one document to the next: a walk's pages each borrow it once
/// past the threshold, so a page pays neither a thread's start nor a fresh ring (whose first touch costs
/// page faults), which is what lets pages far smaller than a lone document's threshold use both cores.
///
/// One document at a time: a document that finds the worker lent to another starts a thread of its own.
/// The thread starts with the first document that borrows the worker and ends with the worker.
///
/// Memory: one ring, as a document on its own would have (``JSONPipelineOptions``), for the worker's life.
package final class JSONPipelineWorker: @unchecked Sendable {
    private let thread: WorkerThread
    private var ring: EventRing?
    /// Whether a document holds the ring: set by ``lend(blocks:blockBytes:)``, cleared by ``finishJob()``.
    private var lent = false
    private let lock = Mutex(())

    /// - Parameter name: The thread's name (at most 15 bytes).
    package init(name: String = "notes-parse") {
        thread = WorkerThread(name: name)
    }

    deinit {
        ring?.deallocate()  // no document holds the worker (a document keeps it alive), so no job runs
    }

    /// The ring, emptied, for a document to use with ``run(_:)``; `nil` while another document holds it.
    /// A ring of another shape is replaced.
    fileprivate func lend(blocks: Int, blockBytes: Int) -> EventRing? {
        let available = lock.withLock { _ in
            if lent { return false }
            lent = true
            return true
        }
        guard available else { return nil }
        if let ring, ring.count != blocks || ring.blockBytes != blockBytes {
            ring.deallocate()
            self.ring = nil
        }
        if ring == nil { ring = EventRing(blocks: blocks, blockBytes: blockBytes) }
        ring!.reset()
        return ring
    }

    /// Runs `job` (the borrowing document's parse) on the worker's thread.
    fileprivate func run(_ job: @escaping () -> Void) {
        thread.submit(job)
    }

    /// Waits until the job has ended, and takes the ring back.
    fileprivate func finishJob() {
        thread.awaitIdle()
        lock.withLock { _ in lent = false }
    }

    /// Documents whose parse ran on the worker's thread so far.
    package var documentsParsed: Int { thread.completed }
}
