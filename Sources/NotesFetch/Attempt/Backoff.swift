/// How long to wait before a retry: exponential backoff with full jitter, and the server's
/// `Retry-After` honoured up to a cap.
///
/// The ceiling of attempt *n* (the first retry is 1) is `min(maximum, base × 2^(n−1))`, and the delay is
/// drawn uniformly from `0...ceiling` ("full jitter"), so clients that failed together do not retry
/// together. With the defaults (base 0.5 s, maximum 30 s):
///
/// | retry | ceiling |
/// |---|---|
/// | 1 | 0.5 s |
/// | 2 | 1 s |
/// | 3 | 2 s |
/// | 4 | 4 s |
/// | 8 | 30 s |
///
/// When the server sent `Retry-After`, the delay is that many seconds (at most ``maxRetryAfter``), or the
/// jittered delay if that is longer.
public struct Backoff: Sendable, Hashable {
    /// Seconds: the first retry's ceiling.
    public var base: Double
    /// Seconds: no ceiling grows past this.
    public var maximum: Double
    /// Seconds: the longest `Retry-After` obeyed; a longer one is cut to this.
    public var maxRetryAfter: Double

    /// - Parameters:
    ///   - base: Defaults to 0.5 s.
    ///   - maximum: Defaults to 30 s.
    ///   - maxRetryAfter: Defaults to 120 s.
    public init(base: Double = 0.5, maximum: Double = 30, maxRetryAfter: Double = 120) {
        self.base = base
        self.maximum = maximum
        self.maxRetryAfter = maxRetryAfter
    }

    /// The ceiling of retry `attempt` (1 for the first retry).
    public func ceiling(forRetry attempt: Int) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 62))
        return min(maximum, base * Double.pow2(exponent))
    }

    /// The delay before retry `attempt`.
    /// - Parameters:
    ///   - attempt: 1 for the first retry.
    ///   - retryAfter: Seconds the server asked for, if any.
    ///   - random: The random source, injectable for tests.
    public func delay(forRetry attempt: Int, retryAfter: Double?, using random: inout some RandomNumberGenerator)
        -> Double
    {
        let jittered = Double.random(in: 0...ceiling(forRetry: attempt), using: &random)
        guard let retryAfter else { return jittered }
        return max(min(max(retryAfter, 0), maxRetryAfter), jittered)
    }
}

extension Double {
    fileprivate static func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            result *= 2
            remaining -= 1
        }
        return result
    }
}
