import Synchronization

/// What an exchange cost on the wire: how many times the request went out, and the body's bytes as they
/// came (compressed, when the server compressed them).
public final class ExchangeMeter: Sendable {
    private let sends = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)

    public init() {}

    /// Times the request was sent.
    public var sendCount: Int { sends.load(ordering: .relaxed) }
    /// Body bytes received on the wire.
    public var wireBytes: Int { bytes.load(ordering: .relaxed) }

    /// The request went out `count` more times.
    public func sent(_ count: Int = 1) { sends.add(count, ordering: .relaxed) }

    public func received(wireBytes count: Int) { bytes.add(count, ordering: .relaxed) }
}
