#if canImport(CCurl)
    internal import CCurl
    import Dispatch
    import NotesSystem
    import Synchronization

    // Every libcurl call of the project lives in this file (CurlExchange.swift reads two of its constants).

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
    /// **Begun ahead.** `begin` gives such an exchange, once its head has come, to a receiver before its
    /// perform: the head, then the chunks libcurl has at once, as long as the receiver takes them
    /// (``HTTPResponseReceiver/takesAhead(count:)``). Only a perform with that receiver goes on from there;
    /// an equal request with another receiver has not seen the first bytes, and gets a response of its
    /// own.
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
        /// The handles, or why there are none: libcurl could not be loaded.
        private let session: Result<Session, TransportError>

        /// Loads libcurl first if no transport has yet (``loadLibrary()``).
        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
            session = LibCurl.loaded.map { Session($0.api) }
        }

        /// Loads libcurl, once a process, unless it is loaded already (the first transport made does it
        /// otherwise): nothing is loaded when the program starts, so a program that never makes a request
        /// never maps libcurl. The library is `libcurl.so.4`, looked up as the dynamic linker does, or the
        /// file the environment variable `NOTES_PAGE_LIBCURL` names; it must be libcurl 7.85 or later.
        /// - Throws: Why it could not be loaded (``TransportError/Kind/unusable``); every `perform` then
        ///   throws the same, and a walk ends at once with ``FetchError/Code/transportUnusable(_:)``.
        public static func loadLibrary() throws(TransportError) {
            _ = try LibCurl.loaded.get()
        }

        public func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
            throws(TransportError) -> Bool
        {
            let session = try session.get()
            return try lock.withLock { _ throws(TransportError) in
                try session.perform(
                    request, receiver: receiver, cancellation: cancellation, configuration: configuration)
            }
        }

        public func begin(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
            -> Bool
        {
            guard case .success(let session) = session else { return false }
            return lock.withLock { _ in session.begin(request, receiver: receiver, cancellation: cancellation) }
        }

        /// Requests sent early that a later `perform` took over, and those dropped unused.
        package var earlyRequests: (taken: Int, dropped: Int) {
            guard case .success(let session) = session else { return (0, 0) }
            return lock.withLock { _ in (session.earlyTaken, session.earlyDropped) }
        }
    }

    /// libcurl's functions (Sources/CCurl/shim.h), loaded once a process: by the first request, not at start.
    private struct LibCurl: @unchecked Sendable {  // written while loading, read-only after
        let api: UnsafePointer<notes_curl>

        static let loaded: Result<LibCurl, TransportError> = load()

        private static func load() -> Result<LibCurl, TransportError> {
            let path = System.libraryPath("libcurl.so.4", overriddenBy: "NOTES_PAGE_LIBCURL")
            let library: UnsafeMutableRawPointer
            switch System.openLibrary(path) {
            case .success(let opened): library = opened
            case .failure(let error):
                return .failure(TransportError(.unusable, "libcurl could not be loaded: \(error)"))
            }
            var table = notes_curl()
            if let missing = notes_curl_find(&table, library) {
                return .failure(
                    TransportError(.unusable, "\(path) is not libcurl: it has no \(String(cString: missing))"))
            }
            // CURLOPT_PROTOCOLS_STR came in 7.85.
            guard notes_curl_version_number(&table) >= 0x07_55_00 else {
                let version = String(cString: notes_curl_version(&table))
                return .failure(
                    TransportError(.unusable, "\(path) is libcurl \(version): notes-page needs 7.85 or later"))
            }
            let code = notes_curl_global_init(&table)
            guard code == CURLE_OK else {
                let reason = String(cString: notes_curl_easy_strerror(&table, code))
                return .failure(TransportError(.unusable, "libcurl could not be set up: \(reason)"))
            }
            let api = UnsafeMutablePointer<notes_curl>.allocate(capacity: 1)  // for the process's lifetime
            api.initialize(to: table)
            return .success(LibCurl(api: api))
        }
    }

    /// The multi handle, its two easy handles, and the exchange sent early, if any.
    private final class Session {
        private let curl: UnsafePointer<notes_curl>
        private let multi: UnsafeMutableRawPointer
        private let handles: [EasyHandle]
        private var early: (request: HTTPRequest, handle: EasyHandle, exchange: Exchange)?
        /// The receiver of an exchange begun ahead and dropped before its perform: that perform throws. Weak:
        /// a receiver nobody holds any more has no perform to come.
        private weak var droppedAhead: (any HTTPResponseReceiver)?
        private(set) var earlyTaken = 0
        private(set) var earlyDropped = 0

        init(_ curl: UnsafePointer<notes_curl>) {
            guard let multi = notes_curl_multi_init(curl) else { fatalError("curl_multi_init failed") }
            self.curl = curl
            self.multi = multi
            handles = [EasyHandle(curl), EasyHandle(curl)]
            notes_curl_multi_no_sharing(curl, multi)
        }

        deinit {
            if let early { notes_curl_multi_remove_handle(curl, multi, early.handle.handle) }
            notes_curl_multi_cleanup(curl, multi)
        }

        func perform(
            _ request: HTTPRequest, receiver: any HTTPResponseReceiver, cancellation: CancellationFlag,
            configuration: CurlTransport.Configuration
        ) throws(TransportError) -> Bool {
            if let dropped = droppedAhead, dropped === receiver {
                droppedAhead = nil
                throw TransportError(.dropped, "the response begun ahead was dropped by another request")
            }
            let handle: EasyHandle
            let exchange: Exchange
            let begun = early?.exchange.isBegun(for: receiver) ?? false
            // An exchange begun ahead goes on only with the receiver it was begun for: another has not seen its
            // first bytes.
            if let early, early.request == request, early.exchange.state != .refused, begun || !early.exchange.isAhead {
                self.early = nil
                earlyTaken += 1
                handle = early.handle
                exchange = early.exchange
                if exchange.take(receiver: receiver, cancellation: cancellation, meter: request.meter) {
                    // The held chunk comes again, now taken; refused, it ends the transfer here.
                    let code = notes_curl_easy_pause(curl, handle.handle, CURLPAUSE_CONT)
                    if code != CURLE_OK { handle.ended = code }
                }
                // The chunks taken ahead were shown to the receiver before it could make a next request of
                // them: it is asked again now, with no bytes.
                if begun, case .receiving(peeking: true) = exchange.state,
                    let next = receiver.nextRequest(peekingAt: UnsafeRawBufferPointer(start: nil, count: 0))
                {
                    exchange.state = .receiving(peeking: false)
                    sendEarly(next, besides: handle, configuration: configuration)
                }
            } else {
                dropEarly()
                handle = handles[0]
                exchange = Exchange(receiver: receiver, cancellation: cancellation, request: request)
                handle.configure(request, exchange, configuration: configuration)
                notes_curl_multi_add_handle(curl, multi, handle.handle)
            }
            let code =
                exchange.state == .stopped ? CURLE_WRITE_ERROR : run(handle, exchange, configuration: configuration)
            notes_curl_multi_remove_handle(curl, multi, handle.handle)
            handle.ended = nil
            return try handle.outcome(code, exchange)
        }

        /// Drives every transfer until `handle`'s ends; sends a next request as soon as a chunk names it.
        private func run(_ handle: EasyHandle, _ exchange: Exchange, configuration: CurlTransport.Configuration)
            -> CURLcode
        {
            while true {
                if let code = handle.ended { return code }
                pass()
                if case .heldForNextRequest(let next) = exchange.state {
                    // The chunk that named it was held back: send the request, then take the chunk.
                    exchange.state = .receiving(peeking: false)
                    sendEarly(next, besides: handle, configuration: configuration)
                    // libcurl gives the chunk again from within; refused (a stop, a cancellation), the
                    // transfer must end here: libcurl 7.88 reports it but would go on.
                    let code = notes_curl_easy_pause(curl, handle.handle, CURLPAUSE_CONT)
                    if code != CURLE_OK { return code }
                    continue
                }
                // libcurl has nothing more at once: the chunks held back are taken now, not after the
                // network's next bytes.
                if !exchange.deliverHeld() { return CURLE_WRITE_ERROR }
                if handle.ended == nil {
                    exchange.receiver?.awaitNetwork()
                    notes_curl_multi_poll(curl, multi, 250)
                }
            }
        }

        /// Begins the exchange sent early for `request`, if its head has come and its first chunk is held:
        /// the receiver takes the head, then chunks as long as it takes them ahead and libcurl has them at
        /// once (a few passes, never a wait on the network). It stays the exchange sent early, now with its
        /// receiver, for the perform of an equal request.
        func begin(_ request: HTTPRequest, receiver: any HTTPResponseReceiver, cancellation: CancellationFlag) -> Bool {
            guard let early, early.request == request, !early.exchange.isAhead else { return false }
            let (handle, exchange) = (early.handle, early.exchange)
            // What came since the last transfer ended: the head, and the first chunk held.
            if handle.ended == nil, exchange.state == .receiving(peeking: true) { pass() }
            guard exchange.state == .heldUntilTaken else { return false }
            guard exchange.begin(receiver: receiver, cancellation: cancellation) else { return true }
            let code = notes_curl_easy_pause(curl, handle.handle, CURLPAUSE_CONT)
            if code != CURLE_OK {
                // Refused (a cancellation): libcurl 7.88 reports it but would go on; the transfer ends here.
                handle.ended = code
                return true
            }
            for _ in 0..<Self.maxPassesAhead {
                guard handle.ended == nil, case .receiving = exchange.state else { break }
                let taken = exchange.bodyBytes
                pass()
                if exchange.bodyBytes == taken { break }  // nothing more at once
            }
            return true
        }

        /// One pass of libcurl over every transfer, with what the sockets have and without waiting; notes
        /// which transfers ended (possibly another than the one driven).
        private func pass() {
            var running: Int32 = 0
            notes_curl_multi_perform(curl, multi, &running)
            var queued: Int32 = 0
            while let message = notes_curl_multi_info_read(curl, multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let done = handles.first(where: { $0.handle == easy })
                else { continue }
                done.ended = message.pointee.data.result
            }
        }

        /// How many times `begin` asks libcurl for more of the body: each pass reads what the socket has.
        static let maxPassesAhead = 8

        private func sendEarly(
            _ request: HTTPRequest, besides current: EasyHandle, configuration: CurlTransport.Configuration
        ) {
            dropEarly()
            guard let handle = handles.first(where: { $0 !== current }) else { return }
            let exchange = Exchange(receiver: nil, cancellation: CancellationFlag(), request: request)
            handle.configure(request, exchange, configuration: configuration)
            handle.ended = nil
            notes_curl_multi_add_handle(curl, multi, handle.handle)
            early = (request, handle, exchange)
            var running: Int32 = 0
            notes_curl_multi_perform(curl, multi, &running)  // out now, on a kept-alive connection if there is one
        }

        /// Ends the exchange sent early, if any: nobody asked for it.
        private func dropEarly() {
            guard let early else { return }
            self.early = nil
            earlyDropped += 1
            if early.exchange.isAhead { droppedAhead = early.exchange.receiver }
            notes_curl_multi_remove_handle(curl, multi, early.handle.handle)
            early.handle.ended = nil
        }
    }

    /// The one owner of a `CURL *` easy handle: created in `init`, cleaned up exactly once in `deinit`.
    private final class EasyHandle {
        private let curl: UnsafePointer<notes_curl>
        let handle: UnsafeMutableRawPointer
        /// How its transfer ended, once libcurl says (possibly while another transfer was being driven).
        var ended: CURLcode?
        private let errorBuffer: UnsafeMutablePointer<CChar>

        init(_ curl: UnsafePointer<notes_curl>) {
            guard let handle = notes_curl_easy_init(curl) else { fatalError("curl_easy_init failed") }
            self.curl = curl
            self.handle = handle
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            notes_curl_easy_cleanup(curl, handle)
            notes_curl_slist_free_all(curl, headerList)
            errorBuffer.deallocate()
        }

        /// The request's header list, kept until the next request on this handle (libcurl reads it while the
        /// request goes out, which may be after `configure` returns).
        private var headerList: UnsafeMutablePointer<curl_slist>?

        /// Sets the handle up for `request`, its callbacks pointed at `exchange`.
        func configure(_ request: HTTPRequest, _ exchange: Exchange, configuration: CurlTransport.Configuration) {
            notes_curl_slist_free_all(curl, headerList)
            headerList = nil
            for header in request.headers {
                headerList = notes_curl_slist_append(curl, headerList, "\(header.name): \(header.value)")
            }
            if let accept = request.accept {
                headerList = notes_curl_slist_append(curl, headerList, "Accept: \(accept)")
            }
            // No `Expect: 100-continue` before a large body: one round trip more, and servers that ignore it.
            if request.body != nil { headerList = notes_curl_slist_append(curl, headerList, "Expect:") }

            let context = Unmanaged.passUnretained(exchange).toOpaque()
            let timeout = max(1, Int(request.timeouts.idle.rounded(.up)))
            errorBuffer[0] = 0
            notes_curl_set_string(curl, handle, CURLOPT_URL, request.url)
            notes_curl_set_string(curl, handle, CURLOPT_PROTOCOLS_STR, "http,https")
            notes_curl_set_list(curl, handle, CURLOPT_HTTPHEADER, headerList)
            notes_curl_set_long(curl, handle, CURLOPT_HTTPGET, 1)
            if let body = request.body {
                // libcurl copies the body, so the request's array need not outlive this call.
                notes_curl_set_long(curl, handle, CURLOPT_POSTFIELDSIZE, body.count)
                if body.isEmpty {
                    notes_curl_set_string(curl, handle, CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    body.withUnsafeBytes { bytes in
                        _ = notes_curl_set_pointer(
                            curl, handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
                    }
                }
            }
            // Signed by libcurl as the request goes out (its headers, body and time); reset on a handle reused.
            if let signing = request.awsSigV4 {
                notes_curl_set_string(curl, handle, CURLOPT_AWS_SIGV4, "aws:amz:\(signing.region):\(signing.service)")
                notes_curl_set_string(curl, handle, CURLOPT_USERNAME, signing.accessKeyID.value)
                notes_curl_set_string(curl, handle, CURLOPT_PASSWORD, signing.secretAccessKey.value)
            } else {
                notes_curl_set_string(curl, handle, CURLOPT_AWS_SIGV4, nil)
                notes_curl_set_string(curl, handle, CURLOPT_USERNAME, nil)
                notes_curl_set_string(curl, handle, CURLOPT_PASSWORD, nil)
            }
            notes_curl_set_long(curl, handle, CURLOPT_FOLLOWLOCATION, 0)
            notes_curl_set_long(curl, handle, CURLOPT_NOSIGNAL, 1)
            notes_curl_set_long(curl, handle, CURLOPT_TCP_KEEPALIVE, 1)
            notes_curl_open_sockets_closed_on_exec(curl, handle)
            notes_curl_set_long(curl, handle, CURLOPT_BUFFERSIZE, 64 << 10)
            notes_curl_set_string(curl, handle, CURLOPT_ACCEPT_ENCODING, "")
            notes_curl_set_string(curl, handle, CURLOPT_USERAGENT, "notes-page/1")
            // Connecting and the TLS handshake; every later phase is timed by the progress callback, since
            // libcurl's low-speed limit took 8 s to give up on a 2 s setting.
            notes_curl_set_long(curl, handle, CURLOPT_CONNECTTIMEOUT, timeout)
            notes_curl_set_long(curl, handle, CURLOPT_FRESH_CONNECT, request.freshConnection ? 1 : 0)
            if let caFile = configuration.caFile { notes_curl_set_string(curl, handle, CURLOPT_CAINFO, caFile) }
            notes_curl_set_long(curl, handle, CURLOPT_SSL_VERIFYPEER, 1)
            notes_curl_set_long(curl, handle, CURLOPT_SSL_VERIFYHOST, 2)
            // Every request that goes out is counted, a re-send on a dead connection included.
            notes_curl_set_prereq_callback(curl, handle, exchange.meter == nil ? nil : prereqCallback, context)
            notes_curl_set_pointer(curl, handle, CURLOPT_ERRORBUFFER, errorBuffer)
            notes_curl_set_data_callback(curl, handle, CURLOPT_HEADERFUNCTION, headerCallback)
            notes_curl_set_pointer(curl, handle, CURLOPT_HEADERDATA, context)
            notes_curl_set_data_callback(curl, handle, CURLOPT_WRITEFUNCTION, writeCallback)
            notes_curl_set_pointer(curl, handle, CURLOPT_WRITEDATA, context)
            notes_curl_set_long(curl, handle, CURLOPT_NOPROGRESS, 0)
            notes_curl_set_progress_callback(curl, handle, progressCallback)
            notes_curl_set_pointer(curl, handle, CURLOPT_XFERINFODATA, context)
        }

        /// What the ended transfer means: `true` when whole, `false` when the receiver stopped it.
        func outcome(_ code: CURLcode, _ exchange: Exchange) throws(TransportError) -> Bool {
            var wireBytes: curl_off_t = 0
            if notes_curl_get_offset(curl, handle, CURLINFO_SIZE_DOWNLOAD_T, &wireBytes) == CURLE_OK {
                exchange.meter?.received(wireBytes: Int(wireBytes))
            }
            if exchange.state == .stopped { return false }  // whatever libcurl says once the receiver said stop
            if code == CURLE_OK {
                guard exchange.head != nil else { throw TransportError(.broken, "the response had no head") }
                return true
            }
            if exchange.cancellation.isCancelled { throw TransportError(.cancelled, "cancelled") }
            if case .timedOut(let reason) = exchange.state { throw TransportError(.timeout, reason) }
            let detail = String(cString: errorBuffer)
            let message = detail.isEmpty ? String(cString: notes_curl_easy_strerror(curl, code)) : detail
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
        if exchange.receiver == nil { return 0 }  // sent early: its clock starts when it is begun or taken over
        if exchange.cancellation.isCancelled { return 1 }
        if exchange.outOfTime() { return 1 }
        return 0
    }
#endif
