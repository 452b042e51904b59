internal import CJSONBlocks
internal import CYajl

// Every `yajl_*` call of the project lives in this file. (The recording callbacks, in C in
// CJSONBlocks/json_record.c, call `yajl_get_bytes_consumed` through the pointer this file hands them.)

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

    /// The handle's own callbacks: yajl keeps the pointer, and a pipelined parse switches them to recording
    /// (``JSONCallbackContext/startRecording()``).
    private let callbacks: UnsafeMutablePointer<yajl_callbacks>

    /// - Parameter context: The ``JSONCallbackContext`` whose handler receives the events, and whose
    ///   position is yajl's `ctx`; it must outlive this handle.
    init(context: JSONCallbackContext) {
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: deliveringCallbacks)
        let position = context.position
        guard let handle = yajl_alloc(callbacks, nil, UnsafeMutableRawPointer(position.pointer)) else {
            fatalError("yajl_alloc failed: out of memory")
        }
        self.handle = handle
        position.pointer.pointee.handle = UnsafeMutableRawPointer(handle)
        // The same C function, its handle seen as an untyped pointer.
        position.pointer.pointee.consumed = unsafeBitCast(
            yajl_get_bytes_consumed as @convention(c) (yajl_handle?) -> Int,
            to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
        context.callbacks = callbacks
        notes_yajl_config(handle, yajl_dont_validate_strings, 1)
    }

    deinit {
        yajl_free(handle)
        callbacks.deallocate()
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

/// The object the delivering callbacks give events to, as ``JSONEvent``s, and where yajl is
/// (``position``): yajl's `ctx` is that position, which names this object.
final class JSONCallbackContext {
    let handler: any JSONEventHandler
    let position: YajlPosition

    init(handler: any JSONEventHandler) {
        self.handler = handler
        let pointer = UnsafeMutablePointer<notes_json_position>.allocate(capacity: 1)
        pointer.initialize(to: notes_json_position())
        position = YajlPosition(pointer: pointer)
        pointer.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        pointer.pointee.grow = { position in growRecords(position!) }
        pointer.pointee.copy = { position, bytes, count in
            let block = position!.pointee.owner!.assumingMemoryBound(to: EventBlock.self)
            return Int64(block.pointee.copyToArena(UnsafeRawBufferPointer(start: bytes, count: count)))
        }
    }

    deinit {
        position.pointer.deallocate()
    }

    /// The handle's own table of callbacks (yajl keeps the pointer), set by ``YajlHandle``.
    fileprivate var callbacks: UnsafeMutablePointer<yajl_callbacks>?

    /// From now on every event is recorded (in C: `json_record.h`) into the block given by
    /// ``YajlPosition/begin(_:)``, with the offset just past its token; recording never stops the parse.
    /// For the rest of the document.
    func startRecording() {
        guard let table = callbacks else { return }
        table.pointee.yajl_null = notes_json_record_null
        table.pointee.yajl_boolean = notes_json_record_boolean
        table.pointee.yajl_number = notes_json_record_number
        table.pointee.yajl_string = notes_json_record_string
        table.pointee.yajl_start_map = notes_json_record_start_map
        table.pointee.yajl_map_key = notes_json_record_key
        table.pointee.yajl_end_map = notes_json_record_end_map
        table.pointee.yajl_start_array = notes_json_record_start_array
        table.pointee.yajl_end_array = notes_json_record_end_array
    }
}

/// Where the buffer yajl is parsing lies in the document, and where a pipelined parse records its events:
/// a view of the C struct yajl's callbacks read (`notes_json_position`), so that recording, on the
/// parsing thread, runs in C and never through a Swift closure.
struct YajlPosition {
    let pointer: UnsafeMutablePointer<notes_json_position>

    /// Document offset of the first byte of the buffer yajl is parsing; while ``isCompleting``, the
    /// document's length.
    var base: Int {
        get { Int(pointer.pointee.base) }
        nonmutating set { pointer.pointee.base = Int64(newValue) }
    }

    /// Whether yajl is completing the document (`yajl_complete_parse` parses a buffer of its own).
    var isCompleting: Bool {
        get { pointer.pointee.completing != 0 }
        nonmutating set { pointer.pointee.completing = newValue ? 1 : 0 }
    }

    /// The document offset just past the token yajl is calling back for, on the thread that parses (the
    /// recording callbacks' rule, `notes_json_token_end`).
    var tokenEnd: Int { Int(notes_json_token_end(pointer)) }

    /// Records into `block` (the parsing thread's, until ``end(_:)``).
    func begin(_ block: UnsafeMutablePointer<EventBlock>) {
        let storage = block.pointee.recordStorage
        pointer.pointee.records = UnsafeMutableRawPointer(storage.events).assumingMemoryBound(
            to: notes_json_record.self)
        pointer.pointee.count = Int64(storage.count)
        pointer.pointee.capacity = Int64(storage.capacity)
        pointer.pointee.input = UnsafePointer(block.pointee.input.assumingMemoryBound(to: UInt8.self))
        pointer.pointee.input_count = Int64(block.pointee.inputCount)
        pointer.pointee.owner = UnsafeMutableRawPointer(block)
    }

    /// Gives `block` its records back.
    func end(_ block: UnsafeMutablePointer<EventBlock>) {
        block.pointee.recordStorage = (
            UnsafeMutableRawPointer(pointer.pointee.records).assumingMemoryBound(to: RecordedEvent.self),
            Int(pointer.pointee.count), Int(pointer.pointee.capacity)
        )
        pointer.pointee.owner = nil
    }

    /// Records `kind`, with no bytes, ending at `end` (a piece's end) into the block being recorded.
    func record(_ kind: RecordedEvent.Kind, end: Int) {
        notes_json_record_at(pointer, Int32(kind.rawValue), Int64(end), nil, 0)
    }
}

/// Twice the room for the block's records.
private func growRecords(_ position: UnsafeMutablePointer<notes_json_position>) {
    let count = Int(position.pointee.count)
    let capacity = Int(position.pointee.capacity) * 2
    let grown = UnsafeMutablePointer<notes_json_record>.allocate(capacity: capacity)
    grown.moveInitialize(from: position.pointee.records, count: count)
    position.pointee.records.deallocate()
    position.pointee.records = grown
    position.pointee.capacity = Int64(capacity)
}

/// The context of a delivering callback.
@inline(__always)
private func context(_ ctx: UnsafeMutableRawPointer?) -> Unmanaged<JSONCallbackContext> {
    Unmanaged<JSONCallbackContext>.fromOpaque(ctx!.assumingMemoryBound(to: notes_json_position.self).pointee.context!)
}

/// One event to the handler. The parser owns the context for as long as yajl may call back: no retain.
@inline(__always)
private func deliver(_ ctx: UnsafeMutableRawPointer?, _ event: JSONEvent) -> Int32 {
    context(ctx)._withUnsafeGuaranteedRef { $0.handler.handle(event) } ? 1 : 0
}

@inline(__always)
private func bytes(_ pointer: UnsafeRawPointer?, _ count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: count == 0 ? nil : pointer, count: count)
}

/// The callbacks that give each event to the handler; each handle starts with a copy of them.
private let deliveringCallbacks = yajl_callbacks(
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
