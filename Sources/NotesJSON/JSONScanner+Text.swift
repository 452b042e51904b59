// Strict text: UTF-8 sequences (RFC 3629), escapes and surrogate pairs (RFC 8259), and the violations
// the scanner reports.

extension JSONScanner {
    /// The index of the first byte at or after `start` that does not begin a complete, valid piece of
    /// string content lying wholly in the buffer: printable ASCII, a well-formed UTF-8 sequence (RFC 3629),
    /// a two-byte escape, or a `\u` escape (a surrogate only as a high-low pair). Whatever stops the run
    /// (a quote, a control byte, a cut or invalid sequence) is left to the byte-by-byte path, which reports
    /// errors at the exact byte.
    @inline(__always)
    static func validRun(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = buffer.count
        var j = start
        while true {
            j = ASCII.plainRun(buffer, from: j, nonASCII: true)
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
    static func utf8Lead(_ byte: UInt8) -> (continuations: UInt8, low: UInt8, high: UInt8)? {
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
    static func utf8Length(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
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
    static func escapeLength(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
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
    static func codeUnit(_ buffer: UnsafeRawBufferPointer, at i: Int) -> UInt32? {
        guard i + 6 <= buffer.count else { return nil }
        var unit: UInt32 = 0
        for k in 2..<6 {
            guard let digit = ASCII.hexValue(buffer[i + k]) else { return nil }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    func tokenTooLong(at index: Int) -> Violation {
        let what = mode == .string ? "string" : "number or literal"
        return Violation(
            index: index,
            kind: .limitExceeded(.tokenBytes(maxTokenBytes)),
            message: "\(what) longer than \(maxTokenBytes) bytes"
        )
    }

    func invalid(at index: Int, _ message: String) -> Violation {
        Violation(index: index, kind: .invalidText, message: message)
    }

    /// Whether `byte` ends a number or literal: whitespace or control, `,`, `:`, `"`, or a bracket.
    @inline(__always)
    static func endsBareToken(_ byte: UInt8) -> Bool {
        let folded = byte | 0x20  // [ and { fold to {, ] and } to }
        return byte <= 0x20 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\"")
            || folded == UInt8(ascii: "{") || folded == UInt8(ascii: "}")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
