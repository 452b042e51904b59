import Synchronization

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
    /// Whether a chunk still to come may name the next request, and taking a chunk would hold up the
    /// next. While it does, a transport that sends early may hold each chunk back until it has shown the
    /// receiver the next one (or would otherwise wait on the network), so that the next request goes out
    /// before the bytes ahead of the one that names it are taken. `false` by default.
    var awaitsNextRequest: Bool { get }
    /// Told when the transport has handed over every byte it has and is about to wait on the network: work
    /// the receiver put off so as not to hold up the bytes (waiting for its decoder to catch up) costs
    /// nothing now. A transport that cannot tell calls it after each chunk. Nothing by default.
    func awaitNetwork()
    /// Asked before each chunk while a transport gives the receiver a response ahead of its perform
    /// (``HTTPTransport/begin(_:receiver:cancellation:)``): whether it takes `count` more bytes now. `false`
    /// holds that chunk, and the rest, until the perform. `false` by default.
    func takesAhead(count: Int) -> Bool
}

extension HTTPResponseReceiver {
    public func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? { nil }
    public var awaitsNextRequest: Bool { false }
    public func awaitNetwork() {}
    public func takesAhead(count: Int) -> Bool { false }
}

/// Performs HTTP exchanges, blocking the calling thread, with real backpressure: the body is read from
/// the socket only as fast as the receiver takes it.
public protocol HTTPTransport: Sendable {
    /// Performs `request`.
    /// - Returns: `true` when the response ended, `false` when the receiver stopped it.
    /// - Throws: ``TransportError`` when the exchange failed or `cancellation` was set.
    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    /// Begins the exchange of `request` ahead of its perform, where the transport sent it early and its
    /// head has come: gives `receiver` the head, then as much of the body as the transport has at once and
    /// the receiver takes ahead (``HTTPResponseReceiver/takesAhead(count:)``), never waiting on the network.
    /// A later perform of an equal request with the same receiver goes on from there; another perform on
    /// the transport meanwhile drops it, and that later perform then throws ``TransportError/Kind/dropped``.
    /// - Returns: Whether it began; `false` (the default) gives the receiver nothing.
    func begin(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag) -> Bool
}

extension HTTPTransport {
    public func begin(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        -> Bool
    { false }
}
