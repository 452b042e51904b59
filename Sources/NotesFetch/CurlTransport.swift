#if canImport(CCurl)
    internal import CCurl
    import Dispatch
    import Synchronization

    // Every curl_* call of the project lives in this file.

    /// The Linux transport: libcurl's easy interface, one handle reused so keep-alive connections carry
    /// over from page to page.
    ///
    /// `curl_easy_perform` runs on the calling thread, and its callbacks hand the head and each chunk of the
    /// body straight to the receiver: a chunk is decoded before the next is read from the socket, so the
    /// backpressure is the receiver itself (while it works, the kernel's buffer fills, then TCP pushes back
    /// on the server) and no body is held beyond libcurl's 64 KiB buffer. (An earlier design read ahead on a
    /// thread of its own through eight 64 KiB slots; measured, it gained nothing on 1,000-note pages and cost
    /// a fifth of the time on 100-note pages in thread hand-offs.) When the receiver stops or the request is
    /// cancelled, the callback returns 0 and the transfer ends; a progress callback checks the cancellation
    /// flag and the timeouts at least once a second while no data arrives. Redirects are not followed here:
    /// the fetcher decides, so it can drop credentials.
    ///
    /// Requests on one transport run one at a time (a lock guards the handle, which is why the class can be
    /// `@unchecked Sendable`); use one transport per concurrent walk.
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
        private let easy: EasyHandle

        public init(configuration: Configuration = Configuration()) {
            _ = Self.globalInit
            self.configuration = configuration
            easy = EasyHandle()
        }

        private static let globalInit: Void = {
            curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        }()

        public func perform(_ request: HTTPRequest, receiver: some HTTPResponseReceiver, cancellation: CancellationFlag)
            throws(TransportError) -> Bool
        {
            try lock.withLock { _ throws(TransportError) in
                let exchange = Exchange(receiver: receiver, cancellation: cancellation, request: request)
                return try easy.perform(request, exchange, configuration: configuration)
            }
        }
    }

    /// What the callbacks see of one request.
    private final class Exchange {
        let receiver: any HTTPResponseReceiver
        let cancellation: CancellationFlag
        var status = 0
        var headers: [HTTPHeader] = []
        var headerBytes = 0
        var headDelivered = false
        /// The receiver returned `false`.
        var stopped = false
        /// Counts every time the request goes out, libcurl's own re-send on a dead kept-alive connection
        /// included.
        let meter: ExchangeMeter?
        /// Monotonic nanoseconds: when the exchange started, and when a byte last arrived (or the receiver
        /// last took one: a slow receiver is not an idle server).
        let started = DispatchTime.now().uptimeNanoseconds
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        let idleLimit: UInt64
        let totalLimit: UInt64
        let idleTimeout: Double
        let totalTimeout: Double
        /// Why the progress callback ended the exchange on time.
        var timedOut: String?

        init(receiver: any HTTPResponseReceiver, cancellation: CancellationFlag, request: HTTPRequest) {
            self.receiver = receiver
            self.cancellation = cancellation
            meter = request.meter
            idleTimeout = request.idleTimeout
            totalTimeout = request.totalTimeout
            idleLimit = UInt64(max(0.001, request.idleTimeout) * 1e9)
            totalLimit = UInt64(max(0.001, request.totalTimeout) * 1e9)
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
                if !receiver.receive(head: HTTPResponseHead(status: status, headers: headers)) {
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

        func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
            if cancellation.isCancelled { return false }
            defer { active() }
            if !receiver.receive(body: chunk) {
                stopped = true
                return false
            }
            return true
        }
    }

    /// The one owner of a `CURL *` easy handle: created in `init`, cleaned up exactly once in `deinit`.
    private struct EasyHandle: ~Copyable {
        private let handle: UnsafeMutableRawPointer
        private let errorBuffer: UnsafeMutablePointer<CChar>

        init() {
            guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed") }
            self.handle = handle
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }

        func perform(_ request: HTTPRequest, _ exchange: Exchange, configuration: CurlTransport.Configuration)
            throws(TransportError) -> Bool
        {
            var headerList: UnsafeMutablePointer<curl_slist>?
            for header in request.headers {
                headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
            }
            headerList = curl_slist_append(headerList, "Accept: application/json")
            defer { curl_slist_free_all(headerList) }

            let context = Unmanaged.passUnretained(exchange).toOpaque()
            let timeout = max(1, Int(request.idleTimeout.rounded(.up)))
            errorBuffer[0] = 0
            notes_curl_set_string(handle, CURLOPT_URL, request.url)
            notes_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            notes_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)
            notes_curl_set_long(handle, CURLOPT_HTTPGET, 1)
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
            notes_curl_set_prereq_callback(handle, request.meter == nil ? nil : prereqCallback, context)
            notes_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
            notes_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
            notes_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
            notes_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback)
            notes_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
            notes_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
            notes_curl_set_progress_callback(handle, progressCallback)
            notes_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)

            let code = curl_easy_perform(handle)
            var wireBytes: curl_off_t = 0
            if notes_curl_get_offset(handle, CURLINFO_SIZE_DOWNLOAD_T, &wireBytes) == CURLE_OK {
                exchange.meter?.received(wireBytes: Int(wireBytes))
            }
            if code == CURLE_OK {
                guard exchange.headDelivered else { throw TransportError(.broken, "the response had no head") }
                return true
            }
            if exchange.stopped { return false }
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
        let length = size * count
        let chunk = UnsafeRawBufferPointer(start: data, count: length)
        return exchange(context).body(chunk) ? length : 0
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
        if exchange.cancellation.isCancelled { return 1 }
        if exchange.outOfTime() { return 1 }
        return 0
    }
#endif
