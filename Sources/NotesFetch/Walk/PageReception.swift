import Dispatch
package import NotesJSON
package import NotesPage

/// Receives one response: checks the head before any byte of the body, then feeds the decoder chunk by
/// chunk as the transport reads them.
package final class PageReception: HTTPResponseReceiver {
    private var decoder: PageDecoder
    private let limit: Int
    package var notes: [Note] = []
    package var head: HTTPResponseHead?
    /// Why the body was refused before or while reading it.
    package var problem: FetchError.Code?
    /// Told the head and then the next value once read, until it returns `true` (the next page is known).
    var early: ((HTTPResponseHead, NextValue, [FieldValue?]) -> Bool)?
    /// Makes the next page's request from a next value read off the bytes (``NextValuePeek``), before the
    /// chunk that holds it is decoded; set for the pages of a walk in sequence, cleared once used.
    package var makeNextRequest: ((HTTPResponseHead, String) -> HTTPRequest?)?
    /// The last key of the next value's path, which ``NextValuePeek`` looks for.
    private let nextKey: [UInt8]
    /// The next page's request, once made from the bytes (``makeNextRequest``) and sent early.
    package private(set) var sentEarly: HTTPRequest?
    /// Where the page stands when begun ahead of its attempt (``beginAhead()``), while the page before it
    /// is finished.
    private var ahead = Ahead.no
    /// A next value read off the chunks taken ahead, before the attempt said what to make of it.
    private var peekedAhead: String?
    /// The head accepted while begun ahead, for the attempt's lookahead.
    private var headAhead: HTTPResponseHead?

    private enum Ahead {
        case no
        /// Begun: chunks are taken ahead once the head says the page parses on the second thread.
        case begun
        /// Its chunks go to the second thread, their events held (``PageDecoder/hold()``).
        case holding
        /// Dropped: it takes nothing more.
        case abandoned
    }

    /// - Parameter plan: The page configuration, checked once for the walk's pages.
    package init(plan: PagePlan, ids: IDSet, worker: JSONPipelineWorker) {
        decoder = PageDecoder(plan: plan, ids: ids, commitsIDs: false, pipeline: Self.pipeline, worker: worker)
        limit = plan.configuration.limits.maxDocumentBytes
        nextKey = plan.configuration.nextPath.components.last ?? []
    }

    package convenience init(configuration: PageConfiguration, ids: IDSet, worker: JSONPipelineWorker) {
        self.init(plan: PagePlan(configuration), ids: ids, worker: worker)
    }

    /// How a page shares its lane's second thread: from its first byte when its `Content-Length` says it
    /// is past 32 KiB, else once it passes 32 KiB; a ring of 32 blocks of 8 KiB. Measured on 1,000 pages
    /// of 1,000 notes (177 KB) from the fixture server, whole process, 5 pairs: 0.76x the wall time of
    /// one thread at 1.13x the CPU; 64 KiB blocks gained little (the first block is published only once
    /// full), and pages of 100 notes (18 KB) lost on two threads, so they stay on one.
    static let pipeline = JSONPipelineOptions(threshold: 32 << 10, blockBytes: 8 << 10, blocks: 32)

    /// Makes this reception the page begun ahead of its attempt: the transport may give it the head and the
    /// first chunks (``takesAhead(count:)``) while the page before it is finished. Its chunks go to the
    /// second thread, and nothing else happens (no note, no id in the set, no early request) until its
    /// attempt ``release()``s it, or ``abandon()``s it.
    package func beginAhead() {
        ahead = .begun
        decoder.beginAhead()
    }

    /// Whether the page was begun ahead and is not yet released.
    package var isAhead: Bool { ahead == .begun || ahead == .holding }

    /// While begun ahead: a chunk is taken only where its events can be held (the page parses on the second
    /// thread, and the ring has room for it).
    package func takesAhead(count: Int) -> Bool {
        ahead == .holding && problem == nil && decoder.canHold(byteCount: count)
    }

    /// The attempt takes over the page begun ahead: its head, if accepted, goes to the lookahead the
    /// attempt set, and the events of its chunks so far are handled now.
    package func release() {
        guard isAhead else { return }
        ahead = .no
        if let head = headAhead { lookAhead(from: head) }
        guard problem == nil else { return }
        do {
            try decoder.release(into: &notes)
        } catch {
            problem = .contract(error)
        }
    }

    /// Drops the page begun ahead: its parse stops, and it takes nothing more.
    package func abandon() {
        ahead = .abandoned
        decoder.stop()
    }

    package func receive(head: HTTPResponseHead) -> Bool {
        if ahead == .abandoned { return false }
        self.head = head
        guard (200...299).contains(head.status) else { return false }  // nothing to read in an error body
        let type = head.value(of: "Content-Type") ?? ""
        guard Self.isJSON(type) else {
            problem = .contentType(String(type.prefix(60)))
            return false
        }
        let coded = head.hasCoding
        if let length = head.value(of: "Content-Length").flatMap({ Int($0.trimming(" \t")) }) {
            if length > limit {
                problem = .tooLarge(contentLength: length, limit: limit)
                return false
            }
            // A compressed length says little about the JSON's.
            if !coded { decoder.announce(byteCount: length) }
        }
        if ahead == .begun {
            // Told to the attempt's lookahead when it takes the page over (``release()``).
            headAhead = head
            if decoder.parsesElsewhere {
                decoder.hold()
                ahead = .holding
            }
            return true
        }
        lookAhead(from: head)
        return true
    }

    /// What the lookahead makes of an accepted head: the next page, told early, or no request made early.
    private func lookAhead(from head: HTTPResponseHead) {
        // The next page of a compressed walk is likely compressed too, and an early answer with a coding
        // is refused while it waits (CurlTransport): no guess, no wasted request. Nor is a coded page
        // paused to send one (libcurl would inflate the rest of its read into the pause buffer).
        if head.hasCoding { makeNextRequest = nil }
        if let early, early(head, .unread, []) {
            self.early = nil
            makeNextRequest = nil  // requested early from its head already
        }
    }

    /// Whether the transport should hold chunks back until it has peeked at the last it can read at once
    /// (``nextRequest(peekingAt:)``): only while a chunk would be decoded here before the next is read. A
    /// page parsed on the second thread takes a chunk in about the time of a copy, and its parse starts
    /// with the first.
    package var awaitsNextRequest: Bool { makeNextRequest != nil && !decoder.parsesElsewhere }

    package func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? {
        if isAhead {
            // Nobody has said yet what the next value makes: kept for when the attempt does.
            if peekedAhead == nil { peekedAhead = NextValuePeek.value(after: nextKey, in: chunk) }
            return nil
        }
        guard let makeNextRequest, let head,
            let value = peekedAhead ?? NextValuePeek.value(after: nextKey, in: chunk)
        else { return nil }
        self.makeNextRequest = nil
        sentEarly = makeNextRequest(head, value)
        return sentEarly
    }

    package func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        if ahead == .abandoned { return false }
        do {
            try decoder.feed(chunk, into: &notes)
            if isAhead { return true }
            tellEarly(waiting: false)
            return true
        } catch {
            problem = .contract(error)
            return false
        }
    }

    /// The transport waits on the network: a page on two threads whose start the decoder has not yet
    /// replayed is waited for here, not after each chunk, where the wait would keep the parsing thread
    /// from the chunks behind it.
    package func awaitNetwork() {
        if isAhead { return }
        tellEarly(waiting: true)
    }

    /// Tells ``early`` the next value once the decoder has read it before the items: as of the events
    /// replayed so far, or, `waiting`, once the decoder has caught up with the chunks fed.
    private func tellEarly(waiting: Bool) {
        guard let early, let head, problem == nil, decoder.hasReadNextBeforeItems(waiting: waiting) else { return }
        self.early = nil
        makeNextRequest = nil
        _ = early(head, NextValue(read: decoder.nextCursorRead), decoder.fieldsRead)
    }

    package func finish() throws(PageError) -> PageDecoder.Summary {
        // A body that came whole without the network's pause: tell now, before the page's end is waited for.
        tellEarly(waiting: true)
        return try decoder.finish(into: &notes)
    }

    /// JSON media types named otherwise than `application/json` and `+json`.
    static let otherJSONTypes: Set<String> = [
        "application/x-amz-json-1.0", "application/x-amz-json-1.1", "application/x-json",
    ]

    /// `application/json`, any `+json` type, or one of ``otherJSONTypes``, with no charset or UTF-8.
    package static func isJSON(_ contentType: String) -> Bool {
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return true }
        let parts = contentType.split(separator: ";").map { String($0).trimming(" \t").lowercased() }
        // AWS's JSON protocols (`application/x-amz-json-1.0`, `-1.1`) and the older `application/x-json` too.
        guard let type = parts.first,
            type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
                || Self.otherJSONTypes.contains(type)
        else { return false }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = String(parameter.dropFirst("charset=".count)).trimming("\"")
            if charset != "utf-8" && charset != "utf8" { return false }
        }
        return true
    }
}
