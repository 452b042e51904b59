import NotesFetch

#if canImport(TestSupport)
    import TestSupport
#endif

// The driver's checks of the attempt state machine: what it makes of the head, the retries and holds after
// a failure, the hold after a delivered page.

extension FetchDriver {

    /// `AttemptStateMachine.verdict` on the head, then `ended` and `delivered` on what it says.
    static func checkAttempts(_ input: Input, _ findings: Findings) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        var random = SeededRandom(seed: input.hash)
        for policy in policies {
            let longest = max(policy.backoff.maximum, policy.backoff.maxRetryAfter)
            for redirects in [0, input.redirects] {
                let verdict = AttemptStateMachine.verdict(
                    on: head, url: input.pageURL, redirects: redirects, policy: policy, now: input.now)
                switch verdict {
                case .read:
                    if !(200...299).contains(input.status) { findings.add("HTTP \(input.status) read as a page") }
                case .follow(let target):
                    if let problem = PageLocator.urlProblem(target, what: "the redirect's target") {
                        findings.add("a redirect followed to a target with a problem: \(problem)")
                    }
                    if redirects >= policy.maxRedirects { findings.add("redirect \(redirects + 1) followed") }
                    findings.check(url: target, "the redirect's target")
                case .end(let failure):
                    var machine = AttemptStateMachine(policy: policy)
                    for sends in [1, 0, 2, 1, 1, 1, 1] {
                        let action = machine.ended(failure, sends: sends, now: input.now, random: &random)
                        switch action {
                        case .retry(let delay, _):
                            if !delay.isFinite || delay < 0 || delay > longest {
                                findings.add("a retry after \(delay) s (the cap is \(longest) s)")
                            }
                        case .hold(let wait, _):
                            if !wait.isFinite || wait < 0 || wait > policy.maxWait {
                                findings.add("a hold of \(wait) s (--max-wait \(policy.maxWait))")
                            }
                        case .fail(let code):
                            if case .rateLimited(let reason) = code.base, reason.isEmpty {
                                findings.add("a rate limit failed without a reason")
                            }
                        }
                        if case .fail = action { break }
                    }
                }
            }
            var machine = AttemptStateMachine(policy: policy)
            if let wait = machine.delivered(sends: 1, head: head, now: input.now),
                !wait.isFinite || wait <= 0 || wait > policy.maxWait
            {
                findings.add("a delivered page holds the next request \(wait) s")
            }
        }
    }
}
