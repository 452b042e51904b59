package import NotesJSON

/// Decodes one page incrementally: feed the body chunk by chunk as it arrives; notes come out as soon as
/// their closing brace is parsed; ``finish(into:)`` checks the page is complete and returns its next cursor.
///
/// Every id goes into the run's ``IDSet``. The page's ids become permanent only when ``finish(into:)``
/// succeeds (or, with `commitsIDs: false`, when the caller commits them after it): a page that fails, or
/// a decoder dropped before it finishes (cancelled, retried), takes its ids back out, unless it was begun
/// ahead and never released (it put none in). Errors are sticky: after one, every call
/// throws it again.
///
/// ```swift
/// var decoder = PageDecoder(configuration: PageConfiguration(), ids: ids)
/// var notes: [Note] = []
/// for chunk in body { try decoder.feed(chunk, into: &notes) }
/// let page = try decoder.finish(into: &notes)
/// ```
public struct PageDecoder: ~Copyable {
    /// What a finished page said besides its notes.
    public struct Summary: Sendable, Hashable {
        /// The next cursor: `nil` when the next path is absent, `null` or an empty string.
        public var nextCursor: String?
        /// Notes on the page, skipped duplicates included.
        public var noteCount: Int
        /// Bytes of the body.
        public var byteCount: Int
        /// Whether the body was a bare array rather than an object.
        public var isBareArray: Bool
        /// The values at ``PageConfiguration/fieldPaths``, in its order; `nil` where a path is absent.
        public var fields: [FieldValue?] = []
        /// The compact JSON text of each of ``fields`` that is an object or an array, when it is at most
        /// ``PageDecoder/maxFieldJSONBytes``; `nil` for the others (a GraphQL response's `errors`).
        public var fieldJSON: [String?] = []
        /// Whether the page had the items (always, unless ``PageConfiguration/requiresItems`` is `false`).
        public var hasItems = true
        /// Notes left out because their ids were seen before (``DuplicatePolicy/skip``).
        public var skippedCount = 0
        /// The id of the last note kept, if any.
        public var lastID: [UInt8]?
        /// Whether the page has a value at the next path, `null` and `""` included: `true` with no
        /// ``nextCursor`` means the server says this page is the last.
        public var hasNextValue = false
        /// The items path found on the page (``PathDetection/items``), when it is not the configuration's.
        public var detectedItemsPath: FieldPath?
        /// The next path found on the page (``PathDetection/next``), when it is not the configuration's.
        public var detectedNextPath: FieldPath?
        /// How the next value found was read, for a message: the path, or `links[rel=next]`, `links.next`.
        public var detectedNextShown: String?
        /// Where the page's next value was: the configuration's next path, or the one found; `nil` for none.
        public var nextPath: FieldPath?
        /// Whether the next value found is the `href` of a link whose `rel` is `next`, in an array of links
        /// (``PathDetection/nextPaths``): a later page is read the same way, not at a path.
        public var nextIsLinkRelation = false
        /// Whether ``nextCursor`` is the compact JSON of an object or array (DynamoDB's `LastEvaluatedKey`),
        /// not a string or number's text.
        public var nextIsJSON = false
        /// The id path found on the first note (``PathDetection/id``), when it is not the configuration's.
        public var detectedIDPath: FieldPath?
    }

    public let configuration: PageConfiguration
    /// The longest JSON text of an object or array at a field path kept in ``Summary/fieldJSON``.
    public static let maxFieldJSONBytes = 16384
    /// The next paths read for ``PathDetection/next``, after the configuration's field paths.
    private let nextCandidates: [FieldPath]
    private let assembler: PageAssembler
    private var parser: PipelinedJSONParser
    private let commitsIDs: Bool
    /// Whether the page's ids are no longer the decoder's to take back: finished, or failed.
    private var settled = false
    /// Whether the page is begun ahead of its turn (``beginAhead()``) and not yet released.
    private var isAhead = false
    private var failure: PageError?

    /// - Parameters:
    ///   - configuration: Limits and paths; defaults to ``PageConfiguration/init(limits:maxPageNotes:itemsPath:nextPath:keepsJSON:)``'s.
    ///   - ids: The run's id set; defaults to a new one (a page on its own).
    ///   - commitsIDs: Whether ``finish(into:)`` commits the page's ids; when `false` they stay the set's
    ///     open page, for the caller to commit when it takes the page or roll back when it drops it.
    public init(configuration: PageConfiguration = PageConfiguration(), ids: IDSet = IDSet(), commitsIDs: Bool = true) {
        self.init(configuration: configuration, ids: ids, commitsIDs: commitsIDs, pipeline: JSONPipelineOptions())
    }

    /// - Parameters:
    ///   - pipeline: When the page's parse moves to a second thread, and the ring it uses then.
    ///   - worker: The second thread and ring to borrow, kept from page to page by the caller (a walk).
    package init(
        configuration: PageConfiguration = PageConfiguration(), ids: IDSet = IDSet(), commitsIDs: Bool = true,
        pipeline: JSONPipelineOptions, worker: JSONPipelineWorker? = nil
    ) {
        self.init(plan: PagePlan(configuration), ids: ids, commitsIDs: commitsIDs, pipeline: pipeline, worker: worker)
    }

    /// A page read as `plan` says: a walk's pages share one plan, made once.
    package init(
        plan: PagePlan, ids: IDSet, commitsIDs: Bool, pipeline: JSONPipelineOptions, worker: JSONPipelineWorker?
    ) {
        configuration = plan.configuration
        self.commitsIDs = commitsIDs
        nextCandidates = plan.nextCandidates
        assembler = PageAssembler(configuration: plan.reading, ids: ids)
        // The caller's thread writes each note's JSON when the page keeps it: the scan then evens out the
        // two threads' work on the other side.
        var pipeline = pipeline
        if configuration.keepsJSON { pipeline.scansOnCaller = false }
        parser = PipelinedJSONParser(
            limits: configuration.limits, handler: assembler, options: pipeline, worker: worker)
        assembler.state.pointee.tokenEnd = parser.tokenEnd
    }

    deinit {
        // Begun ahead and not released, the page has put no id in the set: the open page is another's.
        if !settled && !isAhead { assembler.state.pointee.ids.rollbackPage() }
    }

    /// Bytes fed and accepted so far.
    public var offset: Int { parser.offset }

    /// Whether the next value has been read before the notes (as Django REST framework writes it), so
    /// that the next page can be requested while this one streams; ``nextCursorRead`` is then what it was.
    ///
    /// As of every chunk fed: when the page is decoded on two threads and the answer could still change,
    /// this waits until the decoding has reached the items or the next value, or caught up with the
    /// chunks (block by block: the parse of the blocks after goes on).
    public var hasReadNextBeforeItems: Bool { hasReadNextBeforeItems(waiting: true) }

    /// ``hasReadNextBeforeItems``, without waiting (`waiting` false): as of the events the handler has
    /// seen so far, which on two threads may be short of the chunks fed.
    public func hasReadNextBeforeItems(waiting: Bool) -> Bool {
        // Once the items have started, or the next value came first, the answer is final.
        let state = assembler.state
        if waiting { parser.synchronize { state.pointee.foundItems || state.pointee.nextBeforeItems } }
        return state.pointee.nextBeforeItems
    }

    /// The next value read so far: `nil` for `null` or `""`, or before it is read. As of every chunk fed
    /// (see ``hasReadNextBeforeItems``).
    public var nextCursorRead: String? {
        if !assembler.state.pointee.foundNext { parser.synchronize() }
        return assembler.state.pointee.nextCursor.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The values read so far at ``PageConfiguration/fieldPaths``, in its order (a GraphQL page's
    /// `hasNextPage`, read before its records). As of every chunk fed: it waits for the second thread.
    public var fieldsRead: [FieldValue?] {
        parser.synchronize()
        return Array(assembler.state.pointee.fields.prefix(configuration.fieldPaths.count))
    }

    /// Whether the page is being decoded on two threads (it passed the pipeline's threshold).
    package var isPipelined: Bool { parser.isPipelined }

    /// Whether the page is decoded on two threads, or will be from its first byte: a feed then only scans
    /// and copies, the parse going on meanwhile.
    package var parsesElsewhere: Bool { parser.parsesElsewhere }

    /// What the second thread shares with this decoder: it lives as long as that thread does.
    package var pipelineState: AnyObject { parser.sharedState }

    /// The most blocks of the two threads' ring in use at once so far.
    package var peakBlocksInUse: Int { parser.peakBlocksInUse }

    /// Says how long the body is (its `Content-Length`), before the first chunk: a page that will pass the
    /// pipeline's threshold decodes on two threads from its first byte, a smaller one on the caller's
    /// thread alone.
    package mutating func announce(byteCount: Int) {
        parser.announce(byteCount: byteCount)
    }

    /// Begins the page while the page before it is still being finished: until ``release(into:)`` nothing
    /// of it reaches the run's id set, and dropping it takes no id back (the open page is the other's).
    package mutating func beginAhead() {
        isAhead = true
    }

    /// Holds the page's events, once begun ahead: the chunks fed are parsed on the second thread and
    /// nothing else happens (no note, no id in the set, no error) until ``release(into:)``. Only while
    /// ``parsesElsewhere``, and only chunks that ``canHold(byteCount:)``.
    package mutating func hold() {
        precondition(isAhead, "a hold of a page not begun ahead")
        parser.hold()
    }

    /// Whether a chunk of `byteCount` bytes may be fed while holding (the ring has room for it).
    package func canHold(byteCount: Int) -> Bool { parser.canHold(byteCount: byteCount) }

    /// Ends ``hold()``: the notes of the bytes fed so far come out as from a feed.
    /// - Throws: ``PageError``, as ``feed(_:into:)`` for the bytes fed while holding.
    package mutating func release(into notes: inout [Note]) throws(PageError) {
        isAhead = false
        if let failure { throw failure }
        guard parser.isHolding else { return }
        do {
            try parser.release()
        } catch {
            take(into: &notes)
            try fail(error)
        }
        take(into: &notes)
    }

    /// Stops the parse where it is (the second thread leaves the page), for a page dropped unfinished.
    package func stop() {
        parser.stop()
    }

    /// Decodes the next chunk of the body, appending the notes it completes to `notes`.
    /// - Throws: ``PageError`` for invalid JSON, a limit, or a contract violation.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, into notes: inout [Note]) throws(PageError) {
        if let failure { throw failure }
        do {
            try parser.feed(chunk)
        } catch {
            take(into: &notes)  // the notes completed before the error, as with any other chunking
            try fail(error)
        }
        take(into: &notes)
    }

    /// Decodes the next chunk of the body, appending the notes it completes to `notes`.
    public mutating func feed(_ chunk: some Collection<UInt8>, into notes: inout [Note]) throws(PageError) {
        let contiguous = chunk.withContiguousStorageIfAvailable { bytes in
            Result { () throws(PageError) in try feed(UnsafeRawBufferPointer(bytes), into: &notes) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(chunk)
        try copy.withUnsafeBytes { bytes in
            Result { () throws(PageError) in try feed(bytes, into: &notes) }
        }.get()
    }

    /// Ends the body, appending any last notes, and commits the page's ids to the run (unless the decoder
    /// was made with `commitsIDs: false`).
    /// - Returns: The next cursor and counts.
    /// - Throws: ``PageError``: truncated JSON, or no notes array.
    public mutating func finish(into notes: inout [Note]) throws(PageError) -> Summary {
        if let failure { throw failure }
        do {
            try parser.finish()
        } catch {
            take(into: &notes)
            try fail(error)
        }
        take(into: &notes)
        let state = assembler.state
        guard state.pointee.foundItems || !configuration.requiresItems else {
            let path = configuration.itemsPath
            var message = "no '\(path)' array in the page"
            if configuration.detects.contains(.items) {
                let others = state.pointee.otherArrays.map { "'\($0.prefix(40))'" }
                message +=
                    others.isEmpty
                    ? ", nor any array of objects at its top level: pass --items-path"
                    : ", nor an array of objects at its top level (arrays of other values: \(others.joined(separator: ", "))): pass --items-path"
            }
            try fail(PageError(.missingItems, message: message, offset: parser.offset))
        }
        var summary = Summary(
            nextCursor: state.pointee.nextCursor.map { String(decoding: $0, as: UTF8.self) },
            noteCount: state.pointee.noteCount,
            byteCount: parser.offset,
            isBareArray: state.pointee.isBareArray,
            fields: nextCandidates.isEmpty
                ? state.pointee.fields : Array(state.pointee.fields.prefix(configuration.fieldPaths.count)),
            skippedCount: state.pointee.skippedCount,
            lastID: state.pointee.lastID,
            hasNextValue: state.pointee.foundNext,
            detectedItemsPath: state.pointee.detectedItems.map { FieldPath(components: [$0]) }
        )
        summary.hasItems = state.pointee.foundItems
        summary.fieldJSON = state.pointee.fieldJSON.prefix(configuration.fieldPaths.count).map {
            $0.map { String(decoding: $0, as: UTF8.self) }
        }
        if state.pointee.foundNext {
            summary.nextPath = configuration.nextPath
            if let json = state.pointee.nextJSON {
                summary.nextCursor = String(decoding: json, as: UTF8.self)
                summary.nextIsJSON = true
            }
        } else if !nextCandidates.isEmpty {
            try detectNext(into: &summary)
        }
        summary.detectedIDPath = state.pointee.detectedID.map { FieldPath(components: [$0]) }
        if commitsIDs { state.pointee.ids.commitPage() }
        settled = true
        return summary
    }

    /// The next value of a page that has none where the configuration says: the one of the candidates
    /// (``PathDetection/nextPaths``) the page has. A `cursor` is taken only when no other is there; a URL
    /// that carries another candidate's value is taken over it (Datasette's `next_url` beside `next`).
    /// - Throws: ``PageError`` when two candidates remain, or the one found is a boolean.
    private mutating func detectNext(into summary: inout Summary) throws(PageError) {
        let state = assembler.state
        var found: [(path: FieldPath, value: FieldValue, shown: String)] = []
        var weak: [(path: FieldPath, value: FieldValue, shown: String)] = []
        for (index, path) in nextCandidates.enumerated() {
            let slot = configuration.fieldPaths.count + index
            guard let value = state.pointee.fields[slot] else { continue }
            let readsLinks = path == PathDetection.linksPath || path == PathDetection.cursorPath
            if case .container = value {
                guard readsLinks, let json = state.pointee.fieldJSON[slot], let links = NextLinks.read(json) else {
                    continue
                }
                let shown = "\(path)\(links.form.shown)"
                // The object's own `next` is a path the pages after this one read; the others are read so.
                let at = links.form == .member ? FieldPath(components: path.components + [Array("next".utf8)]) : path
                switch links.reading {
                case .next(let text): found.append((at, .string(text), shown))
                case .none: found.append((at, .null, shown))
                }
                if links.form != .member { summary.nextIsLinkRelation = true }
            } else if path == PathDetection.linksPath {
                continue
            } else if path == PathDetection.cursorPath {
                weak.append((path, value, "\(path)"))
            } else {
                found.append((path, value, "\(path)"))
            }
        }
        if found.isEmpty { found = weak }
        if found.count == 2, let url = Self.urlCarrying(found[0].value, found[1].value) {
            found = [found[url]]
        }
        if found.count > 1 {
            summary.nextIsLinkRelation = false
            try fail(
                PageError(
                    .ambiguousPaths,
                    message:
                        "the page has two values that could be the next page's, '\(found[0].shown)' and '\(found[1].shown)': pass --next-path",
                    offset: parser.offset))
        }
        guard let (path, value, shown) = found.first else { return }
        summary.detectedNextPath = path
        summary.nextPath = path
        summary.detectedNextShown = shown
        summary.hasNextValue = true
        switch value {
        case .string(let text), .number(let text): summary.nextCursor = text.isEmpty ? nil : text
        default: summary.nextCursor = nil
        }
        if case .bool = value {
            try fail(
                PageError(
                    .invalidNext, message: "'\(shown)' is \(value), not a string, number or null",
                    offset: parser.offset))
        }
    }

    /// The index (0 or 1) of the value that is a URL whose query carries the other value, or `nil`.
    private static func urlCarrying(_ first: FieldValue, _ second: FieldValue) -> Int? {
        func text(_ value: FieldValue) -> String? {
            switch value {
            case .string(let text), .number(let text): return text.isEmpty ? nil : text
            default: return nil
            }
        }
        guard let a = text(first), let b = text(second) else { return nil }
        func carries(_ url: String, _ value: String) -> Bool {
            guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return false }
            return query.split(separator: "&").contains {
                $0.split(separator: "=", maxSplits: 1).last == Substring(value)
            }
        }
        if carries(a, b) { return 0 }
        if carries(b, a) { return 1 }
        return nil
    }

    private func take(into notes: inout [Note]) {
        assembler.state.pointee.notes.take(into: &notes)
    }

    private mutating func fail(_ error: JSONError) throws(PageError) -> Never {
        // A note whose id repeats one of the run's, cut short by this error: the id came first.
        if error.kind != .stopped, let duplicate = assembler.state.pointee.pendingDuplicate() { try fail(duplicate) }
        switch error.kind {
        case .stopped:
            var failure = assembler.state.pointee.failure!
            failure.offset = assembler.state.pointee.failureOffset ?? error.offset
            try fail(failure)
        case .syntax, .invalidText:
            try fail(PageError(.invalidJSON, message: "invalid JSON: \(error.message)", offset: error.offset))
        case .truncated:
            try fail(PageError(.truncated, message: error.message, offset: error.offset))
        case .limitExceeded(let limit):
            let pageLimit: PageLimit
            switch limit {
            case .documentBytes(let value): pageLimit = .pageBytes(value)
            case .tokenBytes(let value): pageLimit = .stringBytes(value)
            case .depth(let value): pageLimit = .depth(value)
            }
            try fail(PageError(.limitExceeded(pageLimit), message: error.message, offset: error.offset))
        }
    }

    private mutating func fail(_ error: PageError) throws(PageError) -> Never {
        failure = error
        if !settled {
            assembler.state.pointee.ids.rollbackPage()
            settled = true  // nothing left to take back
        }
        throw error
    }
}
