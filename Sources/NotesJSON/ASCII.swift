/// Byte-level tests on ASCII text, shared by the scanner, the compact writer and the URL code, so that
/// each rule is written once.
package enum ASCII {
    /// The value of a hex digit, or `nil` for any other byte.
    @inlinable @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The index of the first byte at or after `start` that a JSON string cannot hold as it is (a control
    /// byte, `"` or `\\`), or with `nonASCII` any byte of 0x80 or more as well; `text.count` if there is
    /// none. Eight bytes at a time: the lowest flagged byte is exact (borrows only flag bytes above a true
    /// match).
    @inlinable @inline(__always)
    package static func plainRun(_ text: UnsafeRawBufferPointer, from start: Int, nonASCII: Bool) -> Int {
        let count = text.count
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let high = nonASCII ? UInt64.max : 0
        while index + 8 <= count {
            let word = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // A byte is flagged if it is below 0x20, equals '"' or '\\', or (with `nonASCII`) has its high bit.
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((word & high) | control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
            if special != 0 { return index + (special.trailingZeroBitCount >> 3) }
            index += 8
        }
        while index < count {
            let byte = text[index]
            if byte < 0x20 || (nonASCII && byte >= 0x80) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                break
            }
            index += 1
        }
        return index
    }
}
