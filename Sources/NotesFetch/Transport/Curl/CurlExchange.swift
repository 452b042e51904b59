#if canImport(CCurl)
    internal import CCurl
    import Dispatch

    /// What the callbacks see of one request.
    final class Exchange {
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
#endif
