internal import CJSONBlocks

/// Follows the lexical state of a JSON text across chunk boundaries, so that limits and strict text rules
/// hold before yajl sees a byte.
///
/// yajl buffers a token that spans chunks whole before calling back, accepts form feed and vertical tab
/// as whitespace, lets escaped lone surrogates, UTF-8-encoded surrogates and some overlong forms through,
/// and lets its state stack grow without bound. This scanner counts the bytes of the current string,
/// key or number, counts nesting, and checks strings strictly (RFC 8259, RFC 3629), reporting the first
/// offending byte. It does not check the grammar: that stays yajl's job, and the parser only reports a
/// ``Violation`` when yajl accepted every byte before it.
///
/// Two paths give the same answers. Whole 64-byte blocks go through bit masks (``CJSONBlocks``
/// classifies them): quotes that no escape covers toggle the in-string state by a prefix XOR, escapes and
/// multi-byte sequences are checked whole, and a block is taken at once when nothing in it needs a closer
/// look. Anything else (a rule or limit possibly broken, a sequence cut by the end of the chunk, the last
/// bytes) goes byte by byte.
struct JSONScanner {
    /// The first byte of a chunk that breaks a rule or a limit.
    struct Violation: Equatable {
        /// Index in the chunk passed to ``scan(_:)``.
        var index: Int
        var kind: JSONError.Kind
        var message: String
    }

    enum Mode: UInt8 {
        case between
        case string
        case bare
    }

    let maxTokenBytes: Int
    let maxDepth: Int
    /// The classifier this processor runs best (``CJSONBlocks``' `notes_json_wide_classifier`): 2 for
    /// AVX-512BW, 1 for AVX2, 0 for the inline SSE2, NEON or plain C one.
    let classifier = Int(notes_json_wide_classifier())

    var mode = Mode.between
    /// Bytes of the current token so far (between the quotes for a string).
    var tokenBytes = 0
    var depth = 0
    /// 0: no escape; 1: after a backslash; 2...5: reading the hex digits of `\u`.
    var escape: UInt8 = 0
    var codeUnit: UInt32 = 0
    /// An escaped high surrogate was read; the next thing in the string must be an escaped low one.
    var highSurrogatePending = false
    /// Continuation bytes still expected in a multi-byte UTF-8 sequence, and the range of the next one.
    var utf8Remaining: UInt8 = 0
    var utf8Low: UInt8 = 0x80
    var utf8High: UInt8 = 0xBF

    /// After ``scan(_:)``: where the token still open at the end of the buffer began (an index in the
    /// buffer, or -1 when it began in an earlier buffer); `nil` when no token is open.
    var openTokenStart: Int?
    /// After ``scan(_:)``: the index just past a token that began in an earlier buffer and ended in this
    /// one; `nil` when there was none.
    var carriedTokenEnd: Int?
    /// During ``scan(_:)``: where the current token began in the buffer (-1: in an earlier one).
    var tokenStart = 0

    /// Whether the text so far ends inside a string (its closing quote not yet seen).
    var isInsideString: Bool { mode == .string }

    init(maxTokenBytes: Int, maxDepth: Int) {
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
    }

    /// Scans the next chunk of the document.
    /// - Returns: The first violation in `buffer`, or `nil` when every byte is acceptable. After a
    ///   violation the scanner's state is unspecified.
    mutating func scan(_ buffer: UnsafeRawBufferPointer) -> Violation? {
        var i = 0
        let count = buffer.count
        tokenStart = mode == .between ? 0 : -1
        carriedTokenEnd = nil
        defer { openTokenStart = mode == .between ? nil : tokenStart }
        let blocks = maxTokenBytes >= 64
        while i < count {
            // Blocks while they are clean; a block that is not goes byte by byte, then blocks again.
            var limit = count
            if blocks {
                if i + 64 <= count && escape == 0 && utf8Remaining == 0 && !highSurrogatePending {
                    i = scanBlocks(buffer, from: i)
                }
                limit = min(count, i + 64)
            }
            if let violation = scanBytes(buffer, from: &i, to: limit) { return violation }
        }
        return nil
    }

    /// Scans whole 64-byte blocks from `start` (in a neutral state: no escape or UTF-8 sequence open) for as
    /// long as each block is clean: every escape and multi-byte sequence valid, whole in the buffer and in a
    /// string; no control byte, and no tab or line break in a string; a delimiter before every string; no
    /// string, number or literal over the token limit; the nesting limit out of reach. A token can only
    /// cross the limit (at least 64 here) where it crosses a block boundary, so that is where it is counted.
    /// - Returns: Where byte-by-byte scanning goes on, with the state set for that position: the start
    ///   (past any sequence begun in the block before) of the first block that is not clean, or of the
    ///   bytes after the last whole block.
    private mutating func scanBlocks(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return start }
        // The loop is CJSONBlocks' `notes_json_scan_blocks`: compiled once for each classifier, with the
        // processor's own bit counts, and with nothing called inside it.
        var state = notes_json_scan_state(
            mode: Int64(mode.rawValue), token_bytes: Int64(tokenBytes), token_start: Int64(tokenStart),
            depth: Int64(depth), carried_token_end: -1)
        let position = notes_json_scan_blocks(
            base, Int64(buffer.count), Int64(start), Int64(maxTokenBytes), Int64(maxDepth), Int32(classifier), &state)
        mode = Mode(rawValue: UInt8(state.mode))!
        depth = Int(state.depth)
        if mode != .between {
            tokenBytes = Int(state.token_bytes)
            tokenStart = Int(state.token_start)
        }
        if state.carried_token_end >= 0 { carriedTokenEnd = Int(state.carried_token_end) }
        return Int(position)
    }
}
