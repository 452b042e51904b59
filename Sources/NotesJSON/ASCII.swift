/// Byte-level tests on ASCII text, shared by the scanner, the compact writer and the URL code, so that
/// each rule is written once.
///
/// Public, with inlinable members, only so that other modules (the compact writer's) can inline them:
/// members of `package` types are not inlined across modules.
public enum ASCII {
    /// The value of a hex digit, or `nil` for any other byte.
    @inlinable @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The index of the first byte at or after `start` that a JSON string cannot hold as it is (a control
    /// byte, `"` or `\\`), or with `nonASCII` any byte of 0x80 or more as well; `text.count` if there is
    /// none. Eight bytes at a time, the last few too (copied into a word padded with a byte nothing flags):
    /// most strings and keys are shorter than eight bytes. The lowest flagged byte is exact (borrows only
    /// flag bytes above a true match).
    @inlinable @inline(__always)
    public static func plainRun(_ text: UnsafeRawBufferPointer, from start: Int, nonASCII: Bool) -> Int {
        let count = text.count
        var index = start
        while index + 8 <= count {
            let word = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let special = flagged(word, nonASCII: nonASCII)
            if special != 0 { return index + (special.trailingZeroBitCount >> 3) }
            index += 8
        }
        guard index < count else { return count }
        let remaining = count - index
        var word: UInt64 = 0x4141_4141_4141_4141  // "AAAAAAAA"
        var at = index
        var shift: UInt64 = 0
        func place(_ bytes: UInt64, width: UInt64) {
            word = word & ~((1 << width &- 1) << shift) | bytes << shift
            shift += width
        }
        if remaining & 4 != 0 {
            place(UInt64(UInt32(littleEndian: text.loadUnaligned(fromByteOffset: at, as: UInt32.self))), width: 32)
            at += 4
        }
        if remaining & 2 != 0 {
            place(UInt64(UInt16(littleEndian: text.loadUnaligned(fromByteOffset: at, as: UInt16.self))), width: 16)
            at += 2
        }
        if remaining & 1 != 0 { place(UInt64(text[at]), width: 8) }
        let special = flagged(word, nonASCII: nonASCII)
        return special != 0 ? index + (special.trailingZeroBitCount >> 3) : count
    }

    /// The high bit of each byte of `word` (little-endian) that is below 0x20, `"` or `\\`, or with
    /// `nonASCII` 0x80 or more; exact for the lowest such byte.
    @inlinable @inline(__always)
    public static func flagged(_ word: UInt64, nonASCII: Bool) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let high = nonASCII ? UInt64.max : 0
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return ((word & high) | control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
    }
}
