public import NotesFetch
import NotesSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A transport that answers from memory, for tests: each request goes to a handler that scripts the
/// response, chunk by chunk. It records every request it saw.
public final class MemoryTransport: HTTPTransport {
    /// A scripted response.
    public enum Response: Sendable {
        /// A response with a head and a body delivered in the given chunks.
        case reply(HTTPResponseHead, chunks: [[UInt8]])
        /// No response at all: the exchange fails.
        case failure(TransportError)
        /// A head and some chunks, then the exchange fails (a connection cut mid-body).
        case cut(HTTPResponseHead, chunks: [[UInt8]], TransportError)

        /// A head, then the chunks with a pause before each (a slow server).
        case drip(HTTPResponseHead, chunks: [[UInt8]], pause: Double)

        /// A 200 JSON response with `body` in chunks of `chunkSize` bytes.
        public static func json(_ body: String, status: Int = 200, headers: [HTTPHeader] = [], chunkSize: Int = 7)
            -> Response
        {
            let bytes = Array(body.utf8)
            let chunks = stride(from: 0, to: bytes.count, by: max(1, chunkSize)).map {
                Array(bytes[$0..<min(bytes.count, $0 + max(1, chunkSize))])
            }
            let head = HTTPResponseHead(
                status: status,
                headers: [HTTPHeader("Content-Type", "application/json; charset=utf-8")] + headers
            )
            return .reply(head, chunks: chunks)
        }

        /// A response with only a status and headers.
        public static func status(_ status: Int, headers: [HTTPHeader] = [], body: String = "") -> Response {
            .reply(HTTPResponseHead(status: status, headers: headers), chunks: body.isEmpty ? [] : [Array(body.utf8)])
        }
    }

    private let handler: @Sendable (HTTPRequest, Int) -> Response
    private let log = Locked<[HTTPRequest]>([])

    /// - Parameter handler: Scripts the response to a request; also given the request's 0-based index.
    public init(_ handler: @escaping @Sendable (HTTPRequest, Int) -> Response) {
        self.handler = handler
    }

    /// Every request made so far, in order.
    public var requests: [HTTPRequest] { log.withLock { $0 } }

    public func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        let index = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        request.meter?.sent()
        let (head, chunks, failure): (HTTPResponseHead?, [[UInt8]], TransportError?)
        var pause = 0.0
        switch handler(request, index) {
        case .reply(let replyHead, let replyChunks): (head, chunks, failure) = (replyHead, replyChunks, nil)
        case .drip(let replyHead, let replyChunks, let seconds):
            (head, chunks, failure, pause) = (replyHead, replyChunks, nil, seconds)
        case .failure(let error): (head, chunks, failure) = (nil, [], error)
        case .cut(let replyHead, let replyChunks, let error): (head, chunks, failure) = (replyHead, replyChunks, error)
        }
        if let head {
            if !receiver.receive(head: head) { return false }
            for chunk in chunks {
                if pause > 0 { usleep(UInt32(pause * 1e6)) }
                if cancellation.isCancelled { throw TransportError(.cancelled, "cancelled") }
                request.meter?.received(wireBytes: chunk.count)
                let delivered = chunk.withUnsafeBytes { receiver.receive(body: $0) }
                if !delivered { return false }
                receiver.awaitNetwork()
            }
        }
        if let failure { throw failure }
        return true
    }
}
