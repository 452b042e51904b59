import NotesSystem

/// A gate kept beyond this process (`sync --worker`'s, in PostgreSQL): every request of every process
/// that shares it takes a slot there, so that a rate and a rate limit's hold are kept by them all.
package protocol SharedGate: Sendable {
    /// Takes the next slot, `interval` seconds after the slot before (`nil`: no rate, only holds), and
    /// returns the seconds to wait for it; 0 when the gate cannot be reached (the process's own gate
    /// still keeps its rate).
    func reserve(interval: Double?) -> Double
    /// No request of any process starts for `seconds`.
    func hold(for seconds: Double)
}

/// When the next request of a walk may start, across every page in flight: not before a rate limit
/// resets, and no sooner than `1 / rate` seconds after the one before. Walks may share one (a sync's walks
/// of one origin).
package final class RequestGate: Sendable {
    private struct State {
        /// Seconds since 1970 before which no request starts.
        var notBefore = 0.0
        /// When the last request was let through.
        var last = -Double.infinity
    }

    private let rate: Double?
    private let state = Locked(State())
    /// Where the processes sharing the gate take their slots, if they do.
    private let shared: (any SharedGate)?

    package init(rate: Double?, shared: (any SharedGate)? = nil) {
        self.rate = rate
        self.shared = shared
    }

    /// No request starts before `time` (seconds since 1970, the environment's `now` being `now`).
    func hold(until time: Double, now: Double) {
        state.withLock { $0.notBefore = max($0.notBefore, time) }
        shared?.hold(for: time - now)
    }

    /// Whether a request may start at `now` without waiting: no rate to keep, no limit to wait out, and
    /// no other process to ask.
    func isOpen(at now: Double) -> Bool {
        rate == nil && shared == nil && state.withLock { $0.notBefore <= now }
    }

    /// Waits until a request may start, and takes its slot.
    /// - Throws: When the task is cancelled while waiting.
    func pass(environment: FetchEnvironment) async throws {
        let now = environment.now()
        let wait = state.withLock { state -> Double in
            var start = max(now, state.notBefore)
            if let rate, rate > 0 { start = max(start, state.last + 1 / rate) }
            state.last = start
            return start - now
        }
        let slot = shared?.reserve(interval: rate.flatMap { $0 > 0 ? 1 / $0 : nil }) ?? 0
        if max(wait, slot) > 0 { try await environment.sleep(max(wait, slot)) }
    }
}
