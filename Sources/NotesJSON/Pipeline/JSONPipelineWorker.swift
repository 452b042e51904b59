import NotesSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    func lend(blocks: Int, blockBytes: Int) -> EventRing? {
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
    func run(_ job: @escaping () -> Void) {
        thread.submit(job)
    }

    /// Waits until the job has ended, and takes the ring back.
    func finishJob() {
        thread.awaitIdle()
        lock.withLock { _ in lent = false }
    }

    /// Documents whose parse ran on the worker's thread so far.
    package var documentsParsed: Int { thread.completed }
}
