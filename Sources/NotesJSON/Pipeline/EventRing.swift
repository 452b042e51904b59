import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class EventRing: @unchecked Sendable {
    let count: Int
    let blockBytes: Int
    private let blocks: UnsafeMutablePointer<EventBlock>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Signalled when a block is published or the ring stops; when the parsed blocks reach the count the
    /// caller waits for (``waitParsed(beyond:waiting:target:)``), or the parse ends.
    private let published: UnsafeMutablePointer<pthread_cond_t>
    private let parsedSignal: UnsafeMutablePointer<pthread_cond_t>
    // Behind `mutex`.
    private var filledCount = 0
    private var parsedCount = 0
    private var stopped = false
    /// Whether the parsing thread is done with the document (its last block, or an error): no more blocks
    /// will be parsed.
    private var parseEnded = false
    /// The parsed count the caller sleeps until, if it sleeps: the parsing thread wakes it only then.
    private var wakeAt = Int.max

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

    /// The caller: whether block `index` is parsed. If it is not and `waiting`, waits until the blocks
    /// before `target` (past `index`) are, or the parse has ended: one wake-up for several blocks, where
    /// a wake-up for each would cost both threads a context switch for every block.
    func waitParsed(beyond index: Int, waiting: Bool, target: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if parsedCount > index { return true }
        guard waiting else { return false }
        wakeAt = max(target, index + 1)
        while parsedCount < wakeAt && !parseEnded { pthread_cond_wait(parsedSignal, mutex) }
        wakeAt = .max
        return parsedCount > index
    }

    /// The parsing thread: waits until block `index` is published. - Returns: `false` once stopped.
    func waitFilled(beyond index: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while filledCount <= index && !stopped { pthread_cond_wait(published, mutex) }
        return !stopped
    }

    /// The parsing thread: blocks before `count` are parsed, and whether that `ended` the document's parse.
    func parsed(_ count: Int, ended: Bool) {
        pthread_mutex_lock(mutex)
        parsedCount = count
        parseEnded = ended
        if count >= wakeAt || ended { pthread_cond_signal(parsedSignal) }
        pthread_mutex_unlock(mutex)
    }

    /// Empties every block and the counters, for the next document; only while no thread parses.
    func reset() {
        for index in 0..<count { blocks[index].reset() }
        pthread_mutex_lock(mutex)
        filledCount = 0
        parsedCount = 0
        stopped = false
        parseEnded = false
        wakeAt = .max
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
/// Two documents at a time: the one being finished, and the next, begun meanwhile (its bytes copied in
/// and its parse queued behind the first's, its events held: ``PipelinedJSONParser/hold()``). Any other
/// document that finds a ring lent, or a held one that finds both lent, starts a thread of its own. The thread starts with the first document that
/// borrows the worker and ends with the worker.
///
/// Memory: a ring, as a document on its own would have (``JSONPipelineOptions``), for the worker's life;
/// a second once two documents overlap.
