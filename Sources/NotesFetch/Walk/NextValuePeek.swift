/// Reads a page's next value off the raw bytes of the chunk that ends its body, before the decoder gets
/// there, so that the next request can go out while the page decodes.
///
/// A guess: it looks only at the end of the chunk, for `"key": value` followed by nothing but closing
/// braces and whitespace (a next value after the notes ends the document). A wrong guess costs a request
/// and never a note: the walk asks for the page its decoder read, and an early exchange is taken over only
/// by an equal request.
enum NextValuePeek {
    /// The string (with no escapes) or number after `"key":` at the end of `chunk`; `nil` when the chunk
    /// does not end that way, or the value is `null`, `true`, `false` or a string with an escape.
    static func value(after key: [UInt8], in chunk: UnsafeRawBufferPointer) -> String? {
        guard let base = chunk.baseAddress else { return nil }
        let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: chunk.count)
        var index = bytes.count - 1
        func skipSpace() {
            while index >= 0, isSpace(bytes[index]) { index -= 1 }
        }
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: "}") else { return nil }
        while index >= 0, bytes[index] == UInt8(ascii: "}") || isSpace(bytes[index]) { index -= 1 }
        guard index >= 0 else { return nil }
        let value: Range<Int>
        if bytes[index] == UInt8(ascii: "\"") {
            guard let open = quoteBefore(index, in: bytes) else { return nil }
            value = open + 1..<index
            index = open - 1
        } else if isDigit(bytes[index]) {
            let end = index + 1
            while index >= 0, isNumberByte(bytes[index]) { index -= 1 }
            value = index + 1..<end
            // A number starts with a digit or a minus sign (a guess, not a check: the decoder checks).
            guard isDigit(bytes[value.lowerBound]) || bytes[value.lowerBound] == UInt8(ascii: "-") else { return nil }
        } else {
            return nil
        }
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: ":") else { return nil }
        index -= 1
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: "\""), let open = quoteBefore(index, in: bytes),
            bytes[open + 1..<index].elementsEqual(key)
        else { return nil }
        index = open - 1
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "{") else { return nil }
        return String(validating: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
    }

    /// The opening quote of the string whose closing quote is at `close`; `nil` past an escape or a control
    /// character (which a string cannot hold raw).
    private static func quoteBefore(_ close: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = close - 1
        while index >= 0 {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return index }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index -= 1
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
            UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
