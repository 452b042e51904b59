#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thread of one lane of a ``NotesFetcher``: it runs the lane's blocking exchanges (a transport blocks
/// the thread that calls it) and, as a `TaskExecutor`, the sequential walk itself, which prefers it. A
/// page of that walk then runs where the walk already is, with no hop from the walk's thread to the
/// transport's and back (two thread wake-ups a page, which cost more than a 100-note page's decoding on a
/// loaded machine).
///
/// The thread starts with the first work and ends with the lane (the last fetcher sharing it).
final class LaneThread: TaskExecutor, @unchecked Sendable {
    private let queue = WorkQueue()
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    // Behind `lock`.
    private var thread: pthread_t?

    init() {
        pthread_mutex_init(lock, nil)
    }

    deinit {
        queue.close()
        if let thread {
            // The last reference may go on the lane's own thread, which then ends on its own.
            if pthread_equal(thread, pthread_self()) != 0 {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `work` on the lane's thread, after the work before it.
    func async(_ work: @escaping () -> Void) {
        startIfNeeded()
        queue.submit(work)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        async { job.runSynchronously(on: executor) }
    }

    private func startIfNeeded() {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        guard thread == nil else { return }
        final class Box {
            let queue: WorkQueue
            init(_ queue: WorkQueue) { self.queue = queue }
        }
        let box = Unmanaged.passRetained(Box(queue)).toOpaque()
        #if canImport(Glibc)
            var created = pthread_t()
            let result = pthread_create(
                &created, nil,
                { raw in
                    Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().queue.serve()
                    return nil
                }, box)
            precondition(result == 0, "pthread_create failed: \(result)")
            thread = created
        #else
            var created: pthread_t?
            let result = pthread_create(
                &created, nil,
                { raw in
                    Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().queue.serve()
                    return nil
                }, box)
            precondition(result == 0, "pthread_create failed: \(result)")
            thread = created
        #endif
    }
}

/// Work for one thread, in order, until closed; behind a pthread mutex (which ThreadSanitizer sees).
private final class WorkQueue: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Behind `mutex`.
    private var work: [() -> Void] = []
    private var closed = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func submit(_ item: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        work.append(item)
        pthread_cond_signal(changed)
        pthread_mutex_unlock(mutex)
    }

    /// Ends ``serve()`` once the work already submitted is done.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_signal(changed)
        pthread_mutex_unlock(mutex)
    }

    func serve() {
        var batch: [() -> Void] = []
        while true {
            pthread_mutex_lock(mutex)
            while work.isEmpty && !closed { pthread_cond_wait(changed, mutex) }
            if work.isEmpty {
                pthread_mutex_unlock(mutex)
                return
            }
            swap(&batch, &work)
            pthread_mutex_unlock(mutex)
            for item in batch { item() }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
