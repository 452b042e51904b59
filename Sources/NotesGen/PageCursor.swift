/// The opaque cursors of a notes-gen run.
///
/// A cursor is 16 bytes in standard base64 (24 characters): `0xFB 0xFx`, which encode as `+/` so that
/// every cursor needs percent-encoding in a query string, then 8 bytes that are a bijection of the page
/// number under a key from the seed (so cursors of one run never collide), then 6 more mixed bytes. The
/// padding `==` ends every cursor. A cursor says nothing readable about the page it names.
public enum PageCursor {
    /// The cursor that requests page `page` (0-based) of the run seeded with `seed`.
    /// - Precondition: `page >= 1`: the first page is requested without a cursor.
    public static func make(seed: UInt64, page: Int) -> String {
        String(decoding: bytes(seed: seed, page: page), as: UTF8.self)
    }

    /// The cursor's ASCII bytes.
    static func bytes(seed: UInt64, page: Int) -> [UInt8] {
        precondition(page >= 1, "the first page has no cursor")
        let key = SplitMix64.mix(seed ^ 0x6375_7273_6F72_2D31)  // "cursor-1"
        let named = SplitMix64.mix(UInt64(page) ^ key)
        let extra = SplitMix64.mix(named ^ ~key)
        var raw: [UInt8] = [0xFB, 0xF0 | UInt8(truncatingIfNeeded: extra & 0x0F)]
        for shift in stride(from: 56, through: 0, by: -8) {
            raw.append(UInt8(truncatingIfNeeded: named >> UInt64(shift)))
        }
        for shift in stride(from: 56, through: 16, by: -8) {
            raw.append(UInt8(truncatingIfNeeded: extra >> UInt64(shift)))
        }
        return base64(raw)
    }

    /// Standard base64 (RFC 4648 §4) with `=` padding.
    static func base64(_ raw: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var text: [UInt8] = []
        text.reserveCapacity((raw.count + 2) / 3 * 4)
        var index = 0
        while index < raw.count {
            let count = min(3, raw.count - index)
            var group = UInt32(raw[index]) << 16
            if count > 1 { group |= UInt32(raw[index + 1]) << 8 }
            if count > 2 { group |= UInt32(raw[index + 2]) }
            for position in 0..<4 {
                if position <= count {
                    text.append(alphabet[Int(group >> UInt32(18 - 6 * position)) & 0x3F])
                } else {
                    text.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return text
    }
}
