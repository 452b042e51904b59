import Dispatch
internal import NotesJSON
public import NotesPage

/// Walks a cursor-paginated endpoint: fetches each page through the transport, streams the body into a
/// ``PageDecoder`` as it arrives, retries what is worth retrying, and follows the next cursor.
///
/// The transport blocks a thread of the fetcher's own serial queue, never a thread of the concurrency
/// pool. Cancelling the calling task (or the ``CancellationFlag`` passed in) stops the request at the
/// next chunk; the page's partial notes are dropped and its ids taken back out of the set.
public final class NotesFetcher: Sendable {
    public let locator: PageLocator
    public let configuration: FetchConfiguration
    private let environment: FetchEnvironment
    /// The configuration's page, with the values the pagination scheme reads.
    private let page: PageConfiguration
    /// A transport and the queue whose thread it blocks, one per page in flight.
    private let lanes: [Lane]
    /// When the next request may start: rate limits and `--rate`, across lanes.
    private let gate: RequestGate
    /// The endpoint's origin, which credentials go to, and its `scheme://authority/` as written: a URL
    /// that starts with it has the same origin without being parsed again.
    private let origin: Origin?
    private let originPrefix: String?

    private struct Lane: Sendable {
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
        // A next path found on the page matters only to a scheme that reads the body's next value.
        if !locator.pagination.readsNextValue { page.detects.remove(.next) }
        // A scheme's paths that the page's own would hide (an items path `count` hides a total there) are
        // left out: the decoder reads no path twice.
        for path in locator.pagination.fieldPaths where page.canRead(path) { page.fieldPaths.append(path) }
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
    }

    /// The same client (lanes, connections, rate limits) walking with another scheme, which reads the
    /// same field paths: the pages after one that showed they can be addressed ahead.
    private init(sharing other: NotesFetcher, pagination: any Pagination, page: PageConfiguration? = nil) {
        locator = PageLocator(endpoint: other.locator.endpoint, pagination: pagination)
        configuration = other.configuration
        environment = other.environment
        self.page = page ?? other.page
        lanes = other.lanes
        gate = other.gate
        origin = other.origin
        originPrefix = other.originPrefix
    }

    /// Whether `url` is on the endpoint's origin (scheme, host and port).
    private func isSameOrigin(_ url: String) -> Bool {
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
        early: (@Sendable (PageLocation) -> Void)? = nil,
        sendsNextEarly: Bool = false
    ) async throws(FetchError) -> FetchedPage {
        let url = locator.url(for: location)
        if let problem = configuration.credentialProblem(endpoint: locator.endpoint) {
            throw FetchError(.insecureCredentials(problem), page: number, location: location, attempts: 0)
        }
        var random = ClosureRandom(draw: environment.random)
        var attempts = AttemptStateMachine(policy: AttemptStateMachine.Policy(configuration))
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
                    url: url, ids: ids, cancellation: cancellation, lane: lanes[lane % lanes.count], early: early,
                    sendsNextEarly: sendsNextEarly, meter: meter, fresh: fresh)
            } onCancel: {
                cancellation.cancel()
            }
            let page: (notes: [Note], summary: PageDecoder.Summary, url: String, head: HTTPResponseHead)
            switch outcome {
            case .page(let notes, let summary, let finalURL, let head):
                page = (notes, summary, finalURL, head)
            case .failed(let failure):
                switch attempts.ended(failure, sends: meter.sendCount, now: environment.now(), random: &random) {
                case .fail(let code):
                    throw FetchError(code, page: number, location: location, attempts: attempts.attempts)
                case .hold(let wait, let reason):
                    environment.waiting(wait, reason)
                    gate.hold(until: environment.now() + wait)
                case .retry(let delay, let announce):
                    if announce, case .retryable(let reason, _) = failure { environment.waiting(delay, reason) }
                    do {
                        try await environment.sleep(delay)
                    } catch {
                        throw FetchError(.cancelled, page: number, location: location, attempts: attempts.attempts)
                    }
                }
                continue
            }
            if let wait = attempts.delivered(sends: meter.sendCount, head: page.head, now: environment.now()) {
                // The page spent the limit: the next request waits for the reset.
                environment.waiting(wait, "rate limit spent")
                gate.hold(until: environment.now() + wait)
            }
            let facts = PageFacts(
                location: location, url: page.url, head: page.head, summary: page.summary,
                fieldPaths: self.page.fieldPaths)
            let next: PageLocation?
            do {
                next = try locator.next(after: facts)
            } catch {
                ids.rollbackPage()
                throw FetchError(
                    .pagination(error.message), page: number, location: location, attempts: attempts.attempts)
            }
            return FetchedPage(
                number: number,
                location: location,
                notes: page.notes,
                next: next,
                byteCount: page.summary.byteCount,
                attempts: attempts.attempts,
                wireBytes: meter.wireBytes,
                skippedCount: page.summary.skippedCount,
                total: locator.pagination.total(of: facts),
                facts: facts
            )
        }
    }

    /// Walks from `start` to the last page (or a bound), handing each complete page to `body` in order.
    /// - Parameters:
    ///   - start: The first page to fetch.
    ///   - firstNumber: Its number in the run (more than 1 when resuming).
    ///   - ids: The run's id set.
    ///   - visited: Page URLs seen in the run, for cycle detection; the start's URL is added.
    ///   - maxPages: Stop after this many pages, if set.
    ///   - maxNotes: Stop after the page that brings the run's notes to this many, if set.
    ///   - cancellation: Stops the walk at the next chunk.
    ///   - body: Takes each page, its ids committed to `ids`; the walk waits for it. It may throw
    ///     ``FetchError`` to stop. A sequential walk runs it on the thread its pages run on: it may await
    ///     anything, but must not block that thread waiting for this fetcher's work.
    /// - Returns: Where the walk stopped: the next page's location, or `nil` when it reached the end.
    public func walk(
        from start: PageLocation,
        firstNumber: Int = 1,
        ids: IDSet,
        visited: IDSet,
        maxPages: Int? = nil,
        maxNotes: Int? = nil,
        cancellation: CancellationFlag = CancellationFlag(),
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        try await walk(
            from: start, firstNumber: firstNumber, ids: ids, visited: visited, maxPages: maxPages, maxNotes: maxNotes,
            cancellation: cancellation, learning: locator.pagination.learnsFromFirstPage, body: body)
    }

    /// ``walk(from:firstNumber:ids:visited:maxPages:maxNotes:cancellation:body:)``, `learning` what the first
    /// page shows of the server's pages (``Pagination/learned(from:)``), or not: the rest of a walk that has.
    private func walk(
        from start: PageLocation,
        firstNumber: Int,
        ids: IDSet,
        visited: IDSet,
        maxPages: Int?,
        maxNotes: Int?,
        cancellation: CancellationFlag,
        learning: Bool,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        if learning {
            return try await walkFirstAlone(
                from: start, firstNumber: firstNumber, ids: ids, visited: visited, maxPages: maxPages,
                maxNotes: maxNotes, cancellation: cancellation, body: body)
        }
        if configuration.parallel > 1, locator.pagination.location(1, after: start) != nil {
            return try await walkInParallel(
                from: start, firstNumber: firstNumber, ids: ids, visited: visited, maxPages: maxPages,
                maxNotes: maxNotes, cancellation: cancellation, body: body)
        }
        // The walk runs on lane 0's thread, where its pages run: a page costs no hop there and back.
        return try await withTaskExecutorPreference(lanes[0].thread) { () async throws(FetchError) -> PageLocation? in
            try await walkInSequence(
                from: start, firstNumber: firstNumber, ids: ids, visited: visited, maxPages: maxPages,
                maxNotes: maxNotes, cancellation: cancellation, body: body)
        }
    }

    /// ``walk(from:firstNumber:ids:visited:maxPages:maxNotes:cancellation:body:)`` when the first page
    /// shows how to read the rest (a scheme that learns the server's page size from it, paths to find on
    /// it): that page on its own, then the rest with the scheme and the paths it showed (in parallel where
    /// the scheme allows).
    private func walkFirstAlone(
        from start: PageLocation,
        firstNumber: Int,
        ids: IDSet,
        visited: IDSet,
        maxPages: Int?,
        maxNotes: Int?,
        cancellation: CancellationFlag,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        var first: (facts: PageFacts?, count: Int)?
        let next = try await withTaskExecutorPreference(lanes[0].thread) {
            () async throws(FetchError) -> PageLocation? in
            // Its next page may still go out early (when the paths stay as they are): lane 0's transport holds
            // it for the walk that follows, which takes it over with an equal request.
            try await walkInSequence(
                from: start, firstNumber: firstNumber, ids: ids, visited: visited, maxPages: 1, maxNotes: nil,
                cancellation: cancellation, sendsNextAfterLast: (maxPages ?? 2) > 1 && maxNotes == nil
            ) { (page: FetchedPage) async throws(FetchError) -> Void in
                first = (page.facts, page.notes.count)
                try await body(page)
            }
        }
        guard let next, let first else { return next }
        if let maxPages, maxPages <= 1 { return next }
        if let maxNotes, first.count >= maxNotes { return next }
        let pagination = first.facts.flatMap { locator.pagination.learned(from: $0) } ?? locator.pagination
        let rest = first.facts.flatMap(pageConfiguration(after:)) ?? page
        return try await NotesFetcher(sharing: self, pagination: pagination, page: rest).walk(
            from: next, firstNumber: firstNumber + 1, ids: ids, visited: visited, maxPages: maxPages.map { $0 - 1 },
            maxNotes: maxNotes.map { $0 - first.count }, cancellation: cancellation, learning: false, body: body)
    }

    /// The page configuration for the pages after `first`, when `first` showed paths to read them by
    /// (``PageConfiguration/detects``); `nil` when they stay as they are.
    private func pageConfiguration(after first: PageFacts) -> PageConfiguration? {
        guard !page.detects.isEmpty else { return nil }
        let items = first.summary.detectedItemsPath
        let next = first.summary.detectedNextPath
        guard items != nil || next != nil else { return nil }
        var rest = page
        rest.detects = []
        if let items { rest.itemsPath = items }
        if let next { rest.nextPath = next }
        // A field path the paths found would hide is no longer read.
        let read = rest.fieldPaths
        rest.fieldPaths = []
        for path in read where rest.canRead(path) { rest.fieldPaths.append(path) }
        return rest
    }

    private func walkInSequence(
        from start: PageLocation,
        firstNumber: Int,
        ids: IDSet,
        visited: IDSet,
        maxPages: Int?,
        maxNotes: Int?,
        cancellation: CancellationFlag,
        sendsNextAfterLast: Bool = false,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        var location = start
        var number = firstNumber
        var pages = 0
        var notes = 0
        let first = locator.url(for: location)
        if FetchLimits.urlProblem(first) == nil { visited.insert(first) }
        visited.commitPage()
        let earlyPages =
            configuration.earlyRequests
            ? EarlyPages(
                fetcher: self, lastNumber: maxPages.map { firstNumber + $0 - 1 }, cancellation: cancellation) : nil
        defer { earlyPages?.stop() }
        while true {
            var page: FetchedPage
            earlyPages?.makeCurrent(number)
            if let early = earlyPages?.take(number, at: location) {
                // Requested early with ids of its own: checked against the run now, in page order.
                page = try await withTaskCancellationHandler {
                    await early.value
                } onCancel: {
                    early.cancel()
                }.get()
                let run = UnsafeTransfer(ids)
                let taken = page
                let checked = await onLane(0) { [self] in
                    var page = taken
                    let problem = addIDs(of: &page, to: run.value, duplicates: configuration.page.duplicates)
                    return problem.map { Result<FetchedPage, FetchError>.failure($0) } ?? .success(page)
                }
                page = try checked.get()
            } else {
                // The next page's request goes out as soon as this page's last chunk names it (lane 0's
                // transport holds it until the next iteration asks for that page): not past --max-pages, not
                // with --max-notes (this page may be the last), nor while auto may still move to pages in
                // parallel.
                let sendsNextEarly =
                    earlyPages != nil && (configuration.parallel <= 1 || pages >= 2)
                    && (sendsNextAfterLast || (maxPages.map { pages + 2 <= $0 } ?? true)) && maxNotes == nil
                page = try await fetchPage(
                    location, number: number, ids: ids, cancellation: cancellation, lane: 0,
                    early: earlyPages?.earlyHandler(for: number), sendsNextEarly: sendsNextEarly)
            }
            // A page whose next link loops is refused whole, so that a resumed run meets the same error.
            if let next = page.next {
                let url = locator.url(for: next)
                if let reason = FetchLimits.urlProblem(url) {
                    ids.rollbackPage()
                    throw FetchError(.pagination(reason), page: number, location: location, attempts: page.attempts)
                }
                if case .duplicate = visited.insert(url) {
                    ids.rollbackPage()
                    throw FetchError(.cycle, page: number, location: location, attempts: page.attempts)
                }
            }
            visited.commitPage()
            ids.commitPage()
            try await body(page)
            pages += 1
            notes += page.notes.count
            guard let next = page.next else { return nil }
            if let maxPages, pages >= maxPages { return next }
            if let maxNotes, notes >= maxNotes { return next }
            if pages == 1, let facts = page.facts, let rest = pageConfiguration(after: facts) {
                // The first page showed where the items or the next value are: the rest is read there (what
                // was requested early, read the first page's way, is dropped).
                earlyPages?.stop()
                return try await NotesFetcher(sharing: self, pagination: locator.pagination, page: rest).walk(
                    from: next, firstNumber: number + 1, ids: ids, visited: visited, maxPages: maxPages.map { $0 - 1 },
                    maxNotes: maxNotes.map { $0 - page.notes.count }, cancellation: cancellation, body: body)
            }
            if configuration.parallel > 1, pages <= 2, let facts = page.facts,
                let addressed = locator.pagination.addressed(after: facts, endpoint: locator.endpoint)
            {
                // The next URLs walk offsets or page numbers: the rest of the walk goes in parallel, starting
                // with the next page's early request if there is one.
                // Off lane 0's thread: pages in flight would otherwise wait for it, busy with a page of its own.
                let first = earlyPages?.take(number + 1, at: next)
                let (done, counted) = (pages, notes)
                return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                    () async throws(FetchError) -> PageLocation? in
                    try await NotesFetcher(sharing: self, pagination: addressed).walkInParallel(
                        from: next, firstNumber: number + 1, ids: ids, visited: visited,
                        maxPages: maxPages.map { $0 - done }, maxNotes: maxNotes.map { $0 - counted },
                        cancellation: cancellation, first: first, body: body)
                }
            }
            location = next
            number += 1
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

    // MARK: - One attempt

    private enum Outcome: Sendable {
        case page(notes: [Note], summary: PageDecoder.Summary, url: String, head: HTTPResponseHead)
        case failed(AttemptStateMachine.Failure)
    }

    /// One attempt at a page, following redirects, on the transport queue.
    private func attemptPage(
        url: String, ids: IDSet, cancellation: CancellationFlag, lane: Lane, early: (@Sendable (PageLocation) -> Void)?,
        sendsNextEarly: Bool, meter: ExchangeMeter, fresh: Bool
    ) async -> Outcome {
        let ids = UnsafeTransfer(ids)
        return await withCheckedContinuation { continuation in
            lane.thread.async { [self] in
                continuation.resume(
                    returning: performPage(
                        url: url, ids: ids.value, cancellation: cancellation, transport: lane.transport,
                        worker: lane.worker, early: early, sendsNextEarly: sendsNextEarly, meter: meter, fresh: fresh))
            }
        }
    }

    private func performPage(
        url: String, ids: IDSet, cancellation: CancellationFlag, transport: any HTTPTransport,
        worker: JSONPipelineWorker, early: (@Sendable (PageLocation) -> Void)?, sendsNextEarly: Bool,
        meter: ExchangeMeter, fresh: Bool
    ) -> Outcome {
        var url = url
        var redirects = 0
        while true {
            // Only the first request of an attempt counts its sends (redirects are not attempts); the page's
            // bytes on the wire are those of the last response.
            let hop = ExchangeMeter()
            let isFirst = redirects == 0
            let request = request(for: url, fresh: fresh, meter: hop)
            defer {
                if isFirst { meter.sent(hop.sendCount) }
            }
            let reception = PageReception(configuration: page, ids: ids, worker: worker)
            if sendsNextEarly {
                let pageURL = url
                reception.makeNextRequest = { [self] head, value in
                    // Not while a rate is kept or a limit waited out, nor after a head that spent the limit.
                    let now = environment.now()
                    guard gate.isOpen(at: now), !(RateLimit.wait(head, now: now).map { $0 > 0 } ?? false),
                        let next = locator.pagination.earlyNext(
                            head: head, nextValue: .some(value), url: pageURL, endpoint: locator.endpoint)
                    else { return nil }
                    let nextURL = locator.url(for: next)
                    guard FetchLimits.urlProblem(nextURL) == nil else { return nil }
                    // As the next page's first attempt will make it, so that it takes this exchange over.
                    return self.request(for: nextURL, fresh: configuration.retries == 0, meter: nil)
                }
            }
            if let early {
                let pagination = locator.pagination
                let endpoint = locator.endpoint
                let pageURL = url
                reception.early = { head, value in
                    pagination.earlyNext(head: head, nextValue: value, url: pageURL, endpoint: endpoint).map(early)
                        != nil
                }
            }
            let completed: Bool
            do {
                completed = try transport.perform(request, receiver: reception, cancellation: cancellation)
            } catch {
                return .failed(AttemptStateMachine.failure(of: error))
            }
            guard let head = reception.head else { return .failed(.retryable(reason: "no response", retryAfter: nil)) }
            if let problem = reception.problem { return .failed(.fatal(problem)) }
            switch AttemptStateMachine.verdict(
                on: head, url: url, redirects: redirects, policy: AttemptStateMachine.Policy(configuration),
                now: environment.now())
            {
            case .read:
                guard completed else { return .failed(.fatal(.cancelled)) }
                meter.received(wireBytes: hop.wireBytes)
                do {
                    let summary = try reception.finish()
                    return .page(notes: reception.notes, summary: summary, url: url, head: head)
                } catch {
                    return .failed(.fatal(.contract(error)))
                }
            case .follow(let target):
                redirects += 1
                url = target
            case .end(let failure):
                return .failed(failure)
            }
        }
    }

    /// The request for `url`: credentials go to the endpoint's origin only (the token, and headers that
    /// carry credentials).
    private func request(for url: String, fresh: Bool, meter: ExchangeMeter?) -> HTTPRequest {
        let sameOrigin = isSameOrigin(url)
        var headers = configuration.headers.filter { sameOrigin || !FetchConfiguration.isCredential($0) }
        if sameOrigin, let token = configuration.token?.currentToken() {
            headers.append(HTTPHeader("Authorization", "Bearer \(token.value)"))
        }
        return HTTPRequest(
            url: url, headers: headers, idleTimeout: configuration.idleTimeout,
            totalTimeout: configuration.pageTimeout, freshConnection: fresh, meter: meter)
    }
}
