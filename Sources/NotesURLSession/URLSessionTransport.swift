import Dispatch
import Foundation
public import NotesFetch
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Every URLSession call of the project lives in this file.

/// The transport where libcurl is not (iOS): `URLSession` with a data delegate, keeping the promises of
/// ``HTTPTransport`` as far as URLSession lets it. On Linux it runs on FoundationNetworking, which is what
/// `notes-page fetch --transport urlsession` and the tests exercise; nothing of it has been built or run on
/// an Apple platform.
///
/// What it keeps, as ``CurlTransport`` does:
/// - ``perform(_:receiver:cancellation:)`` blocks the calling thread and calls the receiver there, the head
///   once and then each chunk of the body in order. The delegate queue copies each chunk into a
///   ``ResponseHandOff`` of eight 64 KiB slots and waits while they are all taken; the receiver never
///   runs on the delegate queue.
/// - The receiver returning `false`, the ``CancellationFlag`` (checked at every chunk and at least four
///   times a second while waiting) and both timeouts of ``HTTPRequest`` cancel the task, which closes the
///   connection; nothing more reaches the receiver, and chunks that arrive after the stop are dropped,
///   not kept. The timeouts are timed here, on the calling thread: `idleTimeout` from the start, and
///   from each head or chunk taken, so connecting, the TLS handshake and waiting for the head share it
///   (as with libcurl); `totalTimeout` from the start. Their messages are CurlTransport's.
/// - Redirects are not followed: the 3xx response goes to the receiver like any other, and the fetcher
///   decides (and drops credentials when the redirect leaves the endpoint's origin).
/// - A response head over 64 KiB (status line and fields, as ``CurlTransport`` counts them) is refused.
/// - Errors have CurlTransport's kinds: ``TransportError/Kind/connect``, ``TransportError/Kind/timeout``,
///   ``TransportError/Kind/tls`` (a certificate that does not verify or names another host),
///   ``TransportError/Kind/broken`` (reset, closed early, or the body cut short), and
///   ``TransportError/Kind/cancelled``.
/// - Compressed responses: URLSession asks for and inflates gzip and deflate (FoundationNetworking: what
///   libcurl supports, br and zstd included) on its own; the receiver sees the inflated bytes.
///
/// What URLSession does not allow:
/// - **Backpressure.** FoundationNetworking reads the body ahead of a slow receiver without bound (it
///   queues every chunk for the delegate as libcurl reads it; suspending the task has no effect), so
///   memory is bounded by the receiver's stop, not by the hand-off: a receiver that stops at its page cap
///   ends the exchange there, and the chunks read ahead are dropped. Not even that bounds a compressed
///   body: libcurl reads and inflates in a loop inside one work item of URLSession's queue, which the
///   cancellation waits for, so a gzip bomb may be inflated into memory whole (1.18 GB for 1 GiB) before
///   the task ends. The caps bound what reaches the receiver, not what URLSession holds.
/// - **Counting re-sends.** ``ExchangeMeter/sendCount`` counts one send per request: URLSession (libcurl
///   inside FoundationNetworking) may send a request a second time on its own when a kept-alive
///   connection turns out dead, and says nothing of it.
/// - **Bytes on the wire.** ``ExchangeMeter/wireBytes`` gets the body's bytes as the receiver saw them,
///   unless the response had a `Content-Encoding`: then its `Content-Length` when the body arrived whole,
///   and 0 (unknown) otherwise, a chunked compressed body included. URLSession's own counts
///   (`countOfBytesReceived`, the task's progress) stay at 0 for data tasks in FoundationNetworking.
/// - **A fresh connection** (``HTTPRequest/freshConnection``) is a session of its own for that request,
///   whose connection pool is empty; it is closed with the session afterwards.
/// - **A private certificate authority.** FoundationNetworking has no way to trust one (libcurl verifies
///   against the system's; no server-trust challenge reaches the delegate), so this transport always uses
///   the system's authorities.
/// - **The head's fields** come from `HTTPURLResponse.allHeaderFields`: a field sent twice arrives once,
///   its values joined by commas, and the fields are in name order, not the server's. The head reaches
///   the receiver only when complete, so a head dripped a line at a time counts as silence.
/// - On Linux, a redirect's body is read whole before its head is handed over (FoundationNetworking keeps
///   it until it knows the redirect is not followed).
///
/// Requests on one transport run one at a time (a lock guards the hand-off, which is why the class can be
/// `@unchecked Sendable`); use one transport per concurrent walk.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let lock = Mutex(())
    private let delegate = SessionDelegate()
    /// Kept-alive connections live in its pool, from one request to the next.
    private let session: URLSession
    /// Between the delegate queue and the caller's thread; one per transport, as requests run one at a time.
    private let handOff = ResponseHandOff()

    /// How often the calling thread looks at the cancellation flag and the clock while no event comes.
    static let pollSeconds = 0.25
    /// CurlTransport's limit on a response head.
    static let maxHeaderBytes = 64 << 10

    public init() {
        session = Self.makeSession(delegate)
    }

    deinit {
        session.invalidateAndCancel()
    }

    private static func makeSession(_ delegate: SessionDelegate) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        let queue = OperationQueue()
        queue.name = "notes-page.urlsession-delegate"
        queue.maxConcurrentOperationCount = 1
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    public func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
        throws(TransportError) -> Bool
    {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw TransportError(.other, "not an http or https URL") }
        guard request.awsSigV4 == nil else {
            throw TransportError(.other, "AWS signatures need libcurl's transport: --transport curl")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        if let body = request.body { urlRequest.httpBody = Data(body) }
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if let accept = request.accept { urlRequest.setValue(accept, forHTTPHeaderField: "Accept") }
        urlRequest.setValue("notes-page/1", forHTTPHeaderField: "User-Agent")
        // URLSession's own timer is only a backstop: the timeouts are timed below, with CurlTransport's messages.
        urlRequest.timeoutInterval = max(request.timeouts.idle, request.timeouts.total) + 30

        return try lock.withLock { _ throws(TransportError) in
            // A fresh connection: a session of its own, whose pool is empty.
            let fresh = request.freshConnection ? Self.makeSession(delegate) : nil
            defer { fresh?.finishTasksAndInvalidate() }
            let task = (fresh ?? session).dataTask(with: urlRequest)
            handOff.reset()
            let exchange = Exchange(handOff: handOff)
            delegate.register(exchange, for: task)
            request.meter?.sent()
            task.resume()
            return try receive(
                task: task, exchange: exchange, request: request, receiver: receiver, cancellation: cancellation)
        }
    }

    /// The calling thread's side: takes the delegate's events in order until the end, handing the head and
    /// the body to the receiver, and ends the task on a stop, a cancellation or a timeout.
    private func receive(
        task: URLSessionDataTask, exchange: Exchange, request: HTTPRequest, receiver: some HTTPResponseReceiver,
        cancellation: CancellationFlag
    ) throws(TransportError) -> Bool {
        let started = DispatchTime.now().uptimeNanoseconds
        var lastActivity = started
        let idleLimit = UInt64(max(0.001, request.timeouts.idle) * 1e9)
        let totalLimit = UInt64(max(0.001, request.timeouts.total) * 1e9)
        var receiverStopped = false
        var cancelled = false
        var timedOut: String?
        var sawHead = false
        var deliveredBytes = 0
        var stopping: Bool { receiverStopped || cancelled || timedOut != nil }
        func stop() {
            handOff.stop()
            task.cancel()
        }
        /// Ends the exchange when the flag is set or time is up.
        func checkFlagAndClock() {
            guard !stopping else { return }
            if cancellation.isCancelled {
                cancelled = true
            } else {
                let now = DispatchTime.now().uptimeNanoseconds
                if now &- lastActivity > idleLimit {
                    timedOut = "no data for \(Self.text(request.timeouts.idle)) s"
                } else if now &- started > totalLimit {
                    timedOut = "the page took longer than \(Self.text(request.timeouts.total)) s"
                }
            }
            if stopping { stop() }
        }

        // Every event is taken and released up to `.end`, even after a stop: the delegate queue may be
        // waiting for a slot, and the hand-off must not be reused while it does.
        while true {
            let wait: Double
            if stopping {
                wait = Self.pollSeconds
            } else {
                let now = DispatchTime.now().uptimeNanoseconds
                let untilIdle = Double(idleLimit &- min(idleLimit, now &- lastActivity)) / 1e9
                let untilTotal = Double(totalLimit &- min(totalLimit, now &- started)) / 1e9
                wait = min(Self.pollSeconds, untilIdle, untilTotal) + 0.001
            }
            guard let event = handOff.next(waitingAtMost: wait) else {
                checkFlagAndClock()
                continue
            }
            defer { handOff.release() }
            // The flag and the clock are looked at before each event is handed on, as while waiting for one.
            checkFlagAndClock()
            let delivered: Bool
            switch event {
            case .end:
                // The delegate wrote the outcome before it queued the end.
                return try end()
            case _ where stopping:
                continue  // draining what the delegate queued before it saw the stop
            case .head(let head):
                sawHead = true
                delivered = receiver.receive(head: head)
            case .body(let chunk):
                deliveredBytes += chunk.count
                delivered = receiver.receive(body: chunk)
                if delivered { receiver.awaitNetwork() }
            }
            lastActivity = DispatchTime.now().uptimeNanoseconds
            if !delivered {
                receiverStopped = true
                stop()
            }
        }

        func end() throws(TransportError) -> Bool {
            // Inflated bytes are not the wire's: a compressed body whole is its Content-Length, which libcurl
            // checks; URLSession counts nothing of it (FoundationNetworking leaves its counts at 0).
            let whole = exchange.error == nil && exchange.failure == nil && !stopping
            request.meter?.received(wireBytes: exchange.wireLength.map { whole ? $0 : 0 } ?? deliveredBytes)
            if receiverStopped { return false }
            if cancelled { throw TransportError(.cancelled, "cancelled") }
            if let timedOut { throw TransportError(.timeout, timedOut) }
            if let failure = exchange.failure { throw failure }
            if let error = exchange.error { throw Self.transportError(error, afterHead: sawHead) }
            guard sawHead else { throw TransportError(.broken, "the response had no head") }
            return true
        }
    }

    /// `1.5`, or `2` for a whole number, as CurlTransport writes seconds.
    static func text(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? "\(Int(seconds))" : "\(seconds)"
    }

    /// The kind of a failed task, as CurlTransport would have said it.
    ///
    /// FoundationNetworking reports most libcurl failures as `NSURLErrorUnknown` with libcurl's message: a
    /// TLS failure is recognised by that message (libcurl's OpenSSL messages name SSL or the certificate),
    /// and any failure once the head has arrived is a broken body (libcurl's `CURLE_PARTIAL_FILE`,
    /// `CURLE_RECV_ERROR`). Apple platforms say it with their own codes.
    static func transportError(_ error: any Error, afterHead: Bool) -> TransportError {
        let message = String((error as NSError).localizedDescription.prefix(200))
        guard let code = (error as? URLError)?.code else { return TransportError(.other, message) }
        switch code {
        case .timedOut:
            return TransportError(.timeout, message)
        case .cancelled:
            return TransportError(.other, message)  // not by this transport: URLSession gave up on its own
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return TransportError(.tls, message)
        case _ where afterHead:
            return TransportError(.broken, message)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return TransportError(.connect, message)
        case .networkConnectionLost, .badServerResponse, .zeroByteResource, .cannotParseResponse:
            return TransportError(.broken, message)
        case _ where isTLSMessage(message):
            return TransportError(.tls, message)
        default:
            return TransportError(.other, message)
        }
    }

    /// Whether libcurl's message is about TLS: `SSL certificate problem: …`, `SSL: no alternative
    /// certificate subject name matches …`, `OpenSSL SSL_connect: …`.
    static func isTLSMessage(_ message: String) -> Bool {
        message.contains("SSL") || message.contains("TLS") || message.lowercased().contains("certificate")
    }
}

/// What the delegate queue knows of one task. Written on the delegate queue; read by the calling thread
/// after it takes ``ResponseHandOff/Event/end`` (the hand-off's semaphore orders the two).
private final class Exchange: @unchecked Sendable {
    let handOff: ResponseHandOff
    var headSent = false
    /// The response had a `Content-Encoding`, so URLSession inflated it: its `Content-Length` (0 without one)
    /// is the body's bytes on the wire, not the bytes the receiver saw.
    var wireLength: Int?
    /// Why the transport itself refused the response (a head over the limit).
    var failure: TransportError?
    /// How URLSession ended the task.
    var error: (any Error)?

    init(handOff: ResponseHandOff) {
        self.handOff = handOff
    }

    /// Hands the head over, unless it is over the limit; `false` when the task should end.
    func send(head response: HTTPURLResponse) -> Bool {
        guard !headSent else { return true }
        headSent = true
        var headers: [HTTPHeader] = []
        // "HTTP/1.1 200 OK\r\n" and the blank line, as CurlTransport counts them.
        var bytes = 17 + 2
        for (name, value) in response.allHeaderFields {
            let header = HTTPHeader("\(name)", "\(value)")
            bytes += header.name.utf8.count + header.value.utf8.count + 4
            headers.append(header)
        }
        guard bytes <= URLSessionTransport.maxHeaderBytes else {
            failure = TransportError(
                .other, "response headers longer than \(URLSessionTransport.maxHeaderBytes) bytes")
            return false
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        let head = HTTPResponseHead(status: response.statusCode, headers: headers)
        if let coding = head.value(of: "Content-Encoding"), !coding.isEmpty, coding.lowercased() != "identity" {
            wireLength = head.value(of: "Content-Length").flatMap { Int($0.trimming(" \t")) } ?? 0
        }
        return handOff.send(head: head)
    }
}

/// The session's delegate: runs on the session's serial delegate queue and only ever queues events for the
/// calling thread.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let exchanges = Mutex<[ObjectIdentifier: Exchange]>([:])

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[ObjectIdentifier(task)] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(dataTask), let response = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        // FoundationNetworking ignores the disposition; a stop is a cancel either way.
        completionHandler(.allow)
        if !exchange.send(head: response) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Nothing before the head, nothing after a refused head or a stop: such bytes are dropped, not kept.
        guard let exchange = exchange(dataTask), exchange.headSent, exchange.failure == nil,
            !exchange.handOff.isStopped
        else { return }
        for region in data.regions {
            let accepted = region.withUnsafeBytes { exchange.handOff.send(body: $0) }
            if !accepted {
                dataTask.cancel()
                return
            }
        }
    }

    /// Redirects are the fetcher's to follow: the 3xx response is the answer.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        // FoundationNetworking completes a 3xx without a usable Location without ever handing its head over.
        if error == nil, !exchange.headSent, let response = task.response as? HTTPURLResponse {
            _ = exchange.send(head: response)
        }
        exchange.error = error
        exchange.handOff.finish()
    }
}
