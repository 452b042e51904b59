import Testing

@testable import NotesFetch

/// The decisions of a page's attempts, without a transport: each row of the state machine's table.
@Suite("What an attempt's response means")
struct AttemptStateMachineTests {
    let policy = AttemptStateMachine.Policy(retries: 2, maxRedirects: 2, maxWait: 60, backoff: Backoff())
    let now = 1_000_000.0
    let url = "https://api.example/notes?page=2"

    func verdict(_ status: Int, _ headers: [HTTPHeader] = [], redirects: Int = 0) -> AttemptStateMachine.HeadVerdict {
        AttemptStateMachine.verdict(
            on: HTTPResponseHead(status: status, headers: headers), url: url, redirects: redirects, policy: policy,
            now: now)
    }

    @Test("2xx is read; 401, and 403 without a spent limit, are an expired session; other statuses fail")
    func statuses() {
        for status in [200, 203, 206, 299] { #expect(verdict(status) == .read) }
        #expect(verdict(401) == .end(.fatal(.sessionExpired(status: 401))))
        #expect(verdict(403) == .end(.fatal(.sessionExpired(status: 403))))
        for status in [400, 404, 410, 418, 501, 505] { #expect(verdict(status) == .end(.fatal(.status(status)))) }
    }

    @Test("429 and 500, 502, 503, 504 are retried, with the server's Retry-After")
    func retryable() {
        #expect(verdict(429) == .end(.retryable(reason: "HTTP 429", retryAfter: nil, notActedOn: true)))
        for status in [500, 502, 503, 504] {
            #expect(verdict(status) == .end(.retryable(reason: "HTTP \(status)", retryAfter: nil)))
        }
        #expect(
            verdict(503, [HTTPHeader("Retry-After", "7")])
                == .end(.retryable(reason: "HTTP 503", retryAfter: 7, notActedOn: true)))
    }

    @Test("A 403 or 429 that says the limit is spent waits for the reset (GitHub's headers, RateLimit, Retry-After)")
    func rateLimits() {
        let github = [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000030")]
        #expect(verdict(403, github) == .end(.rateLimited(reason: "HTTP 403", wait: 30)))
        #expect(
            verdict(429, [HTTPHeader("RateLimit", "limit=10, remaining=0, reset=5")])
                == .end(.rateLimited(reason: "HTTP 429", wait: 5)))
        #expect(verdict(429, [HTTPHeader("Retry-After", "12")]) == .end(.rateLimited(reason: "HTTP 429", wait: 12)))
    }

    @Test("A reset that is not a finite number says nothing of when; a wait is at most about 31 years")
    func hostileResets() {
        for reset in ["inf", "-inf", "nan", "1e400"] {
            let head = [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", reset)]
            #expect(
                verdict(403, head) == .end(.rateLimited(reason: "HTTP 403", wait: 60)), "\(reset): the default minute")
        }
        let far = [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1e300")]
        #expect(verdict(403, far) == .end(.rateLimited(reason: "HTTP 403", wait: RateLimit.longest)))
        // And such a wait fails with a message, not a trap converting it.
        var machine = AttemptStateMachine(policy: policy)
        var random = SystemRandomNumberGenerator()
        guard
            case .fail(let code) = machine.ended(
                .rateLimited(reason: "HTTP 403", wait: RateLimit.longest), sends: 1, now: now, random: &random),
            case .rateLimited(let reason) = code.base
        else {
            Issue.record("a wait past --max-wait fails the page")
            return
        }
        #expect(reason.hasPrefix("rate limited (HTTP 403) for 1000000000 s, longer than --max-wait 60 s"))
    }

    @Test("A redirect is followed up to the limit, to an http or https target resolved against the page")
    func redirects() {
        #expect(verdict(302, [HTTPHeader("Location", "/notes?page=3")]) == .follow("https://api.example/notes?page=3"))
        for status in [301, 303, 307, 308] {
            #expect(verdict(status, [HTTPHeader("Location", "https://b.example/n")]) == .follow("https://b.example/n"))
        }
        #expect(verdict(302, [HTTPHeader("Location", "/x")], redirects: 1) == .follow("https://api.example/x"))
        #expect(verdict(302, [HTTPHeader("Location", "/x")], redirects: 2) == .end(.fatal(.redirects(2))))
        #expect(verdict(302) == .end(.fatal(.status(302))), "no Location")
        guard case .end(.fatal(let code)) = verdict(302, [HTTPHeader("Location", "file:///etc/passwd")]),
            case .pagination(let problem) = code.base
        else {
            Issue.record("a redirect to file: is refused")
            return
        }
        #expect(problem.contains("scheme file"))
    }

    @Test("Transport errors are retried, except TLS, cancellation and a transport that cannot work")
    func transportErrors() {
        #expect(
            AttemptStateMachine.failure(of: TransportError(.connect, "refused"))
                == .retryable(reason: "refused", retryAfter: nil, notActedOn: true))
        for kind in [TransportError.Kind.timeout, .broken, .other] {
            #expect(
                AttemptStateMachine.failure(of: TransportError(kind, "idle 30 s"))
                    == .retryable(reason: "idle 30 s", retryAfter: nil))
        }
        #expect(AttemptStateMachine.failure(of: TransportError(.tls, "bad cert")) == .fatal(.tls("bad cert")))
        #expect(
            AttemptStateMachine.failure(of: TransportError(.unusable, "no libcurl"))
                == .fatal(.transportUnusable("no libcurl")))
        #expect(AttemptStateMachine.failure(of: TransportError(.cancelled, "stop")) == .fatal(.cancelled))
    }

    @Test("Retries until the budget is spent, counting every request the server saw; the last goes fresh")
    func budget() {
        var machine = AttemptStateMachine(policy: policy)
        var random = SystemRandomNumberGenerator()
        let failure = AttemptStateMachine.Failure.retryable(reason: "HTTP 503", retryAfter: nil)
        #expect(!machine.nextIsFresh)
        guard case .retry(let delay, announce: false) = machine.ended(failure, sends: 1, now: now, random: &random)
        else {
            Issue.record("the first failure is retried")
            return
        }
        #expect(delay >= 0 && delay <= policy.backoff.ceiling(forRetry: 1))
        #expect(!machine.nextIsFresh, "attempt 2 of 3 may share a kept-alive connection")
        guard case .retry = machine.ended(failure, sends: 1, now: now, random: &random) else {
            Issue.record("the second failure is retried")
            return
        }
        #expect(machine.nextIsFresh, "attempt 3 of 3 goes on a fresh connection")
        #expect(machine.ended(failure, sends: 1, now: now, random: &random) == .fail(.unavailable("HTTP 503")))
        // libcurl re-sent a first attempt on its own twice: three requests, the budget is spent.
        var resent = AttemptStateMachine(policy: policy)
        #expect(resent.ended(failure, sends: 3, now: now, random: &random) == .fail(.unavailable("HTTP 503")))
        #expect(machine.attempts == 3)
    }

    @Test("Retry-After is the delay (within the backoff's cap) and is announced; a fatal failure is not retried")
    func retryAfter() {
        var machine = AttemptStateMachine(policy: policy)
        var random = SystemRandomNumberGenerator()
        #expect(
            machine.ended(.retryable(reason: "HTTP 503", retryAfter: 7), sends: 1, now: now, random: &random)
                == .retry(after: 7, announce: true))
        #expect(machine.ended(.fatal(.status(404)), sends: 1, now: now, random: &random) == .fail(.status(404)))
    }

    @Test("A rate limit holds the walk within --max-wait and the budget; past either, the page fails")
    func rateLimitActions() {
        var machine = AttemptStateMachine(policy: policy)
        var random = SystemRandomNumberGenerator()
        let limited = AttemptStateMachine.Failure.rateLimited(reason: "HTTP 429", wait: 30)
        #expect(
            machine.ended(limited, sends: 1, now: now, random: &random) == .hold(30, reason: "rate limited (HTTP 429)"))
        #expect(
            machine.ended(limited, sends: 1, now: now, random: &random) == .hold(30, reason: "rate limited (HTTP 429)"))
        #expect(
            machine.ended(limited, sends: 1, now: now, random: &random)
                == .fail(.unavailable("rate limited (HTTP 429)")))
        var fresh = AttemptStateMachine(policy: policy)
        #expect(
            fresh.ended(.rateLimited(reason: "HTTP 429", wait: 61), sends: 1, now: now, random: &random)
                == .fail(
                    .rateLimited(
                        "rate limited (HTTP 429) for 61 s, longer than --max-wait 60 s: the limit resets at \(HTTPDate.text(now + 61))"
                    )))
    }

    @Test("A page that spent the limit holds the next request until the reset, at most --max-wait")
    func delivered() {
        var machine = AttemptStateMachine(policy: policy)
        let spent = HTTPResponseHead(
            status: 200,
            headers: [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000500")])
        #expect(machine.delivered(sends: 1, head: spent, now: now) == 60)
        #expect(machine.delivered(sends: 1, head: HTTPResponseHead(status: 200), now: now) == nil)
        #expect(machine.attempts == 2)
    }

    @Test("A POST the server may have acted on is not sent again unless it is safe; one it refused is")
    func posts() {
        var unsafe = policy
        unsafe.resendsActedOn = false
        var random = SystemRandomNumberGenerator()
        for failure in [
            AttemptStateMachine.Failure.retryable(reason: "HTTP 502", retryAfter: nil),
            .retryable(reason: "idle 30 s", retryAfter: nil),
        ] {
            var machine = AttemptStateMachine(policy: unsafe)
            guard case .fail(let code) = machine.ended(failure, sends: 1, now: now, random: &random),
                case .unavailable(let message) = code.base
            else {
                Issue.record("\(failure) is not sent again")
                continue
            }
            #expect(
                message.hasSuffix("not sent again: the server may have acted on the POST (--retry-post if it is safe)"))
        }
        for failure in [
            AttemptStateMachine.Failure.retryable(reason: "HTTP 429", retryAfter: nil, notActedOn: true),
            .rateLimited(reason: "HTTP 429", wait: 5),
        ] {
            var machine = AttemptStateMachine(policy: unsafe)
            if case .fail = machine.ended(failure, sends: 1, now: now, random: &random) {
                Issue.record("\(failure) was refused by the server: it is sent again")
            }
        }
    }
}
