import Dispatch
package import NotesFetch
import Synchronization

/// A bounded hand-off of one response from the thread that reads the socket to the thread that decodes,
/// so that the two overlap on two cores.
///
/// One producer (the transfer thread) and one consumer, one response at a time (``reset()`` between). The body travels in a fixed ring of `slots`
/// buffers of `slotBytes` each, allocated once: the producer copies a chunk into the next free slot and
/// waits while every slot is taken, which is the backpressure (while it waits nothing more is read from
/// the socket). Memory is `slots × slotBytes` whatever the size of the body.
///
/// The consumer must take events until ``Event/end``, and release each one after use; after
/// ``stop()`` the producer refuses further data, and the consumer only drains what is queued.
package final class ResponseHandOff: @unchecked Sendable {
    package enum Event {
        case head(HTTPResponseHead)
        /// Bytes in a slot: valid until ``release()``.
        case body(UnsafeRawBufferPointer)
        /// The producer is done: nothing follows.
        case end
    }

    private let slots: Int
    private let slotBytes: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// Slots the producer may fill; slots with an event for the consumer.
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)
    /// The event of each slot: written by the producer before it signals `filled`, read by the consumer
    /// after it waits on it, so the semaphore orders every access.
    private let events: UnsafeMutablePointer<Event>
    private let stopped = Atomic<Bool>(false)
    /// The slot the producer fills next (producer only).
    private var producerSlot = 0
    /// The slot the consumer takes next (consumer only).
    private var consumerSlot = 0

    package init(slots: Int = 8, slotBytes: Int = 64 << 10) {
        precondition(slots > 0 && slotBytes > 0)
        self.slots = slots
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: slots * slotBytes, alignment: 16)
        free = DispatchSemaphore(value: slots)
        events = .allocate(capacity: slots)
        events.initialize(repeating: .end, count: slots)
    }

    deinit {
        storage.deallocate()
        events.deinitialize(count: slots)
        events.deallocate()
    }

    // MARK: - Producer

    /// Whether the consumer still wants data.
    package var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Queues the head. - Returns: `false` if the consumer has stopped.
    package func send(head: HTTPResponseHead) -> Bool {
        guard !isStopped else { return false }
        free.wait()
        push(.head(head))
        return true
    }

    /// Copies `chunk` into free slots (several if it is larger than one), waiting for slots as needed.
    /// - Returns: `false` if the consumer has stopped.
    package func send(body chunk: UnsafeRawBufferPointer) -> Bool {
        var rest = chunk
        while !rest.isEmpty {
            guard !isStopped else { return false }
            free.wait()
            let count = min(rest.count, slotBytes)
            let start = producerSlot * slotBytes
            let slot = UnsafeMutableRawBufferPointer(rebasing: storage[start..<start + count])
            slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<count]))
            push(.body(UnsafeRawBufferPointer(slot)))
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
        return true
    }

    /// Ends the response. Call exactly once, last.
    package func finish() {
        free.wait()
        push(.end)
    }

    private func push(_ event: Event) {
        events[producerSlot] = event
        producerSlot = (producerSlot + 1) % slots
        filled.signal()
    }

    // MARK: - Consumer

    /// The next event, waiting for it.
    package func next() -> Event {
        filled.wait()
        let event = events[consumerSlot]
        consumerSlot = (consumerSlot + 1) % slots
        return event
    }

    /// The next event, or `nil` when none comes within `seconds` (nothing is taken then).
    package func next(waitingAtMost seconds: Double) -> Event? {
        guard filled.wait(timeout: .now() + max(0, seconds)) == .success else { return nil }
        let event = events[consumerSlot]
        consumerSlot = (consumerSlot + 1) % slots
        return event
    }

    /// Gives the slot of the event last taken back to the producer.
    package func release() {
        free.signal()
    }

    /// Tells the producer to send nothing more; queued events still arrive and must be drained.
    package func stop() {
        stopped.store(true, ordering: .releasing)
    }

    /// Readies the hand-off for the next response. Only between responses: after the consumer took and
    /// released ``Event/end``, every slot is free again and both sides stand at the same slot.
    package func reset() {
        stopped.store(false, ordering: .releasing)
    }
}
