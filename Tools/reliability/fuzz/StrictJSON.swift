// The strict RFC 8259 validator that FuzzPage.swift checks the page decoder's verdicts against, written
// apart from the decoder (NotesJSON's scanner and yajl) so that the target compares two readings of the
// RFC. Tools/reliability/fuzz/fuzz.sh compiles it into the target beside FuzzPage.swift.

/// Whether `text` is one JSON text by RFC 8259, strictly: whitespace is space, tab, LF and CR only;
/// strings are UTF-8 by RFC 3629 with no control characters and no unpaired surrogate escapes; numbers
/// follow the grammar. Iterative, so deep nesting needs no stack.
func isStrictJSON(_ text: UnsafeRawBufferPointer) -> Bool {
    let count = text.count
    var i = 0
    var stack: [UInt8] = []

    func skipSpace() {
        while i < count, text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { i += 1 }
    }
    func byte(_ value: UInt8) -> Bool {
        guard i < count, text[i] == value else { return false }
        i += 1
        return true
    }
    func hex4() -> UInt32? {
        guard i + 4 <= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = text[i]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            i += 1
        }
        return value
    }
    func continuation(_ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
        guard i < count, text[i] >= low, text[i] <= high else { return false }
        i += 1
        return true
    }
    func string() -> Bool {
        guard byte(0x22) else { return false }
        while i < count {
            let c = text[i]
            i += 1
            switch c {
            case 0x22:
                return true
            case 0x5C:
                guard i < count else { return false }
                let escape = text[i]
                i += 1
                switch escape {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: continue
                case 0x75:
                    guard let unit = hex4() else { return false }
                    if (0xDC00...0xDFFF).contains(unit) { return false }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard byte(0x5C), byte(0x75), let low = hex4(), (0xDC00...0xDFFF).contains(low) else {
                            return false
                        }
                    }
                default: return false
                }
            case 0x00..<0x20: return false
            case 0x20..<0x80: continue
            case 0xC2...0xDF: guard continuation() else { return false }
            case 0xE0: guard continuation(0xA0, 0xBF), continuation() else { return false }
            case 0xE1...0xEC, 0xEE...0xEF: guard continuation(), continuation() else { return false }
            case 0xED: guard continuation(0x80, 0x9F), continuation() else { return false }
            case 0xF0: guard continuation(0x90, 0xBF), continuation(), continuation() else { return false }
            case 0xF1...0xF3: guard continuation(), continuation(), continuation() else { return false }
            case 0xF4: guard continuation(0x80, 0x8F), continuation(), continuation() else { return false }
            default: return false
            }
        }
        return false
    }
    func digits() -> Bool {
        let start = i
        while i < count, (0x30...0x39).contains(text[i]) { i += 1 }
        return i > start
    }
    func number() -> Bool {
        _ = byte(0x2D)
        if !byte(0x30) {
            guard i < count, (0x31...0x39).contains(text[i]) else { return false }
            _ = digits()
        }
        if byte(0x2E) { guard digits() else { return false } }
        if byte(0x65) || byte(0x45) {
            if !byte(0x2B) { _ = byte(0x2D) }
            guard digits() else { return false }
        }
        return true
    }
    func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard i + length <= count else { return false }
        for k in 0..<length where text[i + k] != word.utf8Start[k] { return false }
        i += length
        return true
    }
    func key() -> Bool {
        skipSpace()
        guard string() else { return false }
        skipSpace()
        return byte(0x3A)
    }

    var expectingValue = true
    while true {
        skipSpace()
        if expectingValue {
            guard i < count else { return false }
            switch text[i] {
            case 0x7B:
                i += 1
                skipSpace()
                if byte(0x7D) {
                    expectingValue = false
                } else {
                    stack.append(0x7B)
                    guard key() else { return false }
                }
            case 0x5B:
                i += 1
                skipSpace()
                if byte(0x5D) { expectingValue = false } else { stack.append(0x5B) }
            case 0x22:
                guard string() else { return false }
                expectingValue = false
            case 0x74:
                guard literal("true") else { return false }
                expectingValue = false
            case 0x66:
                guard literal("false") else { return false }
                expectingValue = false
            case 0x6E:
                guard literal("null") else { return false }
                expectingValue = false
            case 0x2D, 0x30...0x39:
                guard number() else { return false }
                expectingValue = false
            default:
                return false
            }
        } else {
            guard let open = stack.last else { return i == count }
            if byte(0x2C) {
                if open == 0x7B { guard key() else { return false } }
                expectingValue = true
            } else if byte(open == 0x7B ? 0x7D : 0x5D) {
                stack.removeLast()
            } else {
                return false
            }
        }
    }
}
