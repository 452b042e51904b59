/// A push parser for one JSON document: feed it chunks as they arrive, then call ``finish()``.
///
/// Each chunk is first checked by ``JSONScanner`` (limits, strict UTF-8 and escapes), then the bytes up to
/// the first violation go to yajl, which calls the handler for every complete token. The first error is
/// sticky: later calls throw it again. Memory is bounded by the limits: yajl never holds more than
/// ``JSONLimits/maxTokenBytes`` of a pending token, nor a state stack deeper than
/// ``JSONLimits/maxDepth``.
public struct JSONStreamParser: ~Copyable {
    public let limits: JSONLimits
    /// Bytes of the document accepted so far: the offset of the next byte to feed.
    public private(set) var offset = 0

    private let context: JSONCallbackContext
    private let yajl: YajlHandle
    private var scanner: JSONScanner
    private var failure: JSONError?
    private var finished = false

    /// - Parameters:
    ///   - limits: The bounds to enforce; defaults to ``JSONLimits/init(maxDocumentBytes:maxTokenBytes:maxDepth:)``'s.
    ///   - handler: Receives every event; kept strongly until the parser is gone.
    public init(limits: JSONLimits = JSONLimits(), handler: some JSONEventHandler) {
        self.limits = limits
        self.context = JSONCallbackContext(handler: handler)
        self.yajl = YajlHandle(context: context)
        self.scanner = JSONScanner(maxTokenBytes: limits.maxTokenBytes, maxDepth: limits.maxDepth)
    }

    /// Parses the next chunk; an empty chunk is allowed and does nothing.
    /// - Throws: ``JSONError`` for the first invalid byte, limit or handler stop; then again on every call.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONError) {
        if let failure { throw failure }
        precondition(!finished, "feed(_:) after finish()")

        var accepted = chunk
        var pending: JSONError?
        let room = limits.maxDocumentBytes - offset
        if chunk.count > room {
            accepted = UnsafeRawBufferPointer(rebasing: chunk[..<room])
            let limit = limits.maxDocumentBytes
            pending = JSONError(
                .limitExceeded(.documentBytes(limit)),
                offset: limit,
                message: "document longer than \(limit) bytes"
            )
        }
        if let violation = scanner.scan(accepted) {
            accepted = UnsafeRawBufferPointer(rebasing: accepted[..<violation.index])
            pending = JSONError(violation.kind, offset: offset + violation.index, message: violation.message)
        }

        switch yajl.parse(accepted) {
        case .ok:
            offset += accepted.count
        case .stopped:
            try fail(JSONError(.stopped, offset: offset + yajl.bytesConsumed, message: "stopped by the handler"))
        case .error(let message):
            try fail(JSONError(.syntax, offset: offset + yajl.bytesConsumed, message: message))
        }
        if let pending { try fail(pending) }
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
        switch yajl.complete() {
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
}
