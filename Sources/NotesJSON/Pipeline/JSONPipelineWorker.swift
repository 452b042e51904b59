import NotesSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsing thread and its ring, kept from one document to the next: a walk's pages each borrow it once
/// past the threshold, so a page pays neither a thread's start nor a fresh ring (whose first touch costs
/// page faults), which is what lets pages far smaller than a lone document's threshold use both cores.
///
/// Two documents at a time: the one being finished, and the next, begun meanwhile (its bytes copied in
/// and its parse queued behind the first's, its events held: ``PipelinedJSONParser/hold()``). Any other
/// document that finds a ring lent, or a held one that finds both lent, starts a thread of its own. The
/// thread starts with the first document that borrows the worker and ends with the worker.
///
/// Memory: a ring, as a document on its own would have (``JSONPipelineOptions``), for the worker's life;
/// a second once two documents overlap.
package final class JSONPipelineWorker: @unchecked Sendable {
    /// A ring lent to a document, and which of the worker's it is.
    struct Loan {
        let ring: EventRing
        let slot: Int
    }

    private let thread: WorkerThread
    /// Two rings: a document may begin (its parse queued on the thread) while the one before it finishes.
    /// Each is allocated when first lent; each slot is touched only by the document it is lent to.
    private var rings: [EventRing?] = [nil, nil]
    /// Which rings a document holds: set by ``lend(blocks:blockBytes:queued:)``, cleared by ``finishJob(_:ticket:)``.
    private var lent = [false, false]
    private let lock = Mutex(())

    /// - Parameter name: The thread's name (at most 15 bytes).
    package init(name: String = "notes-parse") {
        thread = WorkerThread(name: name)
    }

    deinit {
        // No document holds the worker (a document keeps it alive), so no job runs.
        for ring in rings { ring?.deallocate() }
    }

    /// A ring, emptied, for a document to use with ``run(_:)``; `nil` while another document holds one,
    /// unless this one is held (``PipelinedJSONParser/hold()``): its parse then queues behind the other's,
    /// which its caller finishes first. (A document finished first would wait forever for a parse queued
    /// behind one waiting for bytes.) A ring of another shape is replaced.
    func lend(blocks: Int, blockBytes: Int, queued: Bool) -> Loan? {
        let slot: Int? = lock.withLock { _ in
            if !queued && lent.contains(true) { return nil }
            guard let free = lent.firstIndex(of: false) else { return nil }
            lent[free] = true
            return free
        }
        guard let slot else { return nil }
        if let ring = rings[slot], ring.count != blocks || ring.blockBytes != blockBytes {
            ring.deallocate()
            rings[slot] = nil
        }
        if rings[slot] == nil { rings[slot] = EventRing(blocks: blocks, blockBytes: blockBytes) }
        rings[slot]!.reset()
        return Loan(ring: rings[slot]!, slot: slot)
    }

    /// Runs `job` (the borrowing document's parse) on the worker's thread, after the jobs run before it.
    /// - Returns: Its ticket, for ``finishJob(_:ticket:)``.
    @discardableResult
    func run(_ job: @escaping () -> Void) -> Int {
        thread.submit(job)
    }

    /// Waits until the job numbered `ticket` has ended (not for a job run after it: the next document's,
    /// which waits for bytes this document's caller has yet to feed), and takes the ring back.
    func finishJob(_ loan: Loan, ticket: Int) {
        thread.awaitCompletion(of: ticket)
        lock.withLock { _ in lent[loan.slot] = false }
    }

    /// Documents whose parse ran on the worker's thread so far.
    package var documentsParsed: Int { thread.completed }
}
