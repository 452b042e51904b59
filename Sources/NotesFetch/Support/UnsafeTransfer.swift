/// Carries a value the caller guarantees is used by one thread at a time across a `@Sendable` boundary
/// (the store's commit thread takes one too: the walk's thread waits for each commit before it touches the
/// walk again).
package struct UnsafeTransfer<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
