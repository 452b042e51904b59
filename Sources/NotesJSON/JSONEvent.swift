/// One parsed JSON token, as yajl reports it.
///
/// The buffers are valid only during the call to ``JSONEventHandler/handle(_:)``: they may point into
/// the chunk being parsed or into yajl's own buffer. Strings and keys are unescaped UTF-8 (valid, with no
/// lone surrogates: ``JSONScanner`` checked them); numbers are the exact text of the input.
public enum JSONEvent {
    case startObject
    case endObject
    case startArray
    case endArray
    case key(UnsafeRawBufferPointer)
    case string(UnsafeRawBufferPointer)
    case number(UnsafeRawBufferPointer)
    case bool(Bool)
    case null
}

/// Receives the events of a ``JSONStreamParser``.
public protocol JSONEventHandler: AnyObject {
    /// Handles one event.
    /// - Returns: `false` to stop parsing; the parser then throws ``JSONError/Kind/stopped`` with the
    ///   offset just past this token, and the handler keeps its own reason.
    func handle(_ event: JSONEvent) -> Bool

    /// Handles a key or string whose text had no escape in the document (yajl handed over the document's
    /// own bytes): it holds none of the bytes a JSON string must escape (`"`, `\\`, a control byte), so
    /// it can be written back as it is. A parser that cannot tell calls ``handle(_:)`` instead; the
    /// default does the same.
    func handle(plainText event: JSONEvent) -> Bool
}

extension JSONEventHandler {
    public func handle(plainText event: JSONEvent) -> Bool { handle(event) }
}
