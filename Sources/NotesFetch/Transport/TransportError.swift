import Synchronization

/// Why an exchange failed: all but ``Kind/cancelled``, ``Kind/tls`` and ``Kind/unusable`` are worth a retry.
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
        /// The transport cannot work in this process: libcurl could not be loaded
        /// (``CurlTransport/loadLibrary()``). Never worth a retry.
        case unusable
        /// The response begun ahead of its perform (``HTTPTransport/begin(_:receiver:cancellation:)``) was
        /// dropped meanwhile, by another request on the transport: perform it again with a new receiver.
        case dropped
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
