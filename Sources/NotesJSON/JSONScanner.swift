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

    private enum Mode: UInt8 {
        case between
        case string
        case bare
    }

    let maxTokenBytes: Int
    let maxDepth: Int

    private var mode = Mode.between
    /// Bytes of the current token so far (between the quotes for a string).
    private var tokenBytes = 0
    private var depth = 0
    /// 0: no escape; 1: after a backslash; 2...5: reading the hex digits of `\u`.
    private var escape: UInt8 = 0
    private var codeUnit: UInt32 = 0
    /// An escaped high surrogate was read; the next thing in the string must be an escaped low one.
    private var highSurrogatePending = false
    /// Continuation bytes still expected in a multi-byte UTF-8 sequence, and the range of the next one.
    private var utf8Remaining: UInt8 = 0
    private var utf8Low: UInt8 = 0x80
    private var utf8High: UInt8 = 0xBF

    /// After ``scan(_:)``: where the token still open at the end of the buffer began (an index in the
    /// buffer, or -1 when it began in an earlier buffer); `nil` when no token is open.
    private(set) var openTokenStart: Int?
    /// After ``scan(_:)``: the index just past a token that began in an earlier buffer and ended in this
    /// one; `nil` when there was none.
    private(set) var carriedTokenEnd: Int?
    /// During ``scan(_:)``: where the current token began in the buffer (-1: in an earlier one).
    private var tokenStart = 0

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
            let block = notes_json_classify(base + i)
            let keep = ~UInt64(0) << UInt64(skip)

            // Escapes and multi-byte sequences, checked whole; what they cover is masked out.
            var sequences = (block.backslash | block.high) & keep
            var starts: UInt64 = 0
            var escapedQuotes: UInt64 = 0
            var nextSkip = 0
            while sequences != 0 {
                let position = sequences.trailingZeroBitCount
                let at = i + position
                let length: Int
                if buffer[at] == UInt8(ascii: "\\") {
                    length = Self.escapeLength(buffer, at: at)
                    if length == 0 { return i + skip }
                    if buffer[at + 1] == UInt8(ascii: "\"") { escapedQuotes |= 2 << UInt64(position) }
                } else {
                    length = Self.utf8Length(buffer, at: at)
                    if length == 0 { return i + skip }
                }
                starts |= 1 << UInt64(position)
                let end = position + length
                if end >= 64 {
                    nextSkip = end - 64
                    break
                }
                sequences &= ~UInt64(0) << UInt64(end)
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
                starts & ~inside == 0 && block.control == 0 && block.space & inside == 0
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

    /// Scans byte by byte from `i` to `limit` (or a little past it, to the end of a sequence).
    private mutating func scanBytes(_ buffer: UnsafeRawBufferPointer, from i: inout Int, to count: Int) -> Violation? {
        while i < count {
            switch mode {
            case .string:
                if let violation = scanString(buffer, from: &i, to: count) { return violation }
                if mode == .between && tokenStart < 0 { carriedTokenEnd = i }
            case .bare:
                // A number or literal runs to the next delimiter.
                var j = i
                while j < count && !Self.endsBareToken(buffer[j]) { j += 1 }
                if tokenBytes + (j - i) > maxTokenBytes { return tokenTooLong(at: i + (maxTokenBytes - tokenBytes)) }
                tokenBytes += j - i
                i = j
                guard i < count else { break }
                if buffer[i] == UInt8(ascii: "\"") {
                    // Never valid JSON; caught here so that yajl never sees a number cut from the byte that
                    // ends it.
                    return Violation(index: i, kind: .syntax, message: "a string right after a number or literal")
                }
                mode = .between
                // yajl needs the byte after a number to know it has ended: it goes with the token.
                if tokenStart < 0 { carriedTokenEnd = i + 1 }
            case .between:
                while i < count {
                    let byte = buffer[i]
                    switch byte {
                    case UInt8(ascii: "\""):
                        mode = .string
                        tokenBytes = 0
                        tokenStart = i
                        i += 1
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        depth += 1
                        if depth > maxDepth {
                            return Violation(
                                index: i,
                                kind: .limitExceeded(.depth(maxDepth)),
                                message: "nesting deeper than \(maxDepth) levels"
                            )
                        }
                        i += 1
                        continue
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        depth -= 1
                        i += 1
                        continue
                    case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"),
                        UInt8(ascii: ","), UInt8(ascii: ":"):
                        i += 1
                        continue
                    case 0..<0x20:
                        return Violation(
                            index: i,
                            kind: .invalidText,
                            message: "control character \(Self.hex(byte)) between tokens"
                        )
                    default:
                        mode = .bare
                        tokenBytes = 0
                        tokenStart = i
                    }
                    break
                }
            }
        }
        return nil
    }

    /// Scans string bytes from `i` up to the closing quote or the end of the buffer.
    @inline(__always)
    private mutating func scanString(_ buffer: UnsafeRawBufferPointer, from i: inout Int, to count: Int) -> Violation? {
        while i < count {
            // Fast path: a run of complete, valid characters and escapes, ASCII eight bytes at a time.
            if escape == 0 && utf8Remaining == 0 && !highSurrogatePending {
                let j = Self.validRun(buffer, from: i)
                let run = j - i
                if run > 0 {
                    if tokenBytes + run > maxTokenBytes { return tokenTooLong(at: i + (maxTokenBytes - tokenBytes)) }
                    tokenBytes += run
                    i = j
                    if i >= count { return nil }
                }
            }

            let byte = buffer[i]
            if utf8Remaining > 0 {
                guard byte >= utf8Low && byte <= utf8High else { return invalid(at: i, "invalid UTF-8 in string") }
                utf8Remaining -= 1
                utf8Low = 0x80
                utf8High = 0xBF
            } else if escape == 1 {
                switch byte {
                case UInt8(ascii: "u"):
                    escape = 2
                    codeUnit = 0
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    if highSurrogatePending { return invalid(at: i, "unpaired surrogate escape in string") }
                    escape = 0
                default:
                    return invalid(at: i, "invalid escape in string")
                }
            } else if escape > 1 {
                guard let digit = Self.hexValue(byte) else { return invalid(at: i, "invalid \\u escape in string") }
                codeUnit = codeUnit << 4 | UInt32(digit)
                escape += 1
                if escape == 6 {
                    escape = 0
                    switch codeUnit {
                    case 0xD800...0xDBFF:
                        if highSurrogatePending { return invalid(at: i, "unpaired surrogate escape in string") }
                        highSurrogatePending = true
                    case 0xDC00...0xDFFF:
                        if !highSurrogatePending { return invalid(at: i, "unpaired surrogate escape in string") }
                        highSurrogatePending = false
                    default:
                        if highSurrogatePending { return invalid(at: i, "unpaired surrogate escape in string") }
                    }
                }
            } else if byte == UInt8(ascii: "\"") {
                if highSurrogatePending { return invalid(at: i, "unpaired surrogate escape in string") }
                mode = .between
                i += 1
                return nil
            } else if byte == UInt8(ascii: "\\") {
                escape = 1
            } else if highSurrogatePending {
                return invalid(at: i, "unpaired surrogate escape in string")
            } else if byte < 0x20 {
                return invalid(at: i, "control character \(Self.hex(byte)) in string")
            } else {
                guard let lead = Self.utf8Lead(byte) else { return invalid(at: i, "invalid UTF-8 in string") }
                (utf8Remaining, utf8Low, utf8High) = (lead.continuations, lead.low, lead.high)
            }
            tokenBytes += 1
            if tokenBytes > maxTokenBytes { return tokenTooLong(at: i) }
            i += 1
        }
        return nil
    }

    /// The index of the first byte at or after `start` that does not begin a complete, valid piece of
    /// string content lying wholly in the buffer: printable ASCII, a well-formed UTF-8 sequence (RFC 3629),
    /// a two-byte escape, or a `\u` escape (a surrogate only as a high-low pair). Whatever stops the run
    /// (a quote, a control byte, a cut or invalid sequence) is left to the byte-by-byte path, which reports
    /// errors at the exact byte.
    @inline(__always)
    private static func validRun(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = buffer.count
        var j = start
        while true {
            j = plainRun(buffer, from: j)
            guard j < count else { return j }
            let byte = buffer[j]
            if byte >= 0xC2 {
                let length = utf8Length(buffer, at: j)
                if length == 0 { return j }
                j += length
            } else if byte == UInt8(ascii: "\\") {
                let length = escapeLength(buffer, at: j)
                if length == 0 { return j }
                j += length
            } else {
                return j
            }
        }
    }

    /// What a lead byte of a multi-byte UTF-8 sequence asks of the bytes after it (RFC 3629, table 3-7 of
    /// Unicode): how many continuation bytes, and the range of the first; `nil` when it cannot lead one.
    @inline(__always)
    private static func utf8Lead(_ byte: UInt8) -> (continuations: UInt8, low: UInt8, high: UInt8)? {
        switch byte {
        case 0xC2...0xDF: return (1, 0x80, 0xBF)
        case 0xE0: return (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: return (2, 0x80, 0xBF)
        case 0xED: return (2, 0x80, 0x9F)
        case 0xF0: return (3, 0x90, 0xBF)
        case 0xF1...0xF3: return (3, 0x80, 0xBF)
        case 0xF4: return (3, 0x80, 0x8F)
        default: return nil
        }
    }

    /// The length of the valid UTF-8 sequence whose lead byte (0xC2 or more) is at `i`, or 0 when it is
    /// invalid or cut by the end of the buffer.
    @inline(__always)
    private static func utf8Length(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
        let count = buffer.count
        guard let lead = utf8Lead(buffer[i]) else { return 0 }
        let (length, low, high) = (Int(lead.continuations) + 1, lead.low, lead.high)
        guard i + length <= count else { return 0 }
        let second = buffer[i + 1]
        guard second >= low && second <= high else { return 0 }
        for k in 2..<length where buffer[i + k] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// The length of the valid escape at `i` (a backslash): 2, 6 for `\uXXXX`, or 12 for a surrogate
    /// pair; 0 when it is invalid, a lone surrogate, or cut by the end of the buffer.
    @inline(__always)
    private static func escapeLength(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
        let count = buffer.count
        guard i + 1 < count else { return 0 }
        switch buffer[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return 2
        case UInt8(ascii: "u"):
            guard let unit = codeUnit(buffer, at: i) else { return 0 }
            switch unit {
            case 0xD800...0xDBFF:
                guard i + 7 < count, buffer[i + 6] == UInt8(ascii: "\\"), buffer[i + 7] == UInt8(ascii: "u"),
                    let low = codeUnit(buffer, at: i + 6), (0xDC00...0xDFFF).contains(low)
                else { return 0 }
                return 12
            case 0xDC00...0xDFFF:
                return 0
            default:
                return 6
            }
        default:
            return 0
        }
    }

    /// The code unit of the `\uXXXX` escape at `i`, or `nil` when a digit is not hex or the buffer ends.
    @inline(__always)
    private static func codeUnit(_ buffer: UnsafeRawBufferPointer, at i: Int) -> UInt32? {
        guard i + 6 <= buffer.count else { return nil }
        var unit: UInt32 = 0
        for k in 2..<6 {
            guard let digit = hexValue(buffer[i + k]) else { return nil }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    /// The index of the first byte at or after `start` that is not plain printable ASCII inside a
    /// string: a control byte, a byte of 0x80 or more, `"` or `\\`; `buffer.count` if there is none.
    @inline(__always)
    private static func plainRun(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = buffer.count
        var j = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while j + 8 <= count {
            let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            // A byte is special if its high bit is set, if it is below 0x20, or if it equals '"' or '\\'.
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = (word | control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
            if special != 0 { return j + (special.trailingZeroBitCount >> 3) }
            j += 8
        }
        while j < count {
            let byte = buffer[j]
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            j += 1
        }
        return j
    }

    private func tokenTooLong(at index: Int) -> Violation {
        let what = mode == .string ? "string" : "number or literal"
        return Violation(
            index: index,
            kind: .limitExceeded(.tokenBytes(maxTokenBytes)),
            message: "\(what) longer than \(maxTokenBytes) bytes"
        )
    }

    private func invalid(at index: Int, _ message: String) -> Violation {
        Violation(index: index, kind: .invalidText, message: message)
    }

    /// Whether `byte` ends a number or literal: whitespace or control, `,`, `:`, `"`, or a bracket.
    @inline(__always)
    private static func endsBareToken(_ byte: UInt8) -> Bool {
        let folded = byte | 0x20  // [ and { fold to {, ] and } to }
        return byte <= 0x20 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\"")
            || folded == UInt8(ascii: "{") || folded == UInt8(ascii: "}")
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
