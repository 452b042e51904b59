import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

/// A transport that, like libcurl on a dead kept-alive connection, sends a request twice unless it is on a
/// fresh connection.
final class ResendingTransport: HTTPTransport {
    let inner: MemoryTransport
    private let log = Mutex((sent: 0, fresh: [Bool]()))

    init(_ inner: MemoryTransport) {
        self.inner = inner
    }

    var sent: Int { log.withLock { $0.sent } }
    var fresh: [Bool] { log.withLock { $0.fresh } }

    func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        let times = request.freshConnection ? 1 : 2
        log.withLock {
            $0.sent += times
            $0.fresh.append(request.freshConnection)
        }
        for _ in 1..<times { request.meter?.sent() }
        return try inner.perform(request, receiver: receiver, cancellation: cancellation)
    }
}
