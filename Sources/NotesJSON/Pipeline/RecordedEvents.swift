/// The events of one block the parsing thread recorded, for a handler that replays them itself
/// (``BlockEventHandler``): its own loop over them, compiled with its own `handle`, calls no function per
/// event through an existential.
///
/// Public, with inlinable members, only so that the handler's module can inline them: members of
/// `package` types are not inlined across modules.
public struct RecordedEvents {
    @usableFromInline let block: UnsafeMutablePointer<EventBlock>

    init(_ block: UnsafeMutablePointer<EventBlock>) {
        self.block = block
    }

    /// The number of recorded entries: events, and the ends of pieces (which ``subscript(_:)`` skips).
    @inlinable
    public var count: Int { block.pointee.eventCount }

    /// The document offset just past entry `index`'s token.
    @inlinable
    public func end(_ index: Int) -> Int {
        block.pointee.events[index].end
    }

    /// What entry `index` does to the document's nesting, read from its kind alone: enough for a handler
    /// that passes over a stretch of the document (``Shape``).
    @inlinable @inline(__always)
    public func shape(_ index: Int) -> Shape {
        switch block.pointee.events[index].kind {
        case .startObject, .startArray: return .open
        case .endObject, .endArray: return .close
        case .key: return .key
        case .string, .number, .isFalse, .isTrue, .null: return .scalar
        case .pieceEnd: return .pieceEnd
        }
    }

    /// The byte count of entry `index`'s token: a key's, a string's or a number's as it would be handled
    /// (after unescaping), 0 for other events.
    @inlinable @inline(__always)
    public func byteCount(_ index: Int) -> Int {
        block.pointee.events[index].count
    }

    /// An entry as a handler passing over it sees it: a container opening or closing, a key, a scalar
    /// value, or the end of a piece (no event).
    public enum Shape {
        case open, close, key, scalar, pieceEnd
    }

    /// Entry `index` as an event, with whether its text had no escape in the document (what
    /// ``JSONEventHandler/handle(plainText:)`` is told); `nil` for the end of a piece, which is no event.
    @inlinable
    public subscript(index: Int) -> (event: JSONEvent, plainText: Bool)? {
        @inline(__always) get {
            let recorded = block.pointee.events[index]
            let event: JSONEvent
            switch recorded.kind {
            case .startObject: event = .startObject
            case .endObject: event = .endObject
            case .startArray: event = .startArray
            case .endArray: event = .endArray
            case .key: event = .key(block.pointee.bytes(of: recorded))
            case .string: event = .string(block.pointee.bytes(of: recorded))
            case .number: event = .number(block.pointee.bytes(of: recorded))
            case .isFalse: event = .bool(false)
            case .isTrue: event = .bool(true)
            case .null: event = .null
            case .pieceEnd: return nil
            }
            // A key or string in the block's own input is the document's bytes: yajl unescapes into a
            // buffer of its own, so it had no escape.
            return (event, recorded.location >= 0 && (recorded.kind == .key || recorded.kind == .string))
        }
    }
}

/// A handler that takes a parsed block's events at once (``handle(recorded:)``), as ``handle(_:)`` and
/// ``handle(plainText:)`` would take them one by one: what a pipelined parse hands it, where a parse on one
/// thread calls back per event.
package protocol BlockEventHandler: JSONEventHandler {
    /// Handles `events` in order, exactly as the per-event calls would.
    /// - Returns: The index of the event it stopped at (its per-event call would have returned `false`),
    ///   or `nil`.
    func handle(recorded events: RecordedEvents) -> Int?
}
