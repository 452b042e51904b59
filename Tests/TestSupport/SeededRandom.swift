#if canImport(NotesGen)
    import NotesGen
#endif

/// Random numbers a test can replay: NotesGen's ``SplitMix64`` (the project's one generator) as a
/// `RandomNumberGenerator`, for `random(in:using:)`, `shuffled(using:)` and the like. The fetch fuzzer
/// compiles this file with SplitMix64's into a module of its own.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 {
        generator.next()
    }
}
