import Dispatch
package import NotesJSON
package import NotesPage

/// Receives one response: checks the head before any byte of the body, then feeds the decoder chunk by
/// chunk as the transport reads them.
package final class PageReception: HTTPResponseReceiver {
    private var decoder: PageDecoder
    private let limit: Int
    var notes: [Note] = []
    var head: HTTPResponseHead?
    /// Why the body was refused before or while reading it.
    package var problem: FetchError.Code?
    /// Told the head and then the next value once read, until it returns `true` (the next page is known).
    var early: ((HTTPResponseHead, NextValue, [FieldValue?]) -> Bool)?
    /// Makes the next page's request from a next value read off the bytes (``NextValuePeek``), before the
    /// chunk that holds it is decoded; set for the pages of a walk in sequence, cleared once used.
    package var makeNextRequest: ((HTTPResponseHead, String) -> HTTPRequest?)?
    /// The last key of the next value's path, which ``NextValuePeek`` looks for.
    private let nextKey: [UInt8]

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

    package func receive(head: HTTPResponseHead) -> Bool {
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
        // The next page of a compressed walk is likely compressed too, and an early answer with a coding
        // is refused while it waits (CurlTransport): no guess, no wasted request. Nor is a coded page
        // paused to send one (libcurl would inflate the rest of its read into the pause buffer).
        if coded { makeNextRequest = nil }
        if let early, early(head, .unread, []) {
            self.early = nil
            makeNextRequest = nil  // requested early from its head already
        }
        return true
    }

    /// Whether the transport should hold chunks back until it has peeked at the last it can read at once
    /// (``nextRequest(peekingAt:)``): only while a chunk would be decoded here before the next is read. A
    /// page parsed on the second thread takes a chunk in about the time of a copy, and its parse starts
    /// with the first.
    package var awaitsNextRequest: Bool { makeNextRequest != nil && !decoder.parsesElsewhere }

    package func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? {
        guard let makeNextRequest, let head, let value = NextValuePeek.value(after: nextKey, in: chunk) else {
            return nil
        }
        self.makeNextRequest = nil
        return makeNextRequest(head, value)
    }

    package func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        do {
            try decoder.feed(chunk, into: &notes)
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
