import Synchronization

/// One HTTP header field.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A GET request, or a POST when it has a body.
public struct HTTPRequest: Sendable, Hashable {
    public var url: String
    public var headers: [HTTPHeader]
    /// The body of a POST (its `Content-Type` among ``headers``); `nil` for a GET.
    public var body: [UInt8]?
    /// How long the exchange may wait for a byte, and take in all.
    public var timeouts: Timeouts
    /// Open a new connection rather than reuse a kept-alive one, on which an HTTP library may send the
    /// request a second time on its own if the connection turns out dead.
    public var freshConnection: Bool
    /// Counts the times the request was sent (the transport's own re-sends included) and the body's bytes
    /// on the wire. Not part of the request's identity.
    public var meter: ExchangeMeter?
    /// Sign the request with AWS Signature Version 4 (libcurl signs it as it goes out); `nil`: unsigned.
    public var awsSigV4: AWSSigV4?

    /// How long an exchange may go on before it fails.
    public struct Timeouts: Sendable, Hashable {
        /// Seconds without a byte (connecting, the TLS handshake, waiting for the head, reading the body).
        public var idle: Double
        /// Seconds the whole exchange may take, however steadily bytes arrive.
        public var total: Double

        /// - Parameters:
        ///   - idle: Defaults to 30 seconds.
        ///   - total: Defaults to 600 seconds.
        public init(idle: Double = 30, total: Double = 600) {
            self.idle = idle
            self.total = total
        }
    }

    /// - Parameters:
    ///   - url: The page's URL.
    ///   - headers: Defaults to none.
    ///   - timeouts: Defaults to 30 seconds idle, 600 in all.
    ///   - freshConnection: Defaults to `false`.
    ///   - meter: Defaults to none.
    ///   - body: Defaults to none: a GET.
    public init(
        url: String, headers: [HTTPHeader] = [], timeouts: Timeouts = Timeouts(), freshConnection: Bool = false,
        meter: ExchangeMeter? = nil, body: [UInt8]? = nil
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
        self.freshConnection = freshConnection
        self.meter = meter
    }

    /// `POST` when the request has a body, else `GET`.
    public var method: String { body == nil ? "GET" : "POST" }

    /// The `Accept` a transport sends when ``headers`` has none: JSON first, anything else at a lower
    /// quality (as curl's `*/*`), so that a server speaking only a JSON type of its own
    /// (`application/vnd.api+json`) answers rather than refusing with 406; the content type of the answer is
    /// still checked.
    public static let defaultAccept = "application/json, */*;q=0.8"

    /// The `Accept` to send: the caller's if ``headers`` has one, else ``defaultAccept``.
    public var accept: String? {
        headers.contains { $0.name.lowercased() == "accept" } ? nil : Self.defaultAccept
    }

    public static func == (left: HTTPRequest, right: HTTPRequest) -> Bool {
        left.url == right.url && left.body == right.body && left.headers == right.headers
            && left.timeouts == right.timeouts && left.freshConnection == right.freshConnection
            && left.awsSigV4 == right.awsSigV4
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(body)
    }
}

/// What signs a request with AWS Signature Version 4: the region and service of its credential scope, and
/// the access key.
public struct AWSSigV4: Sendable, Hashable {
    public var region: String
    public var service: String
    public var accessKeyID: Secret
    public var secretAccessKey: Secret

    public init(region: String, service: String, accessKeyID: Secret, secretAccessKey: Secret) {
        self.region = region
        self.service = service
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// Whether `text` can be a region's or a service's name: lower-case letters, digits and `-`.
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
    }
}
