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

/// A GET request.
public struct HTTPRequest: Sendable, Hashable {
    public var url: String
    public var headers: [HTTPHeader]
    /// Seconds without a byte (connecting, the TLS handshake, waiting for the head, reading the body)
    /// before the request fails.
    public var idleTimeout: Double
    /// Seconds the whole exchange may take before it fails, however steadily bytes arrive.
    public var totalTimeout: Double
    /// Open a new connection rather than reuse a kept-alive one, on which an HTTP library may send the
    /// request a second time on its own if the connection turns out dead.
    public var freshConnection: Bool
    /// Counts the times the request was sent (the transport's own re-sends included) and the body's bytes
    /// on the wire. Not part of the request's identity.
    public var meter: ExchangeMeter?

    public init(
        url: String, headers: [HTTPHeader] = [], idleTimeout: Double = 30, totalTimeout: Double = 600,
        freshConnection: Bool = false, meter: ExchangeMeter? = nil
    ) {
        self.url = url
        self.headers = headers
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.freshConnection = freshConnection
        self.meter = meter
    }

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
        left.url == right.url && left.headers == right.headers && left.idleTimeout == right.idleTimeout
            && left.totalTimeout == right.totalTimeout && left.freshConnection == right.freshConnection
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(headers)
    }
}

/// What an exchange cost on the wire: how many times the request went out, and the body's bytes as they
/// came (compressed, when the server compressed them).
public final class ExchangeMeter: Sendable {
    private let sends = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)

    public init() {}

    /// Times the request was sent.
    public var sendCount: Int { sends.load(ordering: .relaxed) }
    /// Body bytes received on the wire.
    public var wireBytes: Int { bytes.load(ordering: .relaxed) }

    /// The request went out `count` more times.
    public func sent(_ count: Int = 1) { sends.add(count, ordering: .relaxed) }

    public func received(wireBytes count: Int) { bytes.add(count, ordering: .relaxed) }
}

/// The status line and header fields of a response.
public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPHeader]

    public init(status: Int, headers: [HTTPHeader] = []) {
        self.status = status
        self.headers = headers
    }

    /// The first value of the field `name` (case-insensitive).
    public func value(of name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether the body comes with a coding a client undoes: any `Content-Encoding` but `identity`, or any
    /// `Transfer-Encoding` but `chunked` (every field and every comma-separated value; libcurl undoes
    /// each, even a `Transfer-Encoding: gzip` it was not asked for).
    var hasCoding: Bool {
        func codings(_ name: String) -> [String] {
            values(of: name).flatMap { $0.split(separator: ",") }.map { String($0).trimming(" \t").lowercased() }
                .filter { !$0.isEmpty }
        }
        return codings("Content-Encoding").contains { $0 != "identity" }
            || codings("Transfer-Encoding").contains { $0 != "chunked" && $0 != "identity" }
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(of name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether two field names are equal but for ASCII case, without making lowercased copies (a page's
    /// head is asked for a dozen fields).
    static func sameName(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { left in
            right.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in left.indices where left[index] != right[index] {
                    let lower = left[index] | 0x20
                    guard lower == right[index] | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else {
                        return false
                    }
                }
                return true
            }
        }
    }
}

/// Takes a response as it arrives. The transport calls it on the thread that called
/// ``HTTPTransport/perform(_:receiver:cancellation:)``, in order: the head once, then each chunk of the
/// body. Returning `false` stops the exchange: nothing more is delivered, and the transport ends the
/// transfer (closing the connection unless the response was already complete).
public protocol HTTPResponseReceiver: AnyObject {
    func receive(head: HTTPResponseHead) -> Bool
    func receive(body chunk: UnsafeRawBufferPointer) -> Bool
    /// Shown each chunk of the body before ``receive(body:)``: the request that will follow this one, if
    /// the chunk tells (a next cursor at the end of the body). A transport that can send it at once does,
    /// while this response is still being taken; a later ``HTTPTransport/perform(_:receiver:cancellation:)``
    /// of an equal request takes over that exchange. `nil` by default.
    func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest?
    /// Whether a chunk still to come may name the next request. While it does, a transport that sends
    /// early may hold each chunk back until it has shown the receiver the next one (or would otherwise
    /// wait on the network), so that the next request goes out before the bytes ahead of the one that
    /// names it are taken. `false` by default.
    var awaitsNextRequest: Bool { get }
}

extension HTTPResponseReceiver {
    public func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? { nil }
    public var awaitsNextRequest: Bool { false }
}

/// Why an exchange failed: all but ``Kind/cancelled`` and ``Kind/tls`` are worth a retry.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case connect
        case timeout
        /// The TLS handshake failed: a certificate that does not verify or names another host. Never
        /// worth a retry.
        case tls
        /// The connection broke: reset, closed early, or the body shorter than its Content-Length.
        case broken
        case cancelled
        case other
    }

    public var kind: Kind
    /// Short and safe to log: never holds a header value.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Set once to stop a request at the next chunk (or within a second while waiting for one).
public final class CancellationFlag: Sendable {
    private let state = Atomic<Bool>(false)

    public init() {}

    public var isCancelled: Bool { state.load(ordering: .relaxed) }

    public func cancel() { state.store(true, ordering: .relaxed) }
}

/// Performs HTTP exchanges, blocking the calling thread, with real backpressure: the body is read from
/// the socket only as fast as the receiver takes it.
public protocol HTTPTransport: Sendable {
    /// Performs `request`.
    /// - Returns: `true` when the response ended, `false` when the receiver stopped it.
    /// - Throws: ``TransportError`` when the exchange failed or `cancellation` was set.
    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
}
