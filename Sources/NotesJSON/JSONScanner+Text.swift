// Strict text: UTF-8 sequences (RFC 3629), escapes and surrogate pairs (RFC 8259), and the violations
// the scanner reports.

internal import CJSONBlocks

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

    // The rules themselves are CJSONBlocks' (`json_blocks.h`), which the loop over whole blocks inlines:
    // one reading of them for both paths.

    /// What a lead byte of a multi-byte UTF-8 sequence asks of the bytes after it (RFC 3629, table 3-7 of
    /// Unicode): how many continuation bytes, and the range of the first; `nil` when it cannot lead one.
    @inline(__always)
    static func utf8Lead(_ byte: UInt8) -> (continuations: UInt8, low: UInt8, high: UInt8)? {
        var (low, high): (UInt8, UInt8) = (0, 0)
        let continuations = notes_json_utf8_lead(byte, &low, &high)
        return continuations == 0 ? nil : (UInt8(continuations), low, high)
    }

    /// The length of the valid UTF-8 sequence whose lead byte (0xC2 or more) is at `i`, or 0 when it is
    /// invalid or cut by the end of the buffer.
    @inline(__always)
    static func utf8Length(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
        Int(
            notes_json_utf8_length(
                buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int64(buffer.count), Int64(i)))
    }

    /// The length of the valid escape at `i` (a backslash): 2, 6 for `\uXXXX`, or 12 for a surrogate
    /// pair; 0 when it is invalid, a lone surrogate, or cut by the end of the buffer.
    @inline(__always)
    static func escapeLength(_ buffer: UnsafeRawBufferPointer, at i: Int) -> Int {
        Int(
            notes_json_escape_length(
                buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int64(buffer.count), Int64(i)))
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
        notes_json_ends_bare_token(byte) != 0
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
