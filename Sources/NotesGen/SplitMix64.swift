/// SplitMix64 (Steele, Lea and Flood, 2014): a small seeded generator that gives the same numbers on
/// every machine and every Swift version.
///
/// Deliberately not a `RandomNumberGenerator`: the standard library's `random(in:using:)` algorithms may
/// change between releases, and the generator's output must not. Use ``next(below:)`` for ranges.
public struct SplitMix64: Sendable, Hashable {
    public var state: UInt64

    /// - Parameter seed: The starting state; any value, 0 included.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in `0..<bound` by the multiply-high method (Lemire): one draw, bias under 2⁻³² for the
    /// small bounds used here.
    /// - Precondition: `bound > 0`.
    @inline(__always)
    public mutating func next(below bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Whether a draw falls under `percent` in 100.
    @inline(__always)
    public mutating func chance(_ percent: Int) -> Bool {
        next(below: 100) < percent
    }

    /// SplitMix64's output function: a bijection on 64-bit values that spreads every input bit over
    /// the whole output.
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
