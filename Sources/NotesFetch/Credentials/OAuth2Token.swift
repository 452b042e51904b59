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

    /// The largest token response read.
    public static let maxResponseBytes = 64 << 10

    /// - Parameters:
    ///   - configuration: The token endpoint, the client and the grant.
    ///   - transport: What asks the token endpoint (a `CurlTransport`, or a test's).
    ///   - now: Seconds since 1970 (tests pass a clock of their own).
    public init(_ configuration: Configuration, transport: any HTTPTransport, now: @escaping @Sendable () -> Double) {
        self.configuration = configuration
        self.transport = transport
        self.now = now
    }

    /// A token kept by the system's clock.
    /// - Parameters:
    ///   - configuration: The token endpoint, the client and the grant.
    ///   - transport: What asks the token endpoint.
    public convenience init(_ configuration: Configuration, transport: any HTTPTransport) {
        self.init(configuration, transport: transport) { Date().timeIntervalSince1970 }
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
            return (try? fetch(&held)) != nil
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

    /// One request to the token endpoint, the lock held.
    private func fetch(_ held: inout Held) throws(Problem) -> Secret {
        do {
            let (secret, lifetime) = try exchange()
            held.token = secret
            // Renewed a little before it expires: a quarter of its life, at most 30 s, ahead.
            held.renewAt = lifetime.map { now() + $0 - min(30, $0 / 4) } ?? .infinity
            held.problem = nil
            return secret
        } catch {
            held.token = nil
            held.problem = error
            throw error
        }
    }

    private func exchange() throws(Problem) -> (Secret, Double?) {
        var form: [(String, String)] = []
        var refreshToken: Secret?
        switch configuration.grant {
        case .clientCredentials:
            form.append(("grant_type", "client_credentials"))
        case .refreshToken(let store):
            guard let stored = store.read() else {
                throw Problem(kind: .refused, message: "no refresh token: \(store.place) holds none")
            }
            refreshToken = stored
            form += [("grant_type", "refresh_token"), ("refresh_token", stored.value)]
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
                    message: "the token endpoint refused (HTTP \(status)): \(String(error.prefix(80)))\(detail)")
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
        if case .refreshToken(let store) = configuration.grant, let rotated = string("refresh_token"),
            rotated != refreshToken?.value
        {
            guard !rotated.isEmpty, rotated.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw Problem(kind: .unavailable, message: "the token endpoint gave a refresh token that cannot be one")
            }
            // Kept before the access token that came with it is used: the old one is spent.
            do {
                try store.write(Secret(rotated))
            } catch {
                throw Problem(
                    kind: .store, message: "the new refresh token could not be kept in \(store.place): \(error)")
            }
        }
        return (Secret(access), lifetime)
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
