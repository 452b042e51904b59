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
