/// One block of ``PipelinedJSONParser``'s ring: a stretch of the document's bytes, then the events the
/// parsing thread recorded from them, for the caller's thread to replay.
///
/// A block belongs to one thread at a time, handed over under the ring's lock: the caller copies input
/// in, the parsing thread records events, the caller replays them and empties the block. Token bytes that
/// lie in the block's own input are referenced, not copied; the rest (a string yajl unescaped into its own
/// buffer, a token carried over from an earlier block) are copied into the block's arena.
///
/// Memory: `inputCapacity` bytes of input; at most one event (24 bytes) per byte of input, plus one per
/// piece and two more; an arena no larger than the input plus one carried token (`maxTokenBytes`).
@usableFromInline
struct EventBlock {
    /// One piece of the block's input.
    struct Piece {
        /// Where it ends in the input.
        var end: Int
        /// What the caller's scan found in it, for the parse stage; `nil` where the parsing thread scans.
        var scanned: ScannedPiece?
    }

    @usableFromInline let input: UnsafeMutableRawPointer
    let inputCapacity: Int
    var inputCount = 0
    /// Each piece of the input, in order: the parser is fed piece by piece, as the caller fed it.
    var pieces: [Piece] = []
    /// Whether the document ends after this block's input.
    var isLast = false

    @usableFromInline private(set) var events: UnsafeMutablePointer<RecordedEvent>
    @usableFromInline private(set) var eventCount = 0
    private var eventCapacity: Int
    @usableFromInline private(set) var arena: UnsafeMutableRawPointer
    private var arenaCount = 0
    private var arenaCapacity: Int
    /// The document's error, after the recorded events: nothing follows it.
    var failure: JSONError?

    /// What the event table and arena start at and go back to: an event per 16 bytes of input (a note's
    /// events average 11), an arena of a quarter of the input (4,096 and 16 KiB for a 64 KiB block).
    private let initialEvents: Int
    private let initialArena: Int

    init(inputCapacity: Int) {
        self.inputCapacity = inputCapacity
        input = .allocate(byteCount: inputCapacity, alignment: 16)
        initialEvents = max(64, inputCapacity / 16)
        initialArena = max(1024, inputCapacity / 4)
        eventCapacity = initialEvents
        events = .allocate(capacity: eventCapacity)
        arenaCapacity = initialArena
        arena = .allocate(byteCount: arenaCapacity, alignment: 1)
    }

    /// Frees the block's memory; the block is not used after.
    func deallocate() {
        input.deallocate()
        events.deallocate()
        arena.deallocate()
    }

    var room: Int { inputCapacity - inputCount }

    /// Bytes the block holds now (its input, events and arena as allocated).
    var allocatedBytes: Int {
        inputCapacity + eventCapacity * MemoryLayout<RecordedEvent>.stride + arenaCapacity
    }

    /// Empties the block for the next input. An event table or arena grown far past its usual size by
    /// an unusual stretch of input goes back to it, so the ring's resident size stays small.
    mutating func reset() {
        inputCount = 0
        pieces.removeAll(keepingCapacity: true)
        isLast = false
        eventCount = 0
        arenaCount = 0
        failure = nil
        if eventCapacity > 4 * initialEvents {
            events.deallocate()
            eventCapacity = initialEvents
            events = .allocate(capacity: eventCapacity)
        }
        if arenaCapacity > 4 * initialArena {
            arena.deallocate()
            arenaCapacity = initialArena
            arena = .allocate(byteCount: arenaCapacity, alignment: 1)
        }
    }

    /// Copies `bytes` in as the next piece; the caller checked ``room``.
    mutating func append(piece bytes: UnsafeRawBufferPointer, scanned: ScannedPiece?) {
        precondition(bytes.count <= room)
        if let base = bytes.baseAddress, bytes.count > 0 {
            (input + inputCount).copyMemory(from: base, byteCount: bytes.count)
        }
        inputCount += bytes.count
        pieces.append(Piece(end: inputCount, scanned: scanned))
    }

    // MARK: - Recording (the parsing thread)

    /// The records and their room, lent to the parsing thread's recorder (``YajlPosition/begin(_:)``) while
    /// it records this block, and taken back after (it may have grown them).
    var recordStorage: (events: UnsafeMutablePointer<RecordedEvent>, count: Int, capacity: Int) {
        get { (events, eventCount, eventCapacity) }
        set { (events, eventCount, eventCapacity) = newValue }
    }

    /// Copies `bytes` (a token outside the block's input) into the arena. - Returns: their offset there.
    mutating func copyToArena(_ bytes: UnsafeRawBufferPointer) -> Int {
        if arenaCapacity - arenaCount < bytes.count {
            var capacity = arenaCapacity * 2
            while capacity - arenaCount < bytes.count { capacity *= 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            grown.copyMemory(from: arena, byteCount: arenaCount)
            arena.deallocate()
            arena = grown
            arenaCapacity = capacity
        }
        let offset = arenaCount
        (arena + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        arenaCount += bytes.count
        return offset
    }

    // MARK: - Replaying (the caller's thread)

    /// The bytes of a key, string or number event.
    @inlinable @inline(__always)
    func bytes(of event: RecordedEvent) -> UnsafeRawBufferPointer {
        let count = event.count
        guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let start = event.location >= 0 ? input + event.location : arena + ~event.location
        return UnsafeRawBufferPointer(start: start, count: count)
    }
}

/// One recorded event: 24 bytes.
@usableFromInline
struct RecordedEvent {
    @usableFromInline
    enum Kind: UInt8 {
        case startObject, endObject, startArray, endArray, key, string, number, isFalse, isTrue, null
        /// Not an event: the parser's ``JSONStreamParser/offset`` after a piece of the input (in `end`).
        case pieceEnd
    }

    /// The document offset just past the token (for ``Kind/pieceEnd``, the parser's offset).
    @usableFromInline let end: Int
    /// The token's bytes: an offset into the block's input, or (negative) the complement of an offset into
    /// its arena.
    @usableFromInline let location: Int
    /// The kind in the top byte, the token's byte count below (written by `notes_json_record_at`, in C).
    @usableFromInline let packed: UInt64

    @inlinable var kind: Kind { Kind(rawValue: UInt8(truncatingIfNeeded: packed >> 56))! }
    @inlinable var count: Int { Int(packed & 0x00FF_FFFF_FFFF_FFFF) }
}
