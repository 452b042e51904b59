import NotesSystem

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

    package init(rate: Double?) {
        self.rate = rate
    }

    /// No request starts before `time` (seconds since 1970).
    func hold(until time: Double) {
        state.withLock { $0.notBefore = max($0.notBefore, time) }
    }

    /// Whether a request may start at `now` without waiting: no rate to keep and no limit to wait out.
    func isOpen(at now: Double) -> Bool {
        rate == nil && state.withLock { $0.notBefore <= now }
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
        if wait > 0 { try await environment.sleep(wait) }
    }
}
