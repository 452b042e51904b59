/// A credential: its description never shows the value.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
