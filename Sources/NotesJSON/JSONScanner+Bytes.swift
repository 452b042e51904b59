// The byte-by-byte path: what a block cannot take at once, a token cut by a chunk's end, the last bytes.

extension JSONScanner {
    /// Scans byte by byte from `i` to `limit` (or a little past it, to the end of a sequence).
    mutating func scanBytes(_ buffer: UnsafeRawBufferPointer, from i: inout Int, to count: Int) -> Violation? {
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
    mutating func scanString(_ buffer: UnsafeRawBufferPointer, from i: inout Int, to count: Int) -> Violation? {
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
                guard let digit = ASCII.hexValue(byte) else { return invalid(at: i, "invalid \\u escape in string") }
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
}
