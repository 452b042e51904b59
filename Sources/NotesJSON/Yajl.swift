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
/// once a recorder is set (``PipelinedJSONParser``), to the recorder.
final class JSONCallbackContext {
    let handler: any JSONEventHandler
    /// Where yajl is in the document, and the recorder if any. Behind a pointer, not in stored `var`s: a
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
    /// Receives the events instead of the handler when set; kept alive by its owner.
    var recorder: Unmanaged<EventRecorder>?

    /// The document offset just past the token being delivered (`yajl_get_bytes_consumed` counts from the
    /// start of the buffer): where a stop at this event is reported. Only meaningful inside a callback.
    var eventEnd: Int {
        isCompleting ? base : base + yajl_get_bytes_consumed(handle)
    }
}

@inline(__always)
private func deliver(_ ctx: UnsafeMutableRawPointer?, _ event: JSONEvent) -> Int32 {
    // The parser owns the context for as long as yajl may call back: no retain needed.
    Unmanaged<JSONCallbackContext>.fromOpaque(ctx!)._withUnsafeGuaranteedRef { context in
        if let recorder = context.position.pointee.recorder {
            return recorder._withUnsafeGuaranteedRef { $0.handle(event) }
        }
        return context.handler.handle(event)
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
            yajl_null: { ctx in deliver(ctx, .null) },
            yajl_boolean: { ctx, value in deliver(ctx, .bool(value != 0)) },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { ctx, text, count in deliver(ctx, .number(bytes(text, count))) },
            yajl_string: { ctx, text, count in deliver(ctx, .string(bytes(text, count))) },
            yajl_start_map: { ctx in deliver(ctx, .startObject) },
            yajl_map_key: { ctx, text, count in deliver(ctx, .key(bytes(text, count))) },
            yajl_end_map: { ctx in deliver(ctx, .endObject) },
            yajl_start_array: { ctx in deliver(ctx, .startArray) },
            yajl_end_array: { ctx in deliver(ctx, .endArray) }
        )
    )
    return table
}()
