internal import CYajl

// Every `yajl_*` call of the project lives in this file.

/// The outcome of handing bytes to yajl.
enum YajlStatus: Equatable {
    /// yajl took every byte.
    case ok
    /// A callback returned 0 (`yajl_status_client_canceled`).
    case stopped
    /// yajl found invalid JSON (`yajl_status_error`); the message is yajl's short form, which never
    /// quotes the input.
    case error(String)
}

/// The one owner of a `yajl_handle`: allocated in `init`, freed exactly once in `deinit`.
///
/// yajl is configured strictly (its defaults: no comments, no trailing garbage, one value, no partial
/// values). Numbers arrive through the `yajl_number` callback as the exact text written, so no number
/// is ever rejected for its size. yajl's own UTF-8 validation is off (`yajl_dont_validate_strings`):
/// ``JSONScanner`` has checked every string byte more strictly before yajl sees it.
struct YajlHandle: ~Copyable {
    private let handle: yajl_handle

    /// - Parameter context: The ``JSONCallbackContext`` whose handler receives the events; it must
    ///   outlive this handle.
    init(context: JSONCallbackContext) {
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        guard let handle = yajl_alloc(yajlCallbacks, nil, opaque) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        self.handle = handle
        context.position.pointee.handle = handle
        notes_yajl_config(handle, yajl_dont_validate_strings, 1)
    }

    deinit {
        yajl_free(handle)
    }

    /// Parses `bytes`, calling back for each complete token (`yajl_parse`).
    func parse(_ bytes: UnsafeRawBufferPointer) -> YajlStatus {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .ok }
        let status = yajl_parse(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return map(status)
    }

    /// Tells yajl the input has ended, flushing a trailing number (`yajl_complete_parse`).
    func complete() -> YajlStatus {
        map(yajl_complete_parse(handle))
    }

    /// Bytes of the most recent chunk that yajl consumed (`yajl_get_bytes_consumed`): after an error,
    /// the offset of the offending byte; after a stop, just past the token whose callback stopped.
    var bytesConsumed: Int {
        yajl_get_bytes_consumed(handle)
    }

    private func map(_ status: yajl_status) -> YajlStatus {
        switch status {
        case yajl_status_ok: return .ok
        case yajl_status_client_canceled: return .stopped
        default: return .error(errorMessage())
        }
    }

    /// yajl's error without the quoted input (`verbose` 0), e.g. `lexical error: invalid char in json text.`
    private func errorMessage() -> String {
        guard let raw = yajl_get_error(handle, 0, nil, 0) else { return "invalid JSON" }
        defer { yajl_free_error(handle, raw) }
        let text = String(cString: raw)
        return text.trimmingWhitespace()
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        return String(scalars)
    }
}

// MARK: - Callbacks

/// The object yajl's `ctx` pointer names: it forwards each callback to the handler as a ``JSONEvent``, or,
/// while a block is being recorded (``PipelinedJSONParser``'s parsing thread), records it into the block.
final class JSONCallbackContext {
    let handler: any JSONEventHandler
    /// Where yajl is in the document, and the block being recorded if any. Behind a pointer, not in stored `var`s: a
    /// class's stored `var` costs a dynamic exclusivity check on every access, and this is read on every
    /// event.
    let position: UnsafeMutablePointer<YajlPosition>

    init(handler: any JSONEventHandler) {
        self.handler = handler
        position = .allocate(capacity: 1)
        position.initialize(to: YajlPosition())
    }

    deinit {
        position.deinitialize(count: 1)
        position.deallocate()
    }
}

/// Where the buffer yajl is parsing lies in the document.
struct YajlPosition {
    /// Document offset of the first byte of the buffer yajl is parsing; while ``isCompleting``, the
    /// document's length.
    var base = 0
    /// Whether yajl is completing the document (`yajl_complete_parse` parses a buffer of its own).
    var isCompleting = false
    /// The handle that calls back, set by ``YajlHandle``.
    fileprivate var handle: yajl_handle?
    /// The block the events are recorded into instead of going to the handler, when set: the block the
    /// parsing thread is parsing, owned by that thread meanwhile. Every event is recorded with the
    /// offset just past its token (``eventEnd``); recording never stops the parse.
    var recording: UnsafeMutablePointer<EventBlock>?

    /// The document offset just past the token being delivered (`yajl_get_bytes_consumed` counts from the
    /// start of the buffer): where a stop at this event is reported. Only meaningful inside a callback.
    var eventEnd: Int {
        isCompleting ? base : base + yajl_get_bytes_consumed(handle)
    }
}

/// One event without text: recorded as `kind` while a block is recorded, else given to the handler.
@inline(__always)
private func deliver(_ ctx: UnsafeMutableRawPointer?, _ kind: RecordedEvent.Kind, _ event: JSONEvent) -> Int32 {
    // The parser owns the context for as long as yajl may call back: no retain needed.
    Unmanaged<JSONCallbackContext>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { context in
        let position = context.position
        if let block = position.pointee.recording {
            block.pointee.record(kind, end: position.pointee.eventEnd)
            return true
        }
        return context.handler.handle(event)
    } ? 1 : 0
}

/// A key, string or number: recorded with its bytes while a block is recorded, else given to the handler.
/// Straight from the callback, so a recorded event is never made a ``JSONEvent`` only to be taken apart.
@inline(__always)
private func deliver(
    _ ctx: UnsafeMutableRawPointer?, _ kind: RecordedEvent.Kind, _ text: UnsafeRawPointer?, _ count: Int
) -> Int32 {
    Unmanaged<JSONCallbackContext>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { context in
        let position = context.position
        let text = bytes(text, count)
        if let block = position.pointee.recording {
            block.pointee.record(kind, text, end: position.pointee.eventEnd)
            return true
        }
        switch kind {
        case .key: return context.handler.handle(.key(text))
        case .string: return context.handler.handle(.string(text))
        default: return context.handler.handle(.number(text))
        }
    } ? 1 : 0
}

@inline(__always)
private func bytes(_ pointer: UnsafeRawPointer?, _ count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: count == 0 ? nil : pointer, count: count)
}

/// yajl keeps the pointer it is given, so the table lives for the whole process.
private nonisolated(unsafe) let yajlCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { ctx in deliver(ctx, .null, .null) },
            yajl_boolean: { ctx, value in deliver(ctx, value != 0 ? .isTrue : .isFalse, .bool(value != 0)) },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { ctx, text, count in deliver(ctx, .number, text, count) },
            yajl_string: { ctx, text, count in deliver(ctx, .string, UnsafeRawPointer(text), count) },
            yajl_start_map: { ctx in deliver(ctx, .startObject, .startObject) },
            yajl_map_key: { ctx, text, count in deliver(ctx, .key, UnsafeRawPointer(text), count) },
            yajl_end_map: { ctx in deliver(ctx, .endObject, .endObject) },
            yajl_start_array: { ctx in deliver(ctx, .startArray, .startArray) },
            yajl_end_array: { ctx in deliver(ctx, .endArray, .endArray) }
        )
    )
    return table
}()
