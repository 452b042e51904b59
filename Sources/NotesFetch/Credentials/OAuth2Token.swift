internal import NotesJSON
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An OAuth 2.0 access token (RFC 6749), asked of the token endpoint before the first request and again
/// when it is about to expire or the API refuses it: the client credentials grant (§4.4), or the refresh
/// token grant (§6) whose refresh token, when the server rotates it, is kept (``RefreshTokenStore``)
/// before the new access token is used, so that a process killed at any instant never loses the only
/// valid one.
///
/// One request to the token endpoint at a time: walks that find the token expired together wait for the
/// one request, then all use its token.
public final class OAuth2Token: TokenProvider, @unchecked Sendable {
    public struct Configuration: Sendable {
        public enum Grant: Sendable {
            case clientCredentials
            /// The refresh token grant, the refresh token read from and kept in `store`.
            case refreshToken(any RefreshTokenStore)
        }

        /// How the client authenticates to the token endpoint (RFC 6749 §2.3.1).
        public enum ClientAuthentication: String, Sendable {
            /// `Authorization: Basic` of the form-encoded id and secret (`client_secret_basic`).
            case basic
            /// `client_id` and `client_secret` in the form body (`client_secret_post`).
            case post
        }

        public var tokenURL: String
        public var clientID: String
        public var clientSecret: Secret?
        public var scopes: [String]
        public var clientAuthentication: ClientAuthentication
        public var grant: Grant

        public init(
            tokenURL: String, clientID: String, clientSecret: Secret?, scopes: [String] = [],
            clientAuthentication: ClientAuthentication = .basic, grant: Grant
        ) {
            self.tokenURL = tokenURL
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.scopes = scopes
            self.clientAuthentication = clientAuthentication
            self.grant = grant
        }
    }

    /// Why no access token could be had: the endpoint's `error` (`invalid_client`, …), its status, or
    /// the exchange that failed. Never holds a secret.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable {
            /// The endpoint refused the credentials or the grant (exit 77).
            case refused
            /// The endpoint could not be reached, or answered what is not a token (exit 69).
            case unavailable
            /// The rotated refresh token could not be kept: it is not used (exit 74).
            case store
        }

        public var kind: Kind
        public var message: String
        /// The endpoint's `error` (`invalid_grant`, …), when it said one.
        public var code: String?

        public init(kind: Kind, message: String, code: String? = nil) {
            self.kind = kind
            self.message = message
            self.code = code
        }

        public var description: String { message }
    }

    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Double
    /// The token, when it is to be renewed, and the last problem; locked while the endpoint is asked.
    private struct Held {
        var token: Secret?
        var renewAt = 0.0
        var problem: Problem?
    }

    private let held = Locked(Held())
    /// Where the workers of a sync keep one token between them, when they share one (``SharedTokenStore``).
    public let shared: (any SharedTokenStore)?

    /// The largest token response read.
    public static let maxResponseBytes = 64 << 10

    /// - Parameters:
    ///   - configuration: The token endpoint, the client and the grant.
    ///   - transport: What asks the token endpoint (a `CurlTransport`, or a test's).
    ///   - now: Seconds since 1970 (tests pass a clock of their own).
    ///   - shared: Where the token is kept for every process of the sync, when they share one.
    public init(
        _ configuration: Configuration, transport: any HTTPTransport, shared: (any SharedTokenStore)? = nil,
        now: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.transport = transport
        self.shared = shared
        self.now = now
    }

    /// A token kept by the system's clock.
    /// - Parameters:
    ///   - configuration: The token endpoint, the client and the grant.
    ///   - transport: What asks the token endpoint.
    ///   - shared: Where the token is kept for every process of the sync, when they share one.
    public convenience init(
        _ configuration: Configuration, transport: any HTTPTransport, shared: (any SharedTokenStore)? = nil
    ) {
        self.init(configuration, transport: transport, shared: shared) { Date().timeIntervalSince1970 }
    }

    /// The access token, asked for first when there is none or it is about to expire; `nil` when it
    /// cannot be had (``lastProblem`` says why).
    public func currentToken() -> Secret? {
        held.withLock { held in
            if let token = held.token, now() < held.renewAt { return token }
            return try? fetch(&held)
        }
    }

    /// Asks for a token now, unless `rejected` is no longer the current one (another walk renewed it):
    /// the API refused `rejected`. Returns whether there is another token to send.
    public func renew(rejected: Secret?) -> Bool {
        held.withLock { held in
            if let token = held.token, token != rejected, now() < held.renewAt { return true }
            return (try? fetch(&held, rejected: rejected)) != nil
        }
    }

    /// Asks for the first token: what the run does before its first request.
    /// - Throws: ``Problem`` naming the endpoint's error.
    public func prepare() throws(Problem) {
        let result = held.withLock { held in Result { () throws(Problem) in try fetch(&held) } }
        _ = try result.get()
    }

    /// Why the last request to the token endpoint gave no token, if it did not.
    public var lastProblem: Problem? { held.withLock { $0.problem } }

    /// One request to the token endpoint, the lock held; with a ``shared`` store, the token the sync's
    /// processes share, asked for only when it is about to expire or is `rejected`.
    private func fetch(_ held: inout Held, rejected: Secret? = nil) throws(Problem) -> Secret {
        do throws(Problem) {
            if let shared {
                let kept = try shared.exchange { kept throws(Problem) in try renewal(of: kept, rejected: rejected) }
                held.token = kept.access
                held.renewAt = kept.renewAt
            } else {
                let (secret, lifetime, rotated) = try exchange(refreshToken: try storedRefreshToken())
                if let rotated, case .refreshToken(let store) = configuration.grant {
                    // Kept before the access token that came with it is used: the old one is spent.
                    do {
                        try store.write(rotated)
                    } catch {
                        throw Problem(
                            kind: .store, message: "the new refresh token could not be kept in \(store.place): \(error)"
                        )
                    }
                }
                held.token = secret
                held.renewAt = renewal(lifetime)
            }
            held.problem = nil
            return held.token ?? Secret("")
        } catch {
            held.token = nil
            held.problem = error
            throw error
        }
    }

    /// When a token living `lifetime` seconds is renewed: a quarter of its life, at most 30 s, before it
    /// expires; never when its life is not said.
    private func renewal(_ lifetime: Double?) -> Double {
        lifetime.map { now() + $0 - min(30, $0 / 4) } ?? .infinity
    }

    /// The refresh token of the grant, read from its store; `nil` for the client credentials grant.
    private func storedRefreshToken() throws(Problem) -> Secret? {
        guard case .refreshToken(let store) = configuration.grant else { return nil }
        guard let stored = store.read() else {
            throw Problem(kind: .refused, message: "no refresh token: \(store.place) holds none")
        }
        return stored
    }

    /// What a shared store is to keep, given what it keeps: nothing new while its access token is good and
    /// not `rejected`; else a new one, from the refresh token the store keeps (the newest any process
    /// was given), or the store's own (`refresh-token`'s file) when it has none or the endpoint refuses it.
    private func renewal(of kept: SharedToken?, rejected: Secret?) throws(Problem) -> SharedToken? {
        if let kept, kept.access != rejected, now() < kept.renewAt { return nil }
        var refresh = kept?.refresh
        if refresh == nil { refresh = try storedRefreshToken() }
        let answer: (Secret, Double?, rotated: Secret?)
        do {
            answer = try exchange(refreshToken: refresh)
        } catch  where error.code == "invalid_grant" && kept?.refresh != nil {
            // A refresh token given anew (the file's) after the one kept was revoked: only on the grant's
            // refusal, never on a server's failure, which the kept one may outlive.
            guard let fresh = try storedRefreshToken(), fresh != kept?.refresh else { throw error }
            refresh = fresh
            answer = try exchange(refreshToken: fresh)
        }
        if let rotated = answer.rotated, case .refreshToken(let store) = configuration.grant {
            // The file follows, as a convenience for a sync without workers on this machine; the shared
            // store, committed before any process uses the new token, is what the workers read.
            try? store.write(rotated)
        }
        return SharedToken(access: answer.0, renewAt: renewal(answer.1), refresh: answer.rotated ?? refresh)
    }

    /// Asks the token endpoint, with `refreshToken` for the refresh token grant.
    /// - Returns: The access token, its lifetime if said, and the refresh token the server rotated to, if it did.
    private func exchange(refreshToken: Secret?) throws(Problem) -> (Secret, Double?, rotated: Secret?) {
        var form: [(String, String)] = []
        switch configuration.grant {
        case .clientCredentials:
            form.append(("grant_type", "client_credentials"))
        case .refreshToken:
            form += [("grant_type", "refresh_token"), ("refresh_token", refreshToken?.value ?? "")]
        }
        if !configuration.scopes.isEmpty { form.append(("scope", configuration.scopes.joined(separator: " "))) }
        var headers = [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
        ]
        switch configuration.clientAuthentication {
        case .basic:
            let pair =
                Self.formEncoded(configuration.clientID) + ":"
                + Self.formEncoded(configuration.clientSecret?.value ?? "")
            headers.append(HTTPHeader("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        case .post:
            form.append(("client_id", configuration.clientID))
            if let secret = configuration.clientSecret { form.append(("client_secret", secret.value)) }
        }
        let body = form.map { Self.formEncoded($0.0) + "=" + Self.formEncoded($0.1) }.joined(separator: "&")
        let request = HTTPRequest(
            url: configuration.tokenURL, headers: headers, timeouts: HTTPRequest.Timeouts(idle: 30, total: 60),
            body: Array(body.utf8))
        let response = TokenResponse()
        do {
            _ = try transport.perform(request, receiver: response, cancellation: CancellationFlag())
        } catch {
            throw Problem(kind: .unavailable, message: "the token endpoint: \(error)")
        }
        guard let status = response.status else {
            throw Problem(kind: .unavailable, message: "the token endpoint sent no response")
        }
        guard !response.overflowed else {
            throw Problem(
                kind: .unavailable, message: "the token endpoint's answer is over \(Self.maxResponseBytes) bytes")
        }
        let tree = try? JSONTree.parse(response.body)
        let members: [JSONTree.Member]
        if case .object(let found)? = tree { members = found } else { members = [] }
        func string(_ key: String) -> String? {
            guard case .string(let text)? = members.first(where: { $0.key == key })?.value else { return nil }
            return text
        }
        guard status == 200 else {
            if let error = string("error") {
                let detail = string("error_description").map { ": \(String($0.prefix(200)))" } ?? ""
                throw Problem(
                    kind: .refused,
                    message: "the token endpoint refused (HTTP \(status)): \(String(error.prefix(80)))\(detail)",
                    code: String(error.prefix(80)))
            }
            let kind: Problem.Kind = status == 401 || status == 403 ? .refused : .unavailable
            throw Problem(kind: kind, message: "the token endpoint answered HTTP \(status)")
        }
        guard let access = string("access_token"), !access.isEmpty,
            access.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw Problem(kind: .unavailable, message: "the token endpoint's answer has no access_token")
        }
        if let type = string("token_type"), type.lowercased() != "bearer" {
            throw Problem(
                kind: .unavailable, message: "the token endpoint gave a token of type \(type.prefix(40)), not Bearer")
        }
        var lifetime: Double?
        if case .number(let text)? = members.first(where: { $0.key == "expires_in" })?.value,
            let seconds = Double(text),
            seconds > 0, seconds < 1e9
        {
            lifetime = seconds
        }
        var kept: Secret?
        if case .refreshToken = configuration.grant, let rotated = string("refresh_token"),
            rotated != refreshToken?.value
        {
            guard !rotated.isEmpty, rotated.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw Problem(kind: .unavailable, message: "the token endpoint gave a refresh token that cannot be one")
            }
            kept = Secret(rotated)
        }
        return (Secret(access), lifetime, kept)
    }

    /// `text` as `application/x-www-form-urlencoded` writes it: letters, digits and `*-._` as they are, a
    /// space as `+`, every other byte `%XX`.
    static func formEncoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: " "):
                bytes.append(UInt8(ascii: "+"))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// An access token the processes of one sync share, when it is to be renewed, and the refresh token it
/// came with (the newest the server gave).
public struct SharedToken: Sendable, Hashable {
    public var access: Secret
    /// Seconds since 1970.
    public var renewAt: Double
    public var refresh: Secret?

    public init(access: Secret, renewAt: Double, refresh: Secret?) {
        self.access = access
        self.renewAt = renewAt
        self.refresh = refresh
    }
}

/// Where the processes of one sync (its workers, on any machines) keep one access token between them:
/// one asks the token endpoint while the others wait, and a refresh token the server rotates is kept
/// there before anyone uses the access token that came with it.
public protocol SharedTokenStore: Sendable {
    /// Calls `body` with the token kept (none at first), holding a lock every process of the sync shares,
    /// and keeps what it returns (`nil`: what is kept stays) before returning the token kept then.
    func exchange(_ body: (SharedToken?) throws(OAuth2Token.Problem) -> SharedToken?) throws(OAuth2Token.Problem)
        -> SharedToken
}

/// Where a refresh token is read and, when the server rotates it, kept.
public protocol RefreshTokenStore: Sendable {
    /// The refresh token now, if there is one.
    func read() -> Secret?
    /// Keeps `token` for good (it replaces the one read) before returning.
    func write(_ token: Secret) throws
    /// Where it is, for messages: "the file '…'".
    var place: String { get }
}

/// A refresh token in a file (its first line): a rotated one replaces the file atomically (a temporary file
/// beside it, synced, renamed), so that the file always holds one whole token, the newest kept.
public struct RefreshTokenFile: RefreshTokenStore {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    public func read() -> Secret? { FileToken(path: path).currentToken() }

    public func write(_ token: Secret) throws {
        try writeAtomically(Array((token.value + "\n").utf8), to: path)
    }

    public var place: String { "the file '\(path.prefix(200))'" }
}

/// Collects a token endpoint's answer, at most ``OAuth2Token/maxResponseBytes``.
private final class TokenResponse: HTTPResponseReceiver {
    var status: Int?
    var body: [UInt8] = []
    var overflowed = false

    func receive(head: HTTPResponseHead) -> Bool {
        status = head.status
        return true
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= OAuth2Token.maxResponseBytes else {
            overflowed = true
            return false
        }
        body += chunk
        return true
    }
}
