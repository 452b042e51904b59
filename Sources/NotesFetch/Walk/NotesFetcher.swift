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
    /// The configuration's page, with the values the endpoint's pagination scheme reads: what the first
    /// phase of a walk reads (``WalkPhase``).
    let page: PageConfiguration
    /// `page` checked and made ready for its pages, once.
    let plan: PagePlan
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
        /// The next page, begun while the lane finished the page before it.
        let ahead = AheadPage()

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
    public convenience init(
        locator: PageLocator,
        configuration: FetchConfiguration = FetchConfiguration(),
        transport: any HTTPTransport,
        environment: FetchEnvironment = .live,
        moreTransports: (@Sendable () -> any HTTPTransport)? = nil
    ) {
        self.init(
            locator: locator, configuration: configuration, transport: transport, environment: environment,
            moreTransports: moreTransports, gate: nil)
    }

    deinit {
        // A page begun ahead that no attempt took: its parse leaves the worker's thread now, not when the
        // transport (maybe the caller's, kept longer) lets go of it.
        for lane in lanes { lane.ahead.abandon() }
    }

    /// A fetcher whose requests pass `gate` (shared with other walks), or a gate of its own when `nil`.
    package init(
        locator: PageLocator,
        configuration: FetchConfiguration,
        transport: any HTTPTransport,
        environment: FetchEnvironment,
        moreTransports: (@Sendable () -> any HTTPTransport)?,
        gate: RequestGate?
    ) {
        self.locator = locator
        self.configuration = configuration
        self.environment = environment
        // Lane 0 carries the pages decoded into the run's id set; early requests take lanes 1 and 2 in turn.
        lanes = (0..<max(1, configuration.parallel, configuration.earlyRequests ? 3 : 1)).map { index in
            Lane(index: index, transport: index == 0 ? transport : moreTransports?() ?? transport)
        }
        self.gate = gate ?? RequestGate(rate: configuration.rate)
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
        plan = PagePlan(page)
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

    /// The walk's first phase: the endpoint's scheme, reading the configuration's page.
    var firstPhase: WalkPhase { WalkPhase(client: self, locator: locator, page: page) }

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
        try await firstPhase.fetchPage(location, number: number, ids: ids, cancellation: cancellation, lane: 0)
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
        return try await firstPhase.walk(plan, learning: locator.pagination.learnsFromFirstPage, body: body)
    }

    /// Pages (attempts included) whose decoding moved to their lane's second thread so far.
    package var pagesDecodedOnTwoThreads: Int { lanes.reduce(0) { $0 + $1.worker.documentsParsed } }

    /// Runs `body` on lane `index`'s queue, so that the run's id set is only ever touched from there.
    func onLane<Result: Sendable>(_ index: Int, _ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            lanes[index].thread.async { continuation.resume(returning: body()) }
        }
    }

    /// The request for `url`: credentials go to the endpoint's origin only (the token, and headers that
    /// carry credentials).
    func request(for url: String, body: [UInt8]?, fresh: Bool, meter: ExchangeMeter?) -> HTTPRequest {
        let sameOrigin = isSameOrigin(url)
        var url = url
        if let (name, key) = configuration.queryCredential {
            url = sameOrigin ? PageLocator.setting([(name, key.value)], on: url) : PageLocator.removing(name, from: url)
        }
        if !sameOrigin { tellOnce(otherOrigin: url) }
        var headers = configuration.headers.filter { sameOrigin || !FetchConfiguration.isCredential($0) }
        if sameOrigin, let token = configuration.token?.currentToken() {
            headers.append(HTTPHeader("Authorization", "Bearer \(token.value)"))
        }
        if body != nil, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(HTTPHeader("Content-Type", "application/json"))
        }
        var request = HTTPRequest(
            url: url, headers: headers,
            timeouts: HTTPRequest.Timeouts(idle: configuration.idleTimeout, total: configuration.pageTimeout),
            freshConnection: fresh, meter: meter, body: body)
        if sameOrigin { request.awsSigV4 = configuration.awsSigV4 }
        return request
    }

    /// Says once per walk that it follows a URL on another origin, where no credentials go.
    private func tellOnce(otherOrigin url: String) {
        let first = toldOtherOrigin.withLock { told in
            defer { told = true }
            return !told
        }
        guard first else { return }
        let origin = Origin(url).map { "\($0.scheme)://\($0.host):\($0.port)" } ?? "a URL"
        environment.notice(
            "The walk follows a URL on \(origin), another origin than the endpoint's: no credentials go there")
    }
}
