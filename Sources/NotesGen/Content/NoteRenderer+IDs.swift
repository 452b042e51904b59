// A note's id: a string or an integer, drawn from the note's own stream, written into the renderer's id
// buffer as its JSON.

extension NoteRenderer {
    /// Fills the id buffers with note `index`'s id: base 36, then a suffix of one of six kinds; for integer
    /// ids, the digits of ``IntegerIDs/id(seed:note:)`` once the string id has been drawn all the same.
    func makeID(index: Int, random: inout SplitMix64) {
        makeStringID(index: index, random: &random)
        if idKind == .int {
            idJSONCount = 0
            idTextCount = 0
            appendID(IntegerIDs.id(seed: seed, note: index), radix: 10)
        }
    }

    /// Fills the id buffers with note `index`'s string id.
    func makeStringID(index: Int, random: inout SplitMix64) {
        idJSONCount = 0
        idTextCount = 0
        appendID(UInt64(index), radix: 36)
        switch random.next(below: 100) {
        case ..<35:  // -xY3kq9: random alphanumerics
            appendID(byte: UInt8(ascii: "-"))
            let letters = words.alphanumerics[0]
            for _ in 0..<(4 + random.next(below: 9)) { appendID(byte: letters[random.next(below: letters.count)]) }
        case ..<50:  // nothing
            break
        case ..<62:  // _9f2c…: a long hexadecimal tail
            appendID(byte: UInt8(ascii: "_"))
            for _ in 0..<(16 + random.next(below: 17)) { appendID(byte: Self.digits.utf8Start[random.next(below: 16)]) }
        case ..<72:  // \/draft, \"q\", \\x …
            let pick = random.next(below: words.idPaths.count)
            appendID(json: words.idPaths[pick], text: words.idPathsDecoded[pick])
        case ..<82:  // .café, .日本, .🚀 …
            let pick = random.next(below: words.idTexts.count)
            appendID(json: words.idTexts[pick], text: words.idTextsDecoded[pick])
        default:  // :123456
            appendID(byte: UInt8(ascii: ":"))
            appendID(UInt64(random.next(below: 1_000_000)), radix: 10)
        }
    }

    static let digits: StaticString = "0123456789abcdefghijklmnopqrstuvwxyz"

    /// Appends `value` in `radix` (at most 36), lowercase, most significant digit first, no leading zeros.
    func appendID(_ value: UInt64, radix: UInt64) {
        var length = 1
        var rest = value / radix
        while rest > 0 {
            length += 1
            rest /= radix
        }
        rest = value
        for offset in stride(from: length - 1, through: 0, by: -1) {
            let digit = Self.digits.utf8Start[Int(rest % radix)]
            idJSON[idJSONCount + offset] = digit
            idText[idTextCount + offset] = digit
            rest /= radix
        }
        idJSONCount += length
        idTextCount += length
    }

    @inline(__always)
    func appendID(byte: UInt8) {
        idJSON[idJSONCount] = byte
        idText[idTextCount] = byte
        idJSONCount += 1
        idTextCount += 1
    }

    func appendID(json: UnsafeRawBufferPointer, text: UnsafeRawBufferPointer) {
        precondition(idJSONCount + json.count <= Self.idCapacity && idTextCount + text.count <= Self.idCapacity)
        UnsafeMutableRawPointer(idJSON + idJSONCount).copyMemory(from: json.baseAddress!, byteCount: json.count)
        UnsafeMutableRawPointer(idText + idTextCount).copyMemory(from: text.baseAddress!, byteCount: text.count)
        idJSONCount += json.count
        idTextCount += text.count
    }
}
