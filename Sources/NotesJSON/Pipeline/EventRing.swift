import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The ring's blocks and the counters that hand them between the two threads, behind a pthread mutex
/// (which ThreadSanitizer sees, unlike `Synchronization.Mutex`'s futex).
///
/// Block `i` (counted from the document's first) is `blocks[i % count]`. The caller fills blocks and
/// publishes them (`filled`), the parsing thread parses them in order (`parsed`), the caller replays and
/// empties them; it fills a block only once the one `count` before it is replayed, so the ring never
/// holds more than `count` blocks.
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
