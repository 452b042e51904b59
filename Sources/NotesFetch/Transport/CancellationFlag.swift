import Synchronization

/// Set once to stop a request at the next chunk (or within a second while waiting for one).
public final class CancellationFlag: Sendable {
    private let state = Atomic<Bool>(false)

    public init() {}

    public var isCancelled: Bool { state.load(ordering: .relaxed) }

    public func cancel() { state.store(true, ordering: .relaxed) }
}
