public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How to walk an endpoint.
public struct FetchConfiguration: Sendable {
    /// Limits and paths of each page.
    public var page: PageConfiguration
    /// Retries after the first attempt of a page.
    public var retries: Int
    public var backoff: Backoff
    /// Seconds without a byte before a request fails (and is retried).
    public var idleTimeout: Double
    /// Extra request headers.
    public var headers: [HTTPHeader]
    /// The bearer token, sent as `Authorization: Bearer …` to the endpoint's origin only: a ``Secret``, or
    /// a provider asked before every request (``EnvironmentToken``, ``FileToken``, an app's sign-in).
    public var token: (any TokenProvider)?
    /// Redirects followed in a row for one page.
    public var maxRedirects: Int
    /// Seconds one attempt at a page may take in all, however steadily its bytes arrive.
    public var pageTimeout: Double = 600
    /// The longest wait for a rate limit to reset; a longer one ends the walk (unavailable).
    public var maxWait: Double = 3_600
    /// Requests per second at most, over the whole walk (parallel requests included); `nil` for no cap.
    public var rate: Double?
    /// Pages in flight at once where the pagination scheme can address them (offsets, page numbers);
    /// 1 walks one page after another.
    public var parallel: Int = 1
    /// Whether a walk requests the next page as soon as its reference is known (a `Link` or cursor
    /// header, a next value before the notes), while the current page still streams: one page ahead.
    public var prefetch = false

    /// - Parameters:
    ///   - page: Defaults to ``PageConfiguration``'s defaults.
    ///   - retries: Defaults to 4.
    ///   - backoff: Defaults to ``Backoff``'s defaults.
    ///   - idleTimeout: Defaults to 30 seconds.
    ///   - headers: Defaults to none.
    ///   - token: Defaults to none.
    ///   - maxRedirects: Defaults to 5.
    public init(
        page: PageConfiguration = PageConfiguration(),
        retries: Int = 4,
        backoff: Backoff = Backoff(),
        idleTimeout: Double = 30,
        headers: [HTTPHeader] = [],
        token: (any TokenProvider)? = nil,
        maxRedirects: Int = FetchLimits.maxRedirects
    ) {
        self.page = page
        self.retries = retries
        self.backoff = backoff
        self.idleTimeout = idleTimeout
        self.headers = headers
        self.token = token
        self.maxRedirects = maxRedirects
    }
}

extension FetchConfiguration {
    /// Whether `header` carries credentials, so that it goes to the endpoint's origin only.
    static func isCredential(_ header: HTTPHeader) -> Bool {
        ["authorization", "proxy-authorization", "cookie"].contains(header.name.lowercased())
    }

    /// Why credentials must not be sent to `endpoint`, or `nil` when they may: a token or a credential
    /// header over plain `http://` to a host that is not this machine.
    public func credentialProblem(endpoint: URL) -> String? {
        guard token != nil || headers.contains(where: Self.isCredential),
            endpoint.scheme?.lowercased() == "http", Origin(endpoint.absoluteString)?.isLoopback != true
        else { return nil }
        return "Refusing to send credentials over plain http to '\(endpoint.host ?? "")': use https"
    }
}

/// A credential: its description never shows the value.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}

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
