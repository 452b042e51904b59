#if canImport(CCurl)
    internal import CCurl
    import Dispatch
    import Synchronization

    // Every curl_* call of the project lives in this file.

    /// The Linux transport: libcurl's multi interface driven on the calling thread, with two easy handles
    /// whose keep-alive connections carry over from page to page.
    ///
    /// `perform` runs the transfer on the calling thread, and libcurl's callbacks hand the head and each
    /// chunk of the body straight to the receiver: a chunk is decoded before the next is read from the
    /// socket, so the backpressure is the receiver itself (while it works, the kernel's buffer fills, then
    /// TCP pushes back on the server) and no body is held beyond libcurl's 64 KiB buffer. (An earlier design
    /// read ahead on a thread of its own through eight 64 KiB slots; measured, it gained nothing on
    /// 1,000-note pages and cost a fifth of the time on 100-note pages in thread hand-offs.) When the
    /// receiver stops or the request is cancelled, the callback returns 0 and the transfer ends; a progress
    /// callback checks the cancellation flag and the timeouts at least once a second while no data arrives.
    /// Redirects are not followed here: the fetcher decides, so it can drop credentials.
    ///
    /// **The next request, early.** A receiver that reads the next request off a chunk
    /// (``HTTPResponseReceiver/nextRequest(peekingAt:)``) has it sent on the second handle before that chunk
    /// is decoded: the server prepares the next page while this one decodes. That exchange then waits, its
    /// head kept and its body paused at the first chunk (one chunk in libcurl's buffer; the rest stays in
    /// the socket), until a `perform` of an equal request takes it over, or any other `perform` drops it
    /// (its connection closed). A response with a `Content-Encoding` is refused while it waits (a paused
    /// inflate could grow past any cap): that request is made again when its turn comes.
    ///
    /// Requests on one transport run one at a time (a lock guards the handles, which is why the class can
    /// be `@unchecked Sendable`); use one transport per concurrent walk.
    public final class CurlTransport: HTTPTransport, @unchecked Sendable {
        /// What the transport is set up with, beyond each request's own timeouts.
        public struct Configuration: Sendable, Hashable {
            /// A PEM file of certificate authorities to trust instead of the system's (a private server's CA).
            public var caFile: String?

            public init(caFile: String? = nil) {
                self.caFile = caFile
            }
        }

        public let configuration: Configuration
        private let lock = Mutex(())
        private let session: Session

        public init(configuration: Configuration = Configuration()) {
            _ = Self.globalInit
            self.configuration = configuration
            session = Session()
        }

        private static let globalInit: Void = {
            curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        }()

        public func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
            throws(TransportError) -> Bool
        {
            try lock.withLock { _ throws(TransportError) in
                try session.perform(
                    request, receiver: receiver, cancellation: cancellation, configuration: configuration)
            }
        }

        /// Requests sent early that a later `perform` took over, and those dropped unused.
        package var earlyRequests: (taken: Int, dropped: Int) {
            lock.withLock { _ in (session.earlyTaken, session.earlyDropped) }
        }
    }

    /// The multi handle, its two easy handles, and the exchange sent early, if any.
    private final class Session {
        private let multi: UnsafeMutableRawPointer
        private let handles = [EasyHandle(), EasyHandle()]
        private var early: (request: HTTPRequest, handle: EasyHandle, exchange: Exchange)?
        private(set) var earlyTaken = 0
        private(set) var earlyDropped = 0

        init() {
            guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
            self.multi = multi
            notes_curl_multi_no_sharing(multi)
        }

        deinit {
            if let early { curl_multi_remove_handle(multi, early.handle.handle) }
            curl_multi_cleanup(multi)
        }

        func perform(
            _ request: HTTPRequest, receiver: any HTTPResponseReceiver, cancellation: CancellationFlag,
            configuration: CurlTransport.Configuration
        ) throws(TransportError) -> Bool {
            let handle: EasyHandle
            let exchange: Exchange
            if let early, early.request == request, !early.exchange.refused {
                self.early = nil
                earlyTaken += 1
                handle = early.handle
                exchange = early.exchange
                exchange.take(receiver: receiver, cancellation: cancellation, meter: request.meter)
                if exchange.headDelivered, !receiver.receive(head: exchange.head) {
                    exchange.stopped = true
                } else if exchange.paused {
                    exchange.paused = false
                    // The held chunk comes again, now taken; refused, it ends the transfer here.
                    let code = curl_easy_pause(handle.handle, CURLPAUSE_CONT)
                    if code != CURLE_OK { handle.ended = code }
                }
            } else {
                dropEarly()
                handle = handles[0]
                exchange = Exchange(receiver: receiver, cancellation: cancellation, request: request)
                handle.configure(request, exchange, configuration: configuration)
                curl_multi_add_handle(multi, handle.handle)
            }
            let code = exchange.stopped ? CURLE_WRITE_ERROR : run(handle, exchange, configuration: configuration)
            curl_multi_remove_handle(multi, handle.handle)
            handle.ended = nil
            return try handle.outcome(code, exchange)
        }

        /// Drives every transfer until `handle`'s ends; sends a next request as soon as a chunk names it.
        private func run(_ handle: EasyHandle, _ exchange: Exchange, configuration: CurlTransport.Configuration)
            -> CURLcode
        {
            while true {
                if let code = handle.ended { return code }
                var running: Int32 = 0
                curl_multi_perform(multi, &running)
                var queued: Int32 = 0
                while let message = curl_multi_info_read(multi, &queued) {
                    guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                        let done = handles.first(where: { $0.handle == easy })
                    else { continue }
                    done.ended = message.pointee.data.result
                }
                if let next = exchange.nextRequest {
                    // The chunk that named it was held back: send the request, then take the chunk.
                    exchange.nextRequest = nil
                    sendEarly(next, besides: handle, configuration: configuration)
                    // libcurl gives the chunk again from within; refused (a stop, a cancellation), the
                    // transfer must end here: libcurl 7.88 reports it but would go on.
                    let code = curl_easy_pause(handle.handle, CURLPAUSE_CONT)
                    if code != CURLE_OK { return code }
                    continue
                }
                // libcurl has nothing more at once: the chunks held back are taken now, not after the
                // network's next bytes.
                if !exchange.deliverHeld() { return CURLE_WRITE_ERROR }
                if handle.ended == nil {
                    curl_multi_poll(multi, nil, 0, 250, nil)
                }
            }
        }

        private func sendEarly(
            _ request: HTTPRequest, besides current: EasyHandle, configuration: CurlTransport.Configuration
        ) {
            dropEarly()
            guard let handle = handles.first(where: { $0 !== current }) else { return }
            let exchange = Exchange(receiver: nil, cancellation: CancellationFlag(), request: request)
            handle.configure(request, exchange, configuration: configuration)
            handle.ended = nil
            curl_multi_add_handle(multi, handle.handle)
            early = (request, handle, exchange)
            var running: Int32 = 0
            curl_multi_perform(multi, &running)  // out now, on a kept-alive connection if there is one
        }

        /// Ends the exchange sent early, if any: nobody asked for it.
        private func dropEarly() {
            guard let early else { return }
            self.early = nil
            earlyDropped += 1
            curl_multi_remove_handle(multi, early.handle.handle)
            early.handle.ended = nil
        }
    }

    /// What the callbacks see of one request.
    private final class Exchange {
        /// `nil` while the exchange was sent early and nobody has taken it over yet.
        private(set) var receiver: (any HTTPResponseReceiver)?
        private(set) var cancellation: CancellationFlag
        var status = 0
        var headers: [HTTPHeader] = []
        var headerBytes = 0
        /// The head has come whole (and gone to the receiver, if there was one).
        var headDelivered = false
        private(set) var head = HTTPResponseHead(status: 0)
        /// The receiver returned `false`.
        var stopped = false
        /// Counts every time the request goes out, libcurl's own re-send on a dead kept-alive connection
        /// included.
        private(set) var meter: ExchangeMeter?
        /// Whether each chunk is shown to the receiver for the next request, before it is taken.
        private var peeks = true
        /// The next request a chunk named; that chunk was held back (paused) until it is sent.
        var nextRequest: HTTPRequest?
        /// Chunks taken from libcurl but not yet given to the receiver. While the receiver awaits the next
        /// request, the chunks wait here until a later one has been peeked at, or until libcurl has no more
        /// bytes at once: libcurl cuts what it reads into chunks of 16 KiB, and a next cursor at the end of a
        /// 17 KiB page would otherwise go out only after the first 16 KiB were decoded (of a 177 KiB page,
        /// after 161 KiB). At most ``maxHeldBytes``: past it, what is held is taken first.
        private var held: [UInt8] = []
        static let maxHeldBytes = 256 << 10
        /// Held bytes go on in libcurl's own pieces.
        static let heldPieceBytes = Int(CURL_MAX_WRITE_SIZE)
        /// Sent early: its first chunk is held (paused) until the exchange is taken over.
        var paused = false
        /// Sent early, and refused while it waited (a content or transfer coding): not to be taken over.
        private(set) var refused = false
        /// Monotonic nanoseconds: when the exchange started, and when a byte last arrived (or the receiver
        /// last took one: a slow receiver is not an idle server).
        private(set) var started = DispatchTime.now().uptimeNanoseconds
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        let idleLimit: UInt64
        let totalLimit: UInt64
        let idleTimeout: Double
        let totalTimeout: Double
        /// Why the progress callback ended the exchange on time.
        var timedOut: String?

        /// - Parameter receiver: `nil` for a request sent early, which counts its sends on a meter of its own
        ///   until it is taken over.
        init(receiver: (any HTTPResponseReceiver)?, cancellation: CancellationFlag, request: HTTPRequest) {
            self.receiver = receiver
            self.cancellation = cancellation
            meter = receiver == nil ? ExchangeMeter() : request.meter
            idleTimeout = request.idleTimeout
            totalTimeout = request.totalTimeout
            idleLimit = UInt64(max(0.001, request.idleTimeout) * 1e9)
            totalLimit = UInt64(max(0.001, request.totalTimeout) * 1e9)
        }

        /// A `perform` takes over the exchange sent early: the sends counted so far are its request's, and both
        /// clocks start now (the exchange waited on the walk, not on the server).
        func take(receiver: any HTTPResponseReceiver, cancellation: CancellationFlag, meter: ExchangeMeter?) {
            if let meter, let own = self.meter { meter.sent(own.sendCount) }
            self.meter = meter
            self.receiver = receiver
            self.cancellation = cancellation
            started = DispatchTime.now().uptimeNanoseconds
            active()
        }

        /// `1.5`, or `2` for a whole number.
        static func text(_ seconds: Double) -> String {
            seconds.rounded() == seconds ? "\(Int(seconds))" : "\(seconds)"
        }

        func active() {
            lastActivity = DispatchTime.now().uptimeNanoseconds
        }

        /// Whether the exchange has run out of time: no byte for the idle timeout, or longer than the total.
        func outOfTime() -> Bool {
            let now = DispatchTime.now().uptimeNanoseconds
            if now &- lastActivity > idleLimit {
                timedOut = "no data for \(Self.text(idleTimeout)) s"
            } else if now &- started > totalLimit {
                timedOut = "the page took longer than \(Self.text(totalTimeout)) s"
            }
            return timedOut != nil
        }

        /// One header line, status line and the blank line that ends the head included.
        func header(_ line: UnsafeRawBufferPointer) -> Bool {
            active()
            headerBytes += line.count
            if headerBytes > FetchLimits.maxHeadBytes { return false }
            var end = line.count
            while end > 0 && (line[end - 1] == 0x0D || line[end - 1] == 0x0A) { end -= 1 }  // CR LF
            // Bytes, not characters: the separators are ASCII, and this runs for every line of every head.
            let text = UnsafeRawBufferPointer(rebasing: line[..<end])
            if text.starts(with: "HTTP/".utf8) {
                let words = text.split(separator: UInt8(ascii: " "))
                status = words.count > 1 ? Int(String(decoding: words[1], as: UTF8.self)) ?? 0 : 0
                headers = []
                return true
            }
            if text.isEmpty {
                if (100..<200).contains(status) { return true }  // an interim response: the real one follows
                headDelivered = true
                head = HTTPResponseHead(status: status, headers: headers)
                guard let receiver else {
                    refused = head.hasCoding  // libcurl would inflate into its pause buffer, past any cap
                    return !refused
                }
                if !receiver.receive(head: head) {
                    stopped = true
                    return false
                }
                return true
            }
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return true }
            var start = colon + 1
            while start < text.count && (text[start] == UInt8(ascii: " ") || text[start] == UInt8(ascii: "\t")) {
                start += 1
            }
            headers.append(
                HTTPHeader(
                    String(decoding: text[..<colon], as: UTF8.self), String(decoding: text[start...], as: UTF8.self)))
            return true
        }

        /// What the write callback returns: the chunk's length once taken, 0 to end the transfer, or
        /// `CURL_WRITEFUNC_PAUSE` to have libcurl hold the chunk and give it again when unpaused.
        func body(_ chunk: UnsafeRawBufferPointer) -> Int {
            guard let receiver else {
                paused = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            if stopped || cancellation.isCancelled { return 0 }
            if peeks, let next = receiver.nextRequest(peekingAt: chunk) {
                peeks = false
                nextRequest = next
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            defer { active() }
            if peeks, receiver.awaitsNextRequest, chunk.count <= Self.maxHeldBytes {
                if held.count + chunk.count > Self.maxHeldBytes, !deliverHeld() { return 0 }
                held.append(contentsOf: chunk)
                return chunk.count
            }
            guard deliverHeld() else { return 0 }
            if !receiver.receive(body: chunk) {
                stopped = true
                return 0
            }
            return chunk.count
        }

        /// Gives the receiver the chunks held back, if any, in pieces of at most libcurl's 16 KiB (as they
        /// came): a receiver that learns something from the first bytes, such as a next value written before
        /// the items, learns it as early as before. `false` when the exchange is to end (the receiver
        /// stopped, or the run was cancelled).
        func deliverHeld() -> Bool {
            guard !held.isEmpty, let receiver else { return true }
            defer { held.removeAll(keepingCapacity: true) }
            return held.withUnsafeBytes { bytes in
                var start = 0
                while start < bytes.count {
                    if cancellation.isCancelled { return false }
                    let end = min(bytes.count, start + Self.heldPieceBytes)
                    let taken = receiver.receive(body: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    active()  // from when the receiver is done: a slow receiver is not an idle server
                    if !taken {
                        stopped = true
                        return false
                    }
                    start = end
                }
                return true
            }
        }
    }

    /// The one owner of a `CURL *` easy handle: created in `init`, cleaned up exactly once in `deinit`.
    private final class EasyHandle {
        let handle: UnsafeMutableRawPointer
        /// How its transfer ended, once libcurl says (possibly while another transfer was being driven).
        var ended: CURLcode?
        private let errorBuffer: UnsafeMutablePointer<CChar>

        init() {
            guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed") }
            self.handle = handle
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            curl_easy_cleanup(handle)
            curl_slist_free_all(headerList)
            errorBuffer.deallocate()
        }

        /// The request's header list, kept until the next request on this handle (libcurl reads it while the
        /// request goes out, which may be after `configure` returns).
        private var headerList: UnsafeMutablePointer<curl_slist>?

        /// Sets the handle up for `request`, its callbacks pointed at `exchange`.
        func configure(_ request: HTTPRequest, _ exchange: Exchange, configuration: CurlTransport.Configuration) {
            curl_slist_free_all(headerList)
            headerList = nil
            for header in request.headers {
                headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
            }
            if let accept = request.accept { headerList = curl_slist_append(headerList, "Accept: \(accept)") }
            // No `Expect: 100-continue` before a large body: one round trip more, and servers that ignore it.
            if request.body != nil { headerList = curl_slist_append(headerList, "Expect:") }

            let context = Unmanaged.passUnretained(exchange).toOpaque()
            let timeout = max(1, Int(request.idleTimeout.rounded(.up)))
            errorBuffer[0] = 0
            notes_curl_set_string(handle, CURLOPT_URL, request.url)
            notes_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            notes_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)
            notes_curl_set_long(handle, CURLOPT_HTTPGET, 1)
            if let body = request.body {
                // libcurl copies the body, so the request's array need not outlive this call.
                notes_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                if body.isEmpty {
                    notes_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    body.withUnsafeBytes { bytes in
                        _ = notes_curl_set_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
                    }
                }
            }
            notes_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            notes_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            notes_curl_set_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
            notes_curl_open_sockets_closed_on_exec(handle)
            notes_curl_set_long(handle, CURLOPT_BUFFERSIZE, 64 << 10)
            notes_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
            notes_curl_set_string(handle, CURLOPT_USERAGENT, "notes-page/1")
            // Connecting and the TLS handshake; every later phase is timed by the progress callback, since
            // libcurl's low-speed limit took 8 s to give up on a 2 s setting.
            notes_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, timeout)
            notes_curl_set_long(handle, CURLOPT_FRESH_CONNECT, request.freshConnection ? 1 : 0)
            if let caFile = configuration.caFile { notes_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
            notes_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
            notes_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
            // Every request that goes out is counted, a re-send on a dead connection included.
            notes_curl_set_prereq_callback(handle, exchange.meter == nil ? nil : prereqCallback, context)
            notes_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
            notes_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
            notes_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
            notes_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback)
            notes_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
            notes_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
            notes_curl_set_progress_callback(handle, progressCallback)
            notes_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
        }

        /// What the ended transfer means: `true` when whole, `false` when the receiver stopped it.
        func outcome(_ code: CURLcode, _ exchange: Exchange) throws(TransportError) -> Bool {
            var wireBytes: curl_off_t = 0
            if notes_curl_get_offset(handle, CURLINFO_SIZE_DOWNLOAD_T, &wireBytes) == CURLE_OK {
                exchange.meter?.received(wireBytes: Int(wireBytes))
            }
            if exchange.stopped { return false }  // whatever libcurl says once the receiver said stop
            if code == CURLE_OK {
                guard exchange.headDelivered else { throw TransportError(.broken, "the response had no head") }
                return true
            }
            if exchange.cancellation.isCancelled { throw TransportError(.cancelled, "cancelled") }
            if let reason = exchange.timedOut { throw TransportError(.timeout, reason) }
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            switch code {
            case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
                throw TransportError(.connect, message)
            case CURLE_OPERATION_TIMEDOUT:
                throw TransportError(.timeout, message)
            case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
                CURLE_SSL_CONNECT_ERROR,
                CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
                throw TransportError(.tls, message)
            case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
                throw TransportError(.broken, message)
            case CURLE_WRITE_ERROR where exchange.headerBytes > FetchLimits.maxHeadBytes:
                throw TransportError(.other, "response headers longer than \(FetchLimits.maxHeadBytes) bytes")
            default:
                throw TransportError(.other, message)
            }
        }
    }

    private func exchange(_ context: UnsafeMutableRawPointer?) -> Exchange {
        Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
    }

    private let headerCallback: curl_write_callback = { data, size, count, context in
        let length = size * count
        let line = UnsafeRawBufferPointer(start: data, count: length)
        return exchange(context).header(line) ? length : 0
    }

    private let writeCallback: curl_write_callback = { data, size, count, context in
        exchange(context).body(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    /// `curl_prereq_callback`, spelled out: libcurl's headers before 7.80 do not name it.
    private typealias PrereqCallback =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32
        ) -> Int32

    private let prereqCallback: PrereqCallback = { context, _, _, _, _ in
        exchange(context).meter?.sent()
        return 0  // CURL_PREREQFUNC_OK
    }

    private let progressCallback: curl_xferinfo_callback = { context, _, _, _, _ in
        let exchange = exchange(context)
        if exchange.receiver == nil { return 0 }  // sent early: its clock starts when it is taken over
        if exchange.cancellation.isCancelled { return 1 }
        if exchange.outOfTime() { return 1 }
        return 0
    }
#endif
