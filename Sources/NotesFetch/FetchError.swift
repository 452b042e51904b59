public import NotesPage

/// Why a walk stopped, and on which page. Messages never hold a token or a header value.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: compare with `==` (`error.code == .cycle`, `.status(404)`), or read what a code
    /// carries (``pageError``, ``httpStatus``, ``storeError``). A struct over a closed set, as
    /// async-http-client's `HTTPClientError` is, so that a new code breaks no caller's `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        package enum Base: Sendable, Hashable {
            /// The body broke the contract or a limit.
            case contract(PageError)
            /// A status the walk cannot use: a 4xx other than 401, 403 and 429, or a redirect without a target.
            case status(Int)
            /// The `Content-Type` is not JSON in UTF-8 (the value, cut short).
            case contentType(String)
            /// `Content-Length` is over the page byte cap.
            case tooLarge(contentLength: Int, limit: Int)
            /// The server sent a next page already visited in this run.
            case cycle
            /// The page says something its pagination scheme cannot follow.
            case pagination(String)
            /// Too many redirects in a row.
            case redirects(Int)
            /// A record's field that the walk reads (an incremental sync's) is missing or of another type.
            case record(String)
            /// 401 or 403: the credentials are missing or no longer valid. Never retried.
            case sessionExpired(status: Int)
            /// Still failing after every retry: the last reason.
            case unavailable(String)
            /// Rate limited for longer than the walk may wait: the reason, with when the limit resets.
            case rateLimited(String)
            /// The TLS handshake failed (a certificate that does not verify, or names another host).
            case tls(String)
            /// The HTTP client cannot work in this process (libcurl could not be loaded): why. Never retried.
            case transportUnusable(String)
            /// The walk was cancelled.
            case cancelled
            /// Where the walk commits its pages failed (a file, a database).
            case output(StoreError)
            /// The walk would send credentials where they could be read on the way (plain http).
            case insecureCredentials(String)
        }

        /// The code itself, for the package's own exhaustive switches.
        package let base: Base

        package init(_ base: Base) {
            self.base = base
        }

        /// The body broke the contract or a limit.
        public static func contract(_ error: PageError) -> Code { Code(.contract(error)) }
        /// A status the walk cannot use: a 4xx other than 401, 403 and 429, or a redirect without a target.
        public static func status(_ status: Int) -> Code { Code(.status(status)) }
        /// The `Content-Type` is not JSON in UTF-8 (the value, cut short).
        public static func contentType(_ type: String) -> Code { Code(.contentType(type)) }
        /// `Content-Length` is over the page byte cap.
        public static func tooLarge(contentLength: Int, limit: Int) -> Code {
            Code(.tooLarge(contentLength: contentLength, limit: limit))
        }
        /// The server sent a next page already visited in this run.
        public static let cycle = Code(.cycle)
        /// The page says something its pagination scheme cannot follow.
        public static func pagination(_ message: String) -> Code { Code(.pagination(message)) }
        /// Too many redirects in a row.
        public static func redirects(_ count: Int) -> Code { Code(.redirects(count)) }
        /// A record's field that the walk reads (an incremental sync's) is missing or of another type.
        public static func record(_ message: String) -> Code { Code(.record(message)) }
        /// 401 or 403: the credentials are missing or no longer valid. Never retried.
        public static func sessionExpired(status: Int) -> Code { Code(.sessionExpired(status: status)) }
        /// Still failing after every retry: the last reason.
        public static func unavailable(_ last: String) -> Code { Code(.unavailable(last)) }
        /// Rate limited for longer than the walk may wait: the reason, with when the limit resets.
        public static func rateLimited(_ reason: String) -> Code { Code(.rateLimited(reason)) }
        /// The TLS handshake failed (a certificate that does not verify, or names another host).
        public static func tls(_ message: String) -> Code { Code(.tls(message)) }
        /// The HTTP client cannot work in this process (libcurl could not be loaded): why. Never retried.
        public static func transportUnusable(_ reason: String) -> Code { Code(.transportUnusable(reason)) }
        /// The walk was cancelled.
        public static let cancelled = Code(.cancelled)
        /// Where the walk commits its pages failed (a file, a database).
        public static func output(_ failure: StoreError) -> Code { Code(.output(failure)) }
        /// The walk would send credentials where they could be read on the way (plain http).
        public static func insecureCredentials(_ message: String) -> Code { Code(.insecureCredentials(message)) }

        /// The contract error of a page that broke the contract or a limit.
        public var pageError: PageError? {
            if case .contract(let error) = base { return error }
            return nil
        }

        /// The HTTP status of a status the walk cannot use, or of an expired session.
        public var httpStatus: Int? {
            switch base {
            case .status(let status), .sessionExpired(let status): return status
            default: return nil
            }
        }

        /// The failure of the destination the walk commits to.
        public var storeError: StoreError? {
            if case .output(let failure) = base { return failure }
            return nil
        }

        public var description: String { "\(base)" }
    }

    /// The broad kind of failure, which decides the command's exit code.
    public enum Kind: Sendable, Hashable {
        case contract
        case unavailable
        case sessionExpired
        case cancelled
        case output
        /// A database server refused the credentials.
        case credentials
        /// The walk was set up wrongly; nothing was sent.
        case usage
    }

    public var code: Code
    /// 1-based number of the page in the run.
    public var page: Int
    /// Where the page is.
    public var location: PageLocation
    /// Requests made for the page, redirects not counted.
    public var attempts: Int

    public init(_ code: Code, page: Int, location: PageLocation, attempts: Int = 1) {
        self.code = code
        self.page = page
        self.location = location
        self.attempts = attempts
    }

    public var kind: Kind {
        switch code.base {
        case .contract, .status, .contentType, .tooLarge, .cycle, .pagination, .redirects, .record: return .contract
        case .sessionExpired: return .sessionExpired
        case .unavailable, .rateLimited, .tls, .transportUnusable: return .unavailable
        case .cancelled: return .cancelled
        case .output(let failure):
            switch failure.kind {
            case .output: return .output
            case .unavailable: return .unavailable
            case .credentials: return .credentials
            case .record: return .contract
            }
        case .insecureCredentials: return .usage
        }
    }

    /// What went wrong, without where.
    public var reason: String {
        switch code.base {
        case .contract(let error): return error.description
        case .status(let status): return "the server answered HTTP \(status)"
        case .contentType(let type):
            return "the response is \(type.isEmpty ? "without a Content-Type" : "'\(type)'"), not JSON"
        case .tooLarge(let length, let limit):
            return "Content-Length \(length) is over the page limit of \(limit) bytes"
        case .cycle: return "the server sent a next page already visited in this run (a cursor cycle)"
        case .pagination(let message), .record(let message): return message
        case .redirects(let count): return "more than \(count) redirects in a row"
        case .sessionExpired(let status): return "session expired (HTTP \(status)): sign in again or renew the token"
        case .unavailable(let last):
            return "the server is unavailable after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(last)"
        case .rateLimited(let reason): return reason
        case .tls(let message): return "the TLS handshake failed, not retried: \(message)"
        case .transportUnusable(let reason): return "no request can be made, not retried: \(reason)"
        case .cancelled: return "interrupted"
        case .output(let failure): return failure.description
        case .insecureCredentials(let message): return message
        }
    }

    public var description: String {
        "page \(page) (\(location)): \(reason)"
    }
}
