import Dispatch
internal import NotesJSON
public import NotesPage
import NotesSystem

/// Walks a cursor-paginated endpoint: fetches each page through the transport, streams the body into a
/// ``PageDecoder`` as it arrives, retries what is worth retrying, and follows the next cursor.
///
/// The transport blocks a thread of the fetcher's own serial queue, never a thread of the concurrency
/// pool. Cancelling the calling task (or the ``CancellationFlag`` passed in) stops the request at the
/// next chunk; the page's partial notes are dropped and its ids taken back out of the set.
public final class NotesFetcher: Sendable {
    public let locator: PageLocator
    public let configuration: FetchConfiguration
    let environment: FetchEnvironment
    /// The configuration's page, with the values the pagination scheme reads.
    let page: PageConfiguration
    /// A transport and the queue whose thread it blocks, one per page in flight.
    let lanes: [Lane]
    /// When the next request may start: rate limits and `--rate`, across lanes.
    let gate: RequestGate
    /// The endpoint's origin, which credentials go to, and its `scheme://authority/` as written: a URL
    /// that starts with it has the same origin without being parsed again.
    let origin: Origin?
    let originPrefix: String?
    /// Whether the walk has said that it follows a URL on another origin (once per walk).
    let toldOtherOrigin: Locked<Bool>

    struct Lane: Sendable {
        let transport: any HTTPTransport
        /// Runs the lane's exchanges; the sequential walk runs on it too.
        let thread: LaneThread
        /// The second thread its pages decode on once past ``PageReception/pipeline``'s threshold.
        let worker: JSONPipelineWorker

        init(index: Int, transport: any HTTPTransport) {
            self.transport = transport
            thread = LaneThread(index: index)
            worker = JSONPipelineWorker(name: "notes-parse-\(index)")
        }
    }

    /// - Parameters:
    ///   - locator: The endpoint and its cursor parameter.
    ///   - configuration: Limits, retries, headers, credentials.
    ///   - transport: ``CurlTransport`` (Linux), `URLSessionTransport`, or NotesURLSession's
    ///     `defaultTransport()`, which picks the platform's.
    ///   - environment: Defaults to ``FetchEnvironment/live``.
    ///   - moreTransports: Makes the transport of each further page in flight (``FetchConfiguration/parallel``),
    ///     each with a connection of its own; by default they all share `transport`.
    public init(
        locator: PageLocator,
        configuration: FetchConfiguration = FetchConfiguration(),
        transport: any HTTPTransport,
        environment: FetchEnvironment = .live,
        moreTransports: (@Sendable () -> any HTTPTransport)? = nil
    ) {
        self.locator = locator
        self.configuration = configuration
        self.environment = environment
        // Lane 0 carries the pages decoded into the run's id set; early requests take lanes 1 and 2 in turn.
        lanes = (0..<max(1, configuration.parallel, configuration.earlyRequests ? 3 : 1)).map { index in
            Lane(index: index, transport: index == 0 ? transport : moreTransports?() ?? transport)
        }
        gate = RequestGate(rate: configuration.rate)
        var page = configuration.page
        locator.pagination.adapt(&page)
        // A next path is found on the page whatever the scheme: one that does not read it must still not end
        // the walk where it says there is more (``PageSignals/unfollowedMore(scheme:)``).
        // A scheme's paths that the page's own would hide (an items path `count` hides a total there) are
        // left out: the decoder reads no path twice.
        for path in locator.pagination.fieldPaths where page.canRead(path) { page.fieldPaths.append(path) }
        // Then what any page may say of more pages, for the walk to end only where none says so.
        for path in PageSignals.fieldPaths where page.canRead(path) { page.fieldPaths.append(path) }
        self.page = page
        let endpoint = Array(locator.endpoint.absoluteString.utf8)
        origin = Origin(String(decoding: endpoint, as: UTF8.self))
        // `scheme://authority/`: up to the first slash after the scheme's `//`.
        let authority = (0..<max(0, endpoint.count - 2)).first { endpoint[$0..<$0 + 3].elementsEqual("://".utf8) }
        originPrefix = authority.flatMap { start in
            endpoint[(start + 3)...].firstIndex(of: UInt8(ascii: "/")).map {
                String(decoding: endpoint[...$0], as: UTF8.self)
            }
        }
        toldOtherOrigin = Locked(false)
    }

    /// The same client (lanes, connections, rate limits) walking with another scheme, which reads the
    /// same field paths: the pages after one that showed they can be addressed ahead.
    init(sharing other: NotesFetcher, pagination: any Pagination, page: PageConfiguration? = nil) {
        locator = PageLocator(endpoint: other.locator.endpoint, pagination: pagination)
        configuration = other.configuration
        environment = other.environment
        self.page = page ?? other.page
        lanes = other.lanes
        gate = other.gate
        origin = other.origin
        originPrefix = other.originPrefix
        toldOtherOrigin = other.toldOtherOrigin
    }

    /// Whether `url` is on the endpoint's origin (scheme, host and port).
    func isSameOrigin(_ url: String) -> Bool {
        if let originPrefix, url.hasPrefix(originPrefix) { return true }
        return origin != nil && Origin(url) == origin
    }

    /// Fetches and decodes one page, retrying transport errors, 429 and 5xx with backoff.
    ///
    /// The page's ids are checked against `ids` as it streams (a duplicate names its byte offset) and
    /// are left in it as its open page: the caller commits them when it takes the page
    /// (``IDSet/commitPage()``), or takes them back when it drops it (``IDSet/rollbackPage()``). A page
    /// that fails leaves nothing behind.
    /// - Parameters:
    ///   - location: Where the page is.
    ///   - number: The page's 1-based number in the run, for errors and the id set.
    ///   - ids: The run's id set, with no page open.
    ///   - cancellation: Checked at every chunk; cancelling the task sets it too.
    /// - Throws: ``FetchError``.
    public func fetchPage(
        _ location: PageLocation,
        number: Int,
        ids: IDSet,
        cancellation: CancellationFlag = CancellationFlag()
    ) async throws(FetchError) -> FetchedPage {
        try await fetchPage(location, number: number, ids: ids, cancellation: cancellation, lane: 0)
    }

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
                let facts = PageFacts(
                    location: location, url: finalURL, head: head, summary: summary, fieldPaths: page.fieldPaths)
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
                throw FetchError(code, page: number, location: location, attempts: attempts.attempts)
            case .hold(let wait, let reason):
                environment.waiting(wait, reason)
                gate.hold(until: environment.now() + wait)
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
            gate.hold(until: environment.now() + wait)
        }
        let next: PageLocation?
        do throws(PaginationError) {
            next = try locator.next(after: facts)
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
            next: next,
            byteCount: facts.summary.byteCount,
            attempts: attempts.attempts,
            wireBytes: meter.wireBytes,
            skippedCount: facts.summary.skippedCount,
            total: locator.pagination.total(of: facts),
            facts: facts
        )
    }

    /// Walks from `start` to the last page (or a bound), handing each complete page to `body` in order.
    /// - Parameters:
    ///   - start: The first page to fetch.
    ///   - ids: The run's id set.
    ///   - visited: Page URLs seen in the run, for cycle detection; the start's URL is added.
    ///   - span: The start's number in the run (more than 1 when resuming), and where to stop short of the
    ///     end: after so many pages, or after the page that brings the run's notes to so many.
    ///   - cancellation: Stops the walk at the next chunk.
    ///   - body: Takes each page, its ids committed to `ids`; the walk waits for it. It may throw
    ///     ``FetchError`` to stop. A sequential walk runs it on the thread its pages run on: it may await
    ///     anything, but must not block that thread waiting for this fetcher's work.
    /// - Returns: Where the walk stopped: the next page's location, or `nil` when it reached the end.
    public func walk(
        from start: PageLocation,
        ids: IDSet,
        visited: IDSet,
        span: WalkSpan = WalkSpan(),
        cancellation: CancellationFlag = CancellationFlag(),
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        let plan = WalkPlan(
            start: start, firstNumber: span.firstNumber, ids: ids, visited: visited, maxPages: span.maxPages,
            maxNotes: span.maxNotes, cancellation: cancellation)
        return try await walk(plan, learning: locator.pagination.learnsFromFirstPage, body: body)
    }

    /// ``walk(from:ids:visited:span:cancellation:body:)``, `learning` what the first
    /// page shows of the server's pages (``Pagination/learned(from:)``), or not: the rest of a walk that has.
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

    /// Pages (attempts included) whose decoding moved to their lane's second thread so far.
    package var pagesDecodedOnTwoThreads: Int { lanes.reduce(0) { $0 + $1.worker.documentsParsed } }

    /// Runs `body` on lane `index`'s queue, so that the run's id set is only ever touched from there.
    func onLane<Result: Sendable>(_ index: Int, _ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            lanes[index].thread.async { continuation.resume(returning: body()) }
        }
    }
}
