internal import NotesJSON
import NotesPage

/// One phase of a walk: the fetcher's client (its lanes, connections, rate limits and credentials) reading
/// pages one way.
///
/// A walk goes through up to three phases, each handing the next a ``WalkPlan``: the first page alone, when
/// the scheme learns from it or it shows where the items are (``walkFirstAlone(_:body:)``); pages one after
/// another (``walkInSequence(_:sendsNextAfterLast:body:)``); pages in parallel, once they can be addressed
/// ahead (``walkInParallel(_:first:body:)``). A phase after the first reads with what the pages before it
/// showed: another scheme (offsets or page numbers found in the next links), or other paths.
struct WalkPhase: Sendable {
    let client: NotesFetcher
    /// The endpoint, and the scheme this phase follows.
    let locator: PageLocator
    /// What the decoder reads on each page.
    let page: PageConfiguration
    /// `page` checked and made ready once, for every page of the phase.
    let plan: PagePlan

    init(client: NotesFetcher, locator: PageLocator, page: PageConfiguration) {
        self.client = client
        self.locator = locator
        self.page = page
        plan = page == client.page ? client.plan : PagePlan(page)
    }

    var configuration: FetchConfiguration { client.configuration }
    var environment: FetchEnvironment { client.environment }
    var lanes: [NotesFetcher.Lane] { client.lanes }
    var gate: RequestGate { client.gate }

    /// The phase after this one: the same client, following `pagination` and reading `page` (or this
    /// phase's page).
    func nextPhase(pagination: any Pagination, page: PageConfiguration? = nil) -> WalkPhase {
        WalkPhase(
            client: client, locator: PageLocator(endpoint: locator.endpoint, pagination: pagination),
            page: page ?? self.page)
    }

    /// This phase, building every note even where its page configuration keeps none
    /// (``PageConfiguration/keepsNotes``): a page fetched with an id set of its own (ahead of its turn, or in
    /// parallel) has its ids added to the run's set from its notes.
    var keepingNotes: WalkPhase {
        guard !page.keepsNotes else { return self }
        var keeping = page
        keeping.keepsNotes = true
        return nextPhase(pagination: locator.pagination, page: keeping)
    }

    /// ``NotesFetcher/walk(from:ids:visited:span:cancellation:body:)`` in this phase, `learning` what the
    /// first page shows of the server's pages (``Pagination/learned(from:)``), or not: the rest of a walk
    /// that has. Picks the phase's way: the first page alone, pages in parallel, or in sequence.
    func walk(
        _ plan: WalkPlan,
        learning: Bool,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        if learning {
            return try await walkFirstAlone(plan, body: body)
        }
        if configuration.parallel > 1, locator.pagination.location(1, after: plan.start) != nil {
            return try await walkInParallel(plan, body: body)
        }
        // The walk runs on lane 0's thread, where its pages run: a page costs no hop there and back.
        return try await withTaskExecutorPreference(lanes[0].thread) { () async throws(FetchError) -> PageLocation? in
            try await walkInSequence(plan, body: body)
        }
    }

    /// ``NotesFetcher/fetchPage(_:number:ids:cancellation:)`` on lane `lane`, reaching ahead while it streams
    /// as `lookahead` says.
    func fetchPage(
        _ location: PageLocation,
        number: Int,
        ids: IDSet,
        cancellation: CancellationFlag,
        lane: Int,
        lookahead: Lookahead = .none
    ) async throws(FetchError) -> FetchedPage {
        let url = locator.url(for: location)
        let body = locator.pagination.body(for: location)
        if let problem = configuration.credentialProblem(endpoint: locator.endpoint) {
            throw FetchError(.insecureCredentials(problem), page: number, location: location, attempts: 0)
        }
        var random = ClosureRandom(draw: environment.random)
        var policy = AttemptStateMachine.Policy(configuration)
        policy.resendsActedOn = body == nil || locator.pagination.resendsBody
        var attempts = AttemptStateMachine(policy: policy)
        // A token the API refuses is renewed once a page, where its provider can (OAuth 2.0).
        var renewed = false
        while true {
            if cancellation.isCancelled || Task.isCancelled {
                throw FetchError(.cancelled, page: number, location: location, attempts: attempts.attempts)
            }
            do {
                try await gate.pass(environment: environment)
            } catch {
                throw FetchError(.cancelled, page: number, location: location, attempts: attempts.attempts)
            }
            let meter = ExchangeMeter()
            let fresh = attempts.nextIsFresh
            let sent = configuration.token?.currentToken()
            let outcome = await withTaskCancellationHandler {
                await attemptPage(
                    Attempt(
                        url: url, body: body, ids: ids, cancellation: cancellation, lookahead: lookahead, meter: meter,
                        fresh: fresh),
                    lane: lanes[lane % lanes.count])
            } onCancel: {
                cancellation.cancel()
            }
            let failure: AttemptStateMachine.Failure
            switch outcome {
            case .page(let notes, let summary, let finalURL, let head):
                let facts = PageFacts(location: location, url: finalURL, head: head, summary: summary, plan: plan)
                switch locator.pagination.refusal(of: facts, now: environment.now()) {
                case nil:
                    return try finish(
                        notes: notes, facts: facts, number: number, ids: ids, attempts: &attempts, meter: meter)
                case .rateLimited(let reason, let wait):
                    ids.rollbackPage()
                    failure = .rateLimited(reason: reason, wait: wait)
                case .failed(let message):
                    ids.rollbackPage()
                    failure = .fatal(.pagination(message))
                }
            case .failed(let reason):
                failure = reason
            }
            switch attempts.ended(failure, sends: meter.sendCount, now: environment.now(), random: &random) {
            case .fail(let code):
                if code == .sessionExpired(status: 401), !renewed, let provider = configuration.token,
                    provider.renew(rejected: sent)
                {
                    renewed = true
                    continue
                }
                throw FetchError(code, page: number, location: location, attempts: attempts.attempts)
            case .hold(let wait, let reason):
                environment.waiting(wait, reason)
                let now = environment.now()
                gate.hold(until: now + wait, now: now)
            case .retry(let delay, let announce):
                if announce, case .retryable(let reason, _, _) = failure { environment.waiting(delay, reason) }
                do {
                    try await environment.sleep(delay)
                } catch {
                    throw FetchError(.cancelled, page: number, location: location, attempts: attempts.attempts)
                }
            }
        }
    }

    /// The page an attempt brought: the rate limit it may have spent, and where the next page is.
    private func finish(
        notes: [Note], facts: PageFacts, number: Int, ids: IDSet, attempts: inout AttemptStateMachine,
        meter: ExchangeMeter
    ) throws(FetchError) -> FetchedPage {
        let location = facts.location
        if let wait = attempts.delivered(sends: meter.sendCount, head: facts.head, now: environment.now()) {
            // The page spent the limit: the next request waits for the reset.
            environment.waiting(wait, "rate limit spent")
            let now = environment.now()
            gate.hold(until: now + wait, now: now)
        }
        var next: PageLocation?
        do throws(PaginationError) {
            next = try locator.next(after: facts)
            // A next URL that carries the API key (a server that echoes it) is kept without it.
            if let name = configuration.queryCredential?.name, case .url(let url)? = next {
                next = .url(PageLocator.removing(name, from: url))
            }
            if next == nil, let more = PageSignals(facts).unfollowedMore(scheme: locator.pagination) {
                throw PaginationError(
                    "the walk would end here, but the page says there is more: \(more). \(locator.pagination) found no next page to follow in it"
                )
            }
        } catch {
            ids.rollbackPage()
            throw FetchError(.pagination(error.message), page: number, location: location, attempts: attempts.attempts)
        }
        return FetchedPage(
            number: number,
            location: location,
            notes: notes,
            noteCount: facts.summary.noteCount - facts.summary.skippedCount,
            next: next,
            byteCount: facts.summary.byteCount,
            attempts: attempts.attempts,
            wireBytes: meter.wireBytes,
            skippedCount: facts.summary.skippedCount,
            total: locator.pagination.total(of: facts),
            facts: facts
        )
    }

}
