public import NotesPage

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
    public var parallel: Int = 4
    /// Whether a walk requests the next page as soon as its reference is known (a `Link` or cursor
    /// header, a next value before the notes), while the current page still streams: one page ahead.
    public var earlyRequests = true

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
