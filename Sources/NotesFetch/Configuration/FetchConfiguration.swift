public import NotesPage

/// How to walk an endpoint.
public struct FetchConfiguration: Sendable {
    /// Limits and paths of each page.
    public var page: PageConfiguration
    /// Retries after the first attempt of a page.
    public var retries: Int
    /// The delays before each retry.
    public var backoff = Backoff()
    /// Seconds without a byte before a request fails (and is retried).
    public var idleTimeout: Double = 30
    /// Extra request headers.
    public var headers: [HTTPHeader]
    /// The bearer token, sent as `Authorization: Bearer …` to the endpoint's origin only: a ``Secret``, or
    /// a provider asked before every request (``EnvironmentToken``, ``FileToken``, an app's sign-in).
    public var token: (any TokenProvider)?
    /// An API key sent as a query parameter (`name`, the key) on each request to the endpoint's origin. It
    /// is added as the request goes out and taken out of every next URL a page gives, so that no URL the
    /// walk keeps or shows holds it.
    public var queryCredential: (name: String, key: Secret)?
    /// Signs each request to the endpoint's origin with AWS Signature Version 4 (libcurl's transport only).
    public var awsSigV4: AWSSigV4?
    /// Redirects followed in a row for one page.
    public var maxRedirects = FetchLimits.maxRedirects
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

    /// The settings most walks set; the others have their defaults, to be set as properties.
    /// - Parameters:
    ///   - page: Defaults to ``PageConfiguration``'s defaults.
    ///   - retries: Defaults to 4.
    ///   - headers: Defaults to none.
    ///   - token: Defaults to none.
    public init(
        page: PageConfiguration = PageConfiguration(),
        retries: Int = 4,
        headers: [HTTPHeader] = [],
        token: (any TokenProvider)? = nil
    ) {
        self.page = page
        self.retries = retries
        self.headers = headers
        self.token = token
    }
}
