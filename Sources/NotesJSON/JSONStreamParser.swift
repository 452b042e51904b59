/// A push parser for one JSON document: feed it chunks as they arrive, then call ``finish()``.
///
/// Each chunk is first checked by ``JSONScanner`` (limits, strict UTF-8 and escapes), then the bytes up to
/// the first violation go to yajl, which calls the handler for every complete token. yajl only ever sees
/// whole tokens: a string, key, number or literal cut by the end of a chunk is held back here (at most
/// ``JSONLimits/maxTokenBytes``) and handed over with the rest of it. So yajl never grows a buffer of its
/// own, and where it reports an error does not depend on how the input was chunked. The first error is
/// sticky: later calls throw it again. Memory is bounded by the limits: yajl never holds more than
/// ``JSONLimits/maxTokenBytes`` of a pending token, nor a state stack deeper than
/// ``JSONLimits/maxDepth``.
public struct JSONStreamParser: ~Copyable {
    public let limits: JSONLimits
    /// Bytes of the document accepted so far: the offset of the next byte to feed.
    public private(set) var offset = 0

    private let context: JSONCallbackContext
    private let yajl: YajlHandle
    /// The scan stage, on this parser's thread unless ``PipelinedJSONParser`` has taken it to the caller's.
    var pieceScanner: PieceScanner
    /// Whether the text so far ends inside a string, as of the last piece parsed.
    private var insideString = false
    private var failure: JSONError?
    private var finished = false
    /// The start of a token cut by the end of the last chunk, not yet given to yajl.
    private var carry: [UInt8] = []
    /// Document offset of the first byte of the next buffer given to yajl.
    private var yajlOffset = 0

    /// - Parameters:
    ///   - limits: The bounds to enforce; defaults to ``JSONLimits/init(maxDocumentBytes:maxTokenBytes:maxDepth:)``'s.
    ///   - handler: Receives every event; kept strongly until the parser is gone.
    public init(limits: JSONLimits = JSONLimits(), handler: some JSONEventHandler) {
        self.limits = limits
        self.context = JSONCallbackContext(handler: handler)
        self.yajl = YajlHandle(context: context)
        self.pieceScanner = PieceScanner(limits: limits)
    }

    /// Parses the next chunk; an empty chunk is allowed and does nothing.
    /// - Throws: ``JSONError`` for the first invalid byte, limit or handler stop; then again on every call.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        // A large chunk goes through in pieces, so that yajl reads each piece while the scanner's pass has
        // left it in the cache. Nothing depends on where a body is cut, so nothing else changes.
        var rest = chunk
        while rest.count > Self.pieceBytes {
            try feedPiece(UnsafeRawBufferPointer(rebasing: rest[..<Self.pieceBytes]))
            rest = UnsafeRawBufferPointer(rebasing: rest[Self.pieceBytes...])
        }
        try feedPiece(rest)
    }

    /// The most bytes handed to the scanner and yajl at once.
    static let pieceBytes = 64 << 10

    private mutating func feedPiece(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "feed(_:) after finish()")
        try parse(piece: chunk, scanned: pieceScanner.scan(chunk))
    }

    /// The parse stage of a piece the scan stage has passed: the bytes before its first violation go to
    /// yajl, whole tokens only; then the violation, if any, is the error.
    mutating func parse(piece chunk: UnsafeRawBufferPointer, scanned: ScannedPiece) throws(JSONError) {
        if let failure { throw failure }
        let accepted = UnsafeRawBufferPointer(rebasing: chunk[..<scanned.accepted])
        let pending = scanned.pending
        insideString = scanned.isInsideString
        offset += accepted.count

        // The token carried over from the last chunk, completed by this one.
        var rest = accepted
        if !carry.isEmpty {
            if let carriedEnd = scanned.carriedTokenEnd {
                let end = min(carriedEnd, accepted.count)  // a violation may cut the chunk first
                carry.append(contentsOf: accepted[..<end])
                try parseCarry()
                rest = UnsafeRawBufferPointer(rebasing: accepted[end...])
            } else {
                carry.append(contentsOf: accepted)  // still open: the whole chunk belongs to it
                rest = UnsafeRawBufferPointer(rebasing: accepted[accepted.count...])
                if pending == nil { return }
                try parseCarry()
            }
        }
        // Whole tokens go to yajl straight from the chunk; a token cut at the end waits in `carry`.
        // Before a violation everything goes, so that yajl may report an earlier error.
        var tail = rest.count
        if pending == nil, let start = scanned.openTokenStart {
            tail = max(0, start - (accepted.count - rest.count))
        }
        try parse(UnsafeRawBufferPointer(rebasing: rest[..<tail]))
        if let pending { try fail(pending) }
        carry.append(contentsOf: rest[tail...])
    }

    private mutating func parseCarry() throws(JSONError) {
        guard !carry.isEmpty else { return }
        var held: [UInt8] = []
        swap(&held, &carry)  // keeps the buffer, and lets `parse` mutate self while reading it
        let result = held.withUnsafeBytes { bytes in Result { () throws(JSONError) in try parse(bytes) } }
        held.removeAll(keepingCapacity: true)
        swap(&held, &carry)
        try result.get()
    }

    private mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        context.position.base = yajlOffset
        switch yajl.parse(bytes) {
        case .ok:
            yajlOffset += bytes.count
        case .stopped:
            try fail(JSONError(.stopped, offset: yajlOffset + yajl.bytesConsumed, message: "stopped by the handler"))
        case .error(let message):
            try fail(JSONError(.syntax, offset: yajlOffset + yajl.bytesConsumed, message: message))
        }
    }

    /// Parses the next chunk.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(JSONError) {
        let result: Result<Void, JSONError>? = chunk.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try feed(UnsafeRawBufferPointer(buffer)) }
        }
        if let result { return try result.get() }
        try feed(Array(chunk))
    }

    /// Ends the document: a trailing number is delivered, and a document that is not complete fails.
    /// - Throws: ``JSONError``: ``JSONError/Kind/truncated`` when the input stopped early.
    public mutating func finish() throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "finish() called twice")
        try parseCarry()
        context.position.base = offset
        context.position.isCompleting = true
        switch yajl.complete() {
        case .ok where insideString:
            // yajl ends happily on a string left open after a complete value (`{} "`): not JSON.
            try fail(JSONError(.syntax, offset: offset, message: "an unterminated string after the document"))
        case .ok:
            finished = true
        case .stopped:
            try fail(JSONError(.stopped, offset: offset, message: "stopped by the handler"))
        case .error(let message) where message.contains("premature EOF"):
            let what = offset == 0 ? "empty document" : "document ended before it was complete"
            try fail(JSONError(.truncated, offset: offset, message: what))
        case .error(let message):
            try fail(JSONError(.syntax, offset: offset, message: message))
        }
    }

    private mutating func fail(_ error: JSONError) throws(JSONError) -> Never {
        failure = error
        throw error
    }

    /// The object yajl calls back: its handler can be replaced between calls, and it knows where the
    /// event being delivered ends.
    var callbackContext: JSONCallbackContext { context }
}

/// What the scan stage found in one piece, for the parse stage (``JSONStreamParser/parse(piece:scanned:)``).
struct ScannedPiece {
    /// Bytes of the piece before its first violation, or before the document byte cap.
    var accepted: Int
    /// The violation or the cap that ends the document in this piece.
    var pending: JSONError?
    /// Where a token begun in an earlier piece ends in this one (``JSONScanner/carriedTokenEnd``).
    var carriedTokenEnd: Int?
    /// Where the token still open at the end of the piece began (``JSONScanner/openTokenStart``).
    var openTokenStart: Int?
    var isInsideString: Bool
}

/// The scan stage of ``JSONStreamParser``: the document byte cap and ``JSONScanner``'s rules, piece by
/// piece, with no yajl. A plain value: ``PipelinedJSONParser`` copies it to the caller's thread, so that
/// the scan runs there while the parsing thread runs yajl.
struct PieceScanner {
    private var scanner: JSONScanner
    private let maxDocumentBytes: Int
    /// Bytes of the document scanned so far.
    private(set) var offset = 0

    init(limits: JSONLimits) {
        scanner = JSONScanner(maxTokenBytes: limits.maxTokenBytes, maxDepth: limits.maxDepth)
        maxDocumentBytes = limits.maxDocumentBytes
    }

    /// Scans the next piece. After a piece with a violation (``ScannedPiece/pending``) nothing more may be
    /// scanned.
    mutating func scan(_ chunk: UnsafeRawBufferPointer) -> ScannedPiece {
        var accepted = chunk
        var pending: JSONError?
        let room = maxDocumentBytes - offset
        if chunk.count > room {
            accepted = UnsafeRawBufferPointer(rebasing: chunk[..<room])
            pending = JSONError(
                .limitExceeded(.documentBytes(maxDocumentBytes)),
                offset: maxDocumentBytes,
                message: "document longer than \(maxDocumentBytes) bytes"
            )
        }
        if let violation = scanner.scan(accepted) {
            accepted = UnsafeRawBufferPointer(rebasing: accepted[..<violation.index])
            pending = JSONError(violation.kind, offset: offset + violation.index, message: violation.message)
        }
        offset += accepted.count
        return ScannedPiece(
            accepted: accepted.count, pending: pending, carriedTokenEnd: scanner.carriedTokenEnd,
            openTokenStart: scanner.openTokenStart, isInsideString: scanner.isInsideString)
    }
}
