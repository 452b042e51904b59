import Dispatch
internal import NotesJSON

/// Carries a value the caller guarantees is used by one thread at a time across a `@Sendable` boundary.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
