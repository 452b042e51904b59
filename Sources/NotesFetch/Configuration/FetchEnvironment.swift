#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The clock, sleep and random source of a walk, injectable so tests take no real time.
public struct FetchEnvironment: Sendable {
    /// Sleeps for the given seconds; throws when the task is cancelled.
    public var sleep: @Sendable (Double) async throws -> Void
    /// Seconds since 1970, for `Retry-After` dates.
    public var now: @Sendable () -> Double
    /// A random number in `0..<1`, for jitter.
    public var random: @Sendable () -> Double
    /// Told of a wait before a request (a rate limit, `Retry-After`): the seconds and why.
    public var waiting: @Sendable (Double, String) -> Void = { _, _ in }
    /// Told once of what the walk does that the caller should know: a URL on another origin than the
    /// endpoint's, followed without credentials.
    public var notice: @Sendable (String) -> Void = { _ in }

    public init(
        sleep: @escaping @Sendable (Double) async throws -> Void,
        now: @escaping @Sendable () -> Double,
        random: @escaping @Sendable () -> Double
    ) {
        self.sleep = sleep
        self.now = now
        self.random = random
    }

    /// Real time and the system's random source.
    public static let live = FetchEnvironment(
        sleep: { seconds in try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9)) },
        now: { Date().timeIntervalSince1970 },
        random: { Double.random(in: 0..<1) }
    )
}

/// A random number generator that draws from a closure, to feed ``Backoff`` from ``FetchEnvironment``.
struct ClosureRandom: RandomNumberGenerator {
    let draw: () -> Double

    mutating func next() -> UInt64 {
        UInt64(min(max(draw(), 0), 0.999_999_999_999) * 9_007_199_254_740_992) << 11
    }
}
