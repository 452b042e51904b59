extension StringProtocol {
    /// The text cut to at most `limit` bytes of UTF-8 at a whole scalar, with `…` when cut: how a message
    /// shows a key or value it did not choose, which may be of any length.
    package func clipped(toUTF8Bytes limit: Int) -> String {
        let bytes = String(self).utf8
        guard bytes.count > limit else { return String(self) }
        var end = bytes.index(bytes.startIndex, offsetBy: limit)
        while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end = bytes.index(before: end) }
        return String(decoding: bytes[..<end], as: UTF8.self) + "…"
    }
}
