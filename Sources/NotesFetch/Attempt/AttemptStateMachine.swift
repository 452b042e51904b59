/// What a page's attempts come to, decided apart from any I/O: the walk performs the requests and asks
/// this what each response and each failed attempt means (read the body, follow a redirect, retry after a
/// delay, wait out a rate limit, fail, or say the session expired).
///
/// It counts attempts as the requests the server saw (``ExchangeMeter/sendCount``: libcurl's own re-send
/// on a dead kept-alive connection counts). The clock and the random source are passed in, so that every
/// decision is a pure function of its inputs.
///
/// | Response or failure                         | Meaning                                     |
/// |---------------------------------------------|---------------------------------------------|
/// | 2xx                                          | read the body                              |
/// | 301, 302, 303, 307, 308 with a `Location`    | follow, up to ``Policy/maxRedirects``      |
/// | 401; 403 that is not a rate limit            | session expired                            |
/// | 403, 429 with a spent limit (``RateLimit``)  | wait for the reset, up to ``Policy/maxWait`` |
/// | 429 without one; 500, 502, 503, 504          | retry with ``Backoff`` (`Retry-After` kept) |
/// | a transport error other than TLS             | retry with ``Backoff``                      |
/// | TLS, cancellation, any other status          | fail                                       |
package struct AttemptStateMachine: Sendable {
    /// The configuration's values that decide.
    package struct Policy: Sendable, Hashable {
        /// Retries after the first attempt.
        var retries: Int
        package var maxRedirects: Int
        /// The longest rate-limit wait; a longer one fails the page.
        package var maxWait: Double
        package var backoff: Backoff
        /// Whether a request the server may have acted on is sent again: every GET and GraphQL query; a
        /// POST that may change something only when the caller says it is safe (`--retry-post`).
        package var resendsActedOn = true

        package init(retries: Int, maxRedirects: Int, maxWait: Double, backoff: Backoff) {
            self.retries = retries
            self.maxRedirects = maxRedirects
            self.maxWait = maxWait
            self.backoff = backoff
        }

        init(_ configuration: FetchConfiguration) {
            self.init(
                retries: configuration.retries, maxRedirects: configuration.maxRedirects,
                maxWait: configuration.maxWait, backoff: configuration.backoff)
        }
    }

    /// Why an attempt brought no page.
    package enum Failure: Sendable, Hashable {
        /// Worth another attempt: a transport error, 429, a 5xx (with its `Retry-After`, if any).
        /// `notActedOn` when the server cannot have acted on the request (429, 503 with `Retry-After`, a
        /// connection that never opened), so that even a POST may go again.
        case retryable(reason: String, retryAfter: Double?, notActedOn: Bool = false)
        /// A 403 or 429 that says the rate limit is spent (`reason`: `HTTP 429`), or a body that says so
        /// (``PageRefusal/rateLimited(reason:wait:)``), and for how long.
        case rateLimited(reason: String, wait: Double)
        /// Not worth another attempt.
        case fatal(FetchError.Code)
    }

    /// What a response's head means, within one attempt.
    package enum HeadVerdict: Sendable, Hashable {
        /// A success: read the body.
        case read
        /// Request this URL next, in the same attempt.
        case follow(String)
        /// The attempt ends here.
        case end(Failure)
    }

    /// What the walk does after an attempt that brought no page.
    package enum Action: Sendable, Hashable {
        /// Sleep this long, then attempt again; `announce` when the wait is the server's (`Retry-After`)
        /// and long enough to say.
        case retry(after: Double, announce: Bool)
        /// Hold every request of the walk for this long (a rate limit), then attempt again.
        case hold(Double, reason: String)
        /// The page fails.
        case fail(FetchError.Code)
    }

    let policy: Policy
    /// Requests the server saw for the page so far.
    private(set) var attempts = 0

    package init(policy: Policy) {
        self.policy = policy
    }

    /// Whether the next attempt goes on a fresh connection: the last one the budget allows, which
    /// libcurl then never re-sends on its own.
    var nextIsFresh: Bool { attempts + 1 >= policy.retries + 1 }

    /// What a head received for `url` means, after `redirects` redirects in this attempt.
    /// - Parameters:
    ///   - now: Seconds since 1970, for `Retry-After` dates and rate-limit resets.
    package static func verdict(
        on head: HTTPResponseHead, url: String, redirects: Int, policy: Policy, now: Double
    ) -> HeadVerdict {
        switch head.status {
        case 200...299:
            return .read
        case 301, 302, 303, 307, 308:
            guard redirects < policy.maxRedirects else { return .end(.fatal(.redirects(policy.maxRedirects))) }
            guard let location = head.value(of: "Location"), let target = PageLocator.resolve(location, against: url)
            else { return .end(.fatal(.status(head.status))) }
            if let problem = PageLocator.urlProblem(target, what: "the redirect's target") {
                return .end(.fatal(.pagination(problem)))
            }
            return .follow(target)
        case 403, 429:
            // GitHub answers 403 when its primary rate limit is spent: that is a wait, not an expiry.
            if let wait = RateLimit.wait(head, now: now) {
                return .end(.rateLimited(reason: "HTTP \(head.status)", wait: wait))
            }
            if head.status == 403 { return .end(.fatal(.sessionExpired(status: head.status))) }
            return .end(.retryable(reason: "HTTP 429", retryAfter: nil, notActedOn: true))
        case 401:
            return .end(.fatal(.sessionExpired(status: head.status)))
        case 500, 502, 503, 504:
            let retryAfter = head.value(of: "Retry-After").flatMap { RetryAfter.seconds($0, now: now) }
            return .end(
                .retryable(
                    reason: "HTTP \(head.status)", retryAfter: retryAfter,
                    notActedOn: head.status == 503 && retryAfter != nil))
        default:
            return .end(.fatal(.status(head.status)))
        }
    }

    /// What a transport error means.
    static func failure(of error: TransportError) -> Failure {
        switch error.kind {
        case .cancelled: .fatal(.cancelled)
        case .tls: .fatal(.tls(error.message))
        case .unusable: .fatal(.transportUnusable(error.message))
        case .connect: .retryable(reason: error.message, retryAfter: nil, notActedOn: true)
        default: .retryable(reason: error.message, retryAfter: nil)
        }
    }

    /// An attempt brought its page after `sends` requests; returns how long the walk's next request waits
    /// when the page's head says the limit is spent (at most ``Policy/maxWait``), or `nil`.
    package mutating func delivered(sends: Int, head: HTTPResponseHead, now: Double) -> Double? {
        attempts += max(1, sends)
        guard let wait = RateLimit.wait(head, now: now), wait > 0 else { return nil }
        return min(wait, policy.maxWait)
    }

    /// An attempt ended with `failure` after `sends` requests: what the walk does next.
    /// - Parameters:
    ///   - now: Seconds since 1970, for the message of a wait longer than ``Policy/maxWait``.
    ///   - random: The jitter of the backoff.
    package mutating func ended(
        _ failure: Failure, sends: Int, now: Double, random: inout some RandomNumberGenerator
    ) -> Action {
        attempts += max(1, sends)
        switch failure {
        case .fatal(let code):
            return .fail(code)
        case .rateLimited(let why, let wait):
            if wait > policy.maxWait {
                let reason =
                    "rate limited (\(why)) for \(Self.wholeSeconds(wait, .up)) s, longer than --max-wait \(Self.wholeSeconds(policy.maxWait, .down)) s: the limit resets at \(HTTPDate.text(now + wait))"
                return .fail(.rateLimited(reason))
            }
            if attempts > policy.retries { return .fail(.unavailable("rate limited (\(why))")) }
            return .hold(wait, reason: "rate limited (\(why))")
        case .retryable(let reason, let retryAfter, let notActedOn):
            if !policy.resendsActedOn && !notActedOn {
                return .fail(
                    .unavailable(
                        "\(reason); not sent again: the server may have acted on the POST (--retry-post if it is safe)")
                )
            }
            if attempts > policy.retries { return .fail(.unavailable(reason)) }
            let delay = policy.backoff.delay(forRetry: attempts, retryAfter: retryAfter, using: &random)
            return .retry(after: delay, announce: retryAfter != nil && delay >= 1)
        }
    }

    /// `seconds` in whole seconds for a message, rounded by `rule`, between 0 and ``RateLimit/longest``:
    /// the conversion of an infinite or enormous wait (a caller's, since ``RateLimit/wait(_:now:)`` caps the
    /// server's) would trap.
    private static func wholeSeconds(_ seconds: Double, _ rule: FloatingPointRoundingRule) -> Int {
        seconds.isNaN ? 0 : Int(min(max(seconds.rounded(rule), 0), RateLimit.longest))
    }
}
