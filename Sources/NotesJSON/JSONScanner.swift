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
        let count = buffer.count
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return start }
        var i = start
        /// Bytes at the start of this block that belong to a sequence checked in the block before.
        var skip = 0
        /// Where the current token's bytes begin (after the quote for a string); negative in an earlier buffer.
        var tokenBegin = start - tokenBytes
        var carried = mode != .between && tokenStart < 0
        var previousIsDelimiter = start > 0 ? Self.endsBareToken(buffer[start - 1]) : mode != .bare
        defer {
            let position = i + skip
            if mode != .between {
                tokenBytes = position - tokenBegin
                tokenStart = carried ? -1 : mode == .string ? tokenBegin - 1 : tokenBegin
            }
        }
        while i + 64 <= count {
            let block =
                switch classifier {
                case 2: notes_json_classify_avx512(base + i)
                case 1: notes_json_classify_avx2(base + i)
                default: notes_json_classify_narrow(base + i)
                }
            let keep = ~UInt64(0) << UInt64(skip)

            // Escapes, checked whole; what they cover is masked out. `stringOnly`: their starts and the
            // non-ASCII bytes, which only a string may hold.
            var escapes = block.backslash & keep
            var stringOnly: UInt64 = 0
            var escapedQuotes: UInt64 = 0
            var nextSkip = 0
            while escapes != 0 {
                let position = escapes.trailingZeroBitCount
                let at = i + position
                let length = Self.escapeLength(buffer, at: at)
                if length == 0 { return i + skip }
                if buffer[at + 1] == UInt8(ascii: "\"") { escapedQuotes |= 2 << UInt64(position) }
                stringOnly |= 1 << UInt64(position)
                let end = position + length
                if end >= 64 {
                    nextSkip = end - 64
                    break
                }
                escapes &= ~UInt64(0) << UInt64(end)
            }
            // Multi-byte sequences, by the block's UTF-8 masks; one that runs into the next block is checked
            // whole here, and its bytes there skipped.
            let high = block.high & keep
            if high != 0 {
                let utf8 =
                    switch classifier {
                    case 2: notes_json_utf8_avx512(base + i)
                    case 1: notes_json_utf8_avx2(base + i)
                    default: notes_json_utf8_narrow(base + i)
                    }
                if utf8.error & keep != 0 { return i + skip }
                if utf8.open != 0 {
                    let position = utf8.open.trailingZeroBitCount
                    let length = Self.utf8Length(buffer, at: i + position)
                    if length == 0 { return i + skip }
                    nextSkip = position + length - 64
                }
                stringOnly |= high
            }

            // Bit k of `inside`: byte k is in a string (its opening quote included, its closing one not).
            let quotes = block.quote & keep & ~escapedQuotes
            var inside = quotes
            inside ^= inside << 1
            inside ^= inside << 2
            inside ^= inside << 4
            inside ^= inside << 8
            inside ^= inside << 16
            inside ^= inside << 32
            if mode == .string { inside = ~inside }
            let opening = quotes & inside
            let closing = quotes & ~inside
            let bare = ~block.delimiter & ~inside
            let opens = block.open & ~inside
            let clean =
                stringOnly & ~inside == 0 && block.control == 0 && block.space & inside == 0
                && opening & ~(block.delimiter << 1 | (previousIsDelimiter ? 1 : 0)) == 0
                && depth + opens.nonzeroBitCount <= maxDepth
            guard clean else { return i + skip }

            // The token open at the start of the block: where it ends, and whether it stayed under the limit.
            var ended: Int?
            switch mode {
            case .string where closing != 0:
                ended = i + closing.trailingZeroBitCount
                if ended! - tokenBegin > maxTokenBytes { return i + skip }
                ended! += 1
            case .bare where ~bare != 0:
                let delimiter = i + (~bare).trailingZeroBitCount
                if delimiter - tokenBegin > maxTokenBytes { return i + skip }
                ended = delimiter + 1  // yajl needs the byte after a number: it goes with the token
            default:
                break
            }
            // The token open at the end of the block.
            var newMode = Mode.between
            var newBegin = tokenBegin
            if inside >> 63 != 0 {
                newMode = .string
                if opening != 0 { newBegin = i + 64 - opening.leadingZeroBitCount }
            } else if bare >> 63 != 0 {
                newMode = .bare
                let run = (~bare).leadingZeroBitCount
                if run < 64 || mode != .bare { newBegin = i + 64 - run }
            }
            // (A sequence running into the next block counts here: the next block may never come.)
            if newMode != .between && i + 64 + nextSkip - newBegin > maxTokenBytes { return i + skip }

            // The block is clean: take its state.
            if carried, let ended {
                carriedTokenEnd = ended
                carried = false
            }
            depth += opens.nonzeroBitCount - (block.close & ~inside).nonzeroBitCount
            mode = newMode
            tokenBegin = newBegin
            previousIsDelimiter = block.delimiter >> 63 != 0
            skip = nextSkip
            i += 64
        }
        return i + skip
    }
}
