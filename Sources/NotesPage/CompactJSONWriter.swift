/// Writes JSON events back out as compact JSON text, strings re-escaped, numbers as written.
struct CompactJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the current container already holds a member, for each open container.
    private var hasMember: [Bool] = []
    private var current = false
    private var afterKey = false

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        hasMember.removeAll(keepingCapacity: true)
        current = false
        afterKey = false
    }

    mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        hasMember.append(current)
        current = false
    }

    mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        current = hasMember.removeLast()
    }

    mutating func key(_ key: UnsafeRawBufferPointer) {
        if current { bytes.append(UInt8(ascii: ",")) }
        current = true
        string(key)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func value(string: UnsafeRawBufferPointer) {
        separate()
        self.string(string)
    }

    mutating func value(raw: UnsafeRawBufferPointer) {
        separate()
        bytes.append(contentsOf: raw)
    }

    mutating func value(literal: StaticString) {
        separate()
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else {
            if current { bytes.append(UInt8(ascii: ",")) }
            current = true
        }
    }

    /// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, … or `\u00XX`.
    private mutating func string(_ text: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if start < index { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[start..<index])) }
            start = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                let digits: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(digits.utf8Start[Int(byte >> 4)])
                bytes.append(digits.utf8Start[Int(byte & 0xF)])
            }
        }
        if start < text.count { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[start...])) }
        bytes.append(UInt8(ascii: "\""))
    }
}
