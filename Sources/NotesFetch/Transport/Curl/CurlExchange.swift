#if canImport(CCurl)
    internal import CCurl
    import Dispatch

    /// What the callbacks see of one request.
    final class Exchange {
        /// `nil` while the exchange was sent early and nobody has begun or taken it over yet.
        private(set) var receiver: (any HTTPResponseReceiver)?
        private(set) var cancellation: CancellationFlag
        /// The head as it arrives: the status line's code, the fields so far, and their bytes.
        var status = 0
        var headers: [HTTPHeader] = []
        var headerBytes = 0
        /// The head once it came whole (and went to the receiver, if there was one).
        private(set) var head: HTTPResponseHead?
        /// Counts every time the request goes out, libcurl's own re-send on a dead kept-alive connection
        /// included.
        private(set) var meter: ExchangeMeter?
        /// Where the exchange stands.
        var state = State.receiving(peeking: true)
        /// Chunks taken from libcurl but not yet given to the receiver. While the receiver awaits the next
        /// request, the chunks wait here until a later one has been peeked at, or until libcurl has no more
        /// bytes at once: libcurl cuts what it reads into chunks of 16 KiB, and a next cursor at the end of a
        /// 17 KiB page would otherwise go out only after the first 16 KiB were decoded (of a 177 KiB page,
        /// after 161 KiB). At most ``maxHeldBytes``: past it, what is held is taken first.
        private var held: [UInt8] = []
        static let maxHeldBytes = 256 << 10
        /// Held bytes go on in libcurl's own pieces.
        static let heldPieceBytes = Int(CURL_MAX_WRITE_SIZE)

        /// Where an exchange stands. Only ``receiving(peeking:)`` takes chunks; the last three end it.
        enum State: Equatable {
            /// Chunks go to the receiver, each shown to it first for the next request while `peeking` (until
            /// one names it).
            case receiving(peeking: Bool)
            /// Sent early and not taken over yet: libcurl holds (paused) its first chunk.
            case heldUntilTaken
            /// A chunk named this next request: libcurl holds (paused) that chunk until the request is sent.
            case heldForNextRequest(HTTPRequest)
            /// Begun ahead of its perform, and a chunk the receiver does not take ahead: libcurl holds (paused)
            /// that chunk until the perform.
            case heldAhead
            /// Sent early, and refused while it waited (a content or transfer coding): not to be taken over.
            case refused
            /// The receiver returned `false`.
            case stopped
            /// The progress callback ended it on time, for this reason.
            case timedOut(String)
        }

        /// Monotonic nanoseconds: when the exchange started, and when a byte last arrived (or the receiver
        /// last took one: a slow receiver is not an idle server).
        private(set) var started = DispatchTime.now().uptimeNanoseconds
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        let idleLimit: UInt64
        let totalLimit: UInt64
        let idleTimeout: Double
        let totalTimeout: Double

        /// - Parameter receiver: `nil` for a request sent early, which counts its sends on a meter of its own
        ///   until it is taken over.
        init(receiver: (any HTTPResponseReceiver)?, cancellation: CancellationFlag, request: HTTPRequest) {
            self.receiver = receiver
            self.cancellation = cancellation
            meter = receiver == nil ? ExchangeMeter() : request.meter
            idleTimeout = request.timeouts.idle
            totalTimeout = request.timeouts.total
            idleLimit = UInt64(max(0.001, request.timeouts.idle) * 1e9)
            totalLimit = UInt64(max(0.001, request.timeouts.total) * 1e9)
        }

        /// Whether the exchange was begun ahead of its perform, and is not yet taken over: chunks go to the
        /// receiver only as it takes them ahead.
        private(set) var isAhead = false
        /// Bytes of the body the receiver has taken so far.
        private(set) var bodyBytes = 0

        /// `begin` gives the exchange sent early to `receiver` ahead of its perform: the head that came
        /// goes to it, and chunks as it takes them ahead.
        /// - Returns: Whether libcurl holds a chunk for the receiver, to be given again (unpaused).
        func begin(receiver: any HTTPResponseReceiver, cancellation: CancellationFlag) -> Bool {
            isAhead = true
            return hand(to: receiver, cancellation: cancellation)
        }

        /// Whether the exchange was begun ahead for `receiver` and is not yet taken over.
        func isBegun(for receiver: any HTTPResponseReceiver) -> Bool {
            isAhead && self.receiver === receiver
        }

        /// A `perform` takes over the exchange sent early: the sends counted so far are its request's, both
        /// clocks start now (the exchange waited on the walk, not on the server), and the head that came goes
        /// to the receiver (unless it was begun ahead for this receiver, which has it).
        /// - Returns: Whether libcurl holds a chunk for the receiver, to be given again (unpaused).
        func take(receiver: any HTTPResponseReceiver, cancellation: CancellationFlag, meter: ExchangeMeter?) -> Bool {
            if let meter, let own = self.meter { meter.sent(own.sendCount) }
            self.meter = meter
            guard isBegun(for: receiver) else { return hand(to: receiver, cancellation: cancellation) }
            isAhead = false
            self.cancellation = cancellation
            started = DispatchTime.now().uptimeNanoseconds
            active()
            guard state == .heldAhead else { return false }
            state = .receiving(peeking: true)
            return true
        }

        /// Gives the exchange sent early to `receiver`: both clocks start now (it waited on the walk, not on
        /// the server), and the head that came goes to it.
        /// - Returns: Whether libcurl holds a chunk for the receiver, to be given again (unpaused).
        private func hand(to receiver: any HTTPResponseReceiver, cancellation: CancellationFlag) -> Bool {
            self.receiver = receiver
            self.cancellation = cancellation
            started = DispatchTime.now().uptimeNanoseconds
            active()
            if let head, !receiver.receive(head: head) {
                state = .stopped
                return false
            }
            guard state == .heldUntilTaken else { return false }
            state = .receiving(peeking: true)
            return true
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
            switch state {
            case .timedOut: return true
            case .stopped, .refused: return false  // ended already, and not for time
            case .receiving, .heldUntilTaken, .heldForNextRequest, .heldAhead: break
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now &- lastActivity > idleLimit {
                state = .timedOut("no data for \(Self.text(idleTimeout)) s")
            } else if now &- started > totalLimit {
                state = .timedOut("the page took longer than \(Self.text(totalTimeout)) s")
            } else {
                return false
            }
            return true
        }

        /// One header line, status line and the blank line that ends the head included.
        func header(_ line: UnsafeRawBufferPointer) -> Bool {
            active()
            headerBytes += line.count
            if headerBytes > FetchLimits.maxHeadBytes { return false }
            if head != nil { return true }  // a trailer, after the body: not part of the head
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
                let head = HTTPResponseHead(status: status, headers: headers)
                self.head = head
                guard let receiver else {
                    // libcurl would inflate a coded body into its pause buffer, past any cap.
                    if head.hasCoding { state = .refused }
                    return !head.hasCoding
                }
                if !receiver.receive(head: head) {
                    state = .stopped
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
                state = .heldUntilTaken
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            guard case .receiving(let peeking) = state, !cancellation.isCancelled else { return 0 }
            if isAhead, !receiver.takesAhead(count: chunk.count) {
                state = .heldAhead
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            if peeking, let next = receiver.nextRequest(peekingAt: chunk) {
                state = .heldForNextRequest(next)
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            defer { active() }
            if peeking, receiver.awaitsNextRequest, chunk.count <= Self.maxHeldBytes {
                if held.count + chunk.count > Self.maxHeldBytes, !deliverHeld() { return 0 }
                held.append(contentsOf: chunk)
                return chunk.count
            }
            guard deliverHeld() else { return 0 }
            if !receiver.receive(body: chunk) {
                state = .stopped
                return 0
            }
            bodyBytes += chunk.count
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
                        state = .stopped
                        return false
                    }
                    bodyBytes += end - start
                    start = end
                }
                return true
            }
        }
    }
#endif
