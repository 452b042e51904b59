/// The 64-bit FNV-1a hash, for the manifest's `ids_fnv1a64`: not for security, only to compare runs.
///
/// The manifest hashes every id's UTF-8 bytes followed by `\n`, in order (``update(id:)``).
public struct FNV1a64: Sendable, Hashable {
    /// The hash so far; the offset basis before any byte.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    public init() {}

    /// Hashes `bytes` in.
    @inline(__always)
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* Self.prime
        }
        value = hash
    }

    /// Hashes `bytes` in.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* Self.prime
        }
    }

    /// Hashes in one id as the manifest does: its UTF-8 bytes, then `\n`.
    public mutating func update(id: some Sequence<UInt8>) {
        update(id)
        update(CollectionOfOne(UInt8(ascii: "\n")))
    }

    /// The hash as 16 lowercase hexadecimal digits.
    public var hexDigits: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
