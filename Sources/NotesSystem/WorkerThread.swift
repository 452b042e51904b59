#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own that runs the work submitted to it, in order: a large page's parse
/// (``PipelinedJSONParser``, ``JSONPipelineWorker``) and a fetch lane's exchanges (NotesFetch's
/// `LaneThread`). Behind a pthread mutex and condition variable, which ThreadSanitizer sees.
///
/// The thread starts with the first work and ends with the object, once the work submitted is done (if
/// the last reference goes on the thread itself, the thread ends on its own). It carries a name, which
/// `perf`, `top -H` and a debugger show.
package final class WorkerThread: @unchecked Sendable {
    private let queue: Queue

    /// - Parameter name: The thread's name, at most 15 bytes (Linux's limit).
    package init(name: String) {
        precondition(name.utf8.count <= 15, "a thread name of at most 15 bytes")
        queue = Queue(name: name)
    }

    deinit {
        guard let thread = queue.close() else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// Runs `work` on the thread, after the work submitted before it.
    /// - Returns: Its number, for ``awaitCompletion(of:)``.
    @discardableResult
    package func submit(_ work: @escaping () -> Void) -> Int {
        queue.submit(work)
    }

    /// Waits until every piece of work submitted so far has run.
    package func awaitIdle() {
        queue.awaitCompletion(of: nil)
    }

    /// Waits until the work numbered `ticket` (``submit(_:)``) has run, and so all submitted before it; not
    /// for the work submitted after it.
    package func awaitCompletion(of ticket: Int) {
        queue.awaitCompletion(of: ticket)
    }

    /// Pieces of work that have run so far.
    package var completed: Int { queue.completed }

    /// What the thread holds (it keeps the queue alive while it runs): the work and its counters.
    private final class Queue: @unchecked Sendable {
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        // Behind `mutex`.
        private var work: [() -> Void] = []
        private var submitted = 0
        private var done = 0
        private var closed = false
        private var thread: pthread_t?
        private let name: String

        init(name: String) {
            self.name = name
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(changed, nil)
        }

        deinit {
            pthread_cond_destroy(changed)
            changed.deallocate()
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        func submit(_ item: @escaping () -> Void) -> Int {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            precondition(!closed, "work for a closed thread")
            work.append(item)
            submitted += 1
            if thread == nil { start() }
            pthread_cond_broadcast(changed)
            return submitted
        }

        /// Waits until the work numbered `ticket` has run, or (`nil`) the work submitted before the call
        /// (not what others submit meanwhile).
        func awaitCompletion(of ticket: Int?) {
            pthread_mutex_lock(mutex)
            let goal = ticket ?? submitted
            while done < goal { pthread_cond_wait(changed, mutex) }
            pthread_mutex_unlock(mutex)
        }

        var completed: Int {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return done
        }

        /// Lets the thread end once the work is done. - Returns: The thread, if it started.
        func close() -> pthread_t? {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            closed = true
            pthread_cond_broadcast(changed)
            return thread
        }

        /// Starts the thread, which holds the queue until it ends; under the mutex.
        private func start() {
            let box = Unmanaged.passRetained(self).toOpaque()
            #if canImport(Glibc)
                var created = pthread_t()
                let result = pthread_create(
                    &created, nil,
                    { raw in
                        Unmanaged<Queue>.fromOpaque(raw!).takeRetainedValue().serve()
                        return nil
                    }, box)
                thread = created
            #else
                var created: pthread_t?
                let result = pthread_create(
                    &created, nil,
                    { raw in
                        Unmanaged<Queue>.fromOpaque(raw).takeRetainedValue().serve()
                        return nil
                    }, box)
                thread = created
            #endif
            precondition(result == 0, "pthread_create failed: \(result)")
        }

        /// The thread's loop: the work as it comes, until closed and drained. Each piece is released before
        /// it counts as done, so what it captured is gone when ``awaitIdle()`` returns.
        private func serve() {
            #if canImport(Glibc)
                // pthread_setname_np is a GNU extension Swift's Glibc does not import; this is what it does.
                let file = open("/proc/thread-self/comm", O_WRONLY)
                if file >= 0 {
                    _ = name.withCString { write(file, $0, strlen($0)) }
                    Glibc.close(file)
                }
            #else
                pthread_setname_np(name)
            #endif
            while true {
                pthread_mutex_lock(mutex)
                while work.isEmpty && !closed { pthread_cond_wait(changed, mutex) }
                if work.isEmpty {
                    pthread_mutex_unlock(mutex)
                    return
                }
                var item: (() -> Void)? = work.removeFirst()
                pthread_mutex_unlock(mutex)
                item!()
                item = nil
                pthread_mutex_lock(mutex)
                done += 1
                pthread_cond_broadcast(changed)
                pthread_mutex_unlock(mutex)
            }
        }
    }
}
