import NotesJSON

// The first contract error of a page, and how its messages show what they quote.

extension PageState {
    mutating func fail(_ code: PageError.Code, _ message: String, note: Int? = nil) -> Bool {
        if let duplicate = pendingDuplicate() {
            failure = duplicate
            failureOffset = idEnd
        } else {
            failure = PageError(code, message: message, offset: 0, noteIndex: note)
        }
        return false
    }

    static func describe(_ event: JSONEvent) -> String {
        switch event {
        case .startObject: return "an object"
        case .startArray: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .key, .endObject, .endArray: return "misplaced"
        }
    }

    /// At most 24 bytes of `text`, as a JSON string, so a message stays short.
    static func quote(_ text: UnsafeRawBufferPointer) -> String {
        var writer = CompactJSONWriter()
        let shown = text.count <= 24 ? text : UnsafeRawBufferPointer(rebasing: text[..<24])
        writer.value(string: shown)
        var quoted = String(decoding: writer.bytes, as: UTF8.self)
        if shown.count < text.count { quoted.insert(contentsOf: "…", at: quoted.index(before: quoted.endIndex)) }
        return quoted
    }
}
