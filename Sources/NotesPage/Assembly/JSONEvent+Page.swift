import NotesJSON

extension FieldValue {
    /// The value an event starts; a container is described, not kept.
    init(_ event: JSONEvent, describe: (JSONEvent) -> String) {
        switch event {
        case .string(let text): self = .string(String(decoding: text, as: UTF8.self))
        case .number(let text): self = .number(String(decoding: text, as: UTF8.self))
        case .bool(let value): self = .bool(value)
        case .null: self = .null
        default: self = .container(describe(event))
        }
    }
}

extension JSONEvent {
    var isStart: Bool {
        switch self {
        case .startObject, .startArray: return true
        default: return false
        }
    }

    var isEndObject: Bool {
        if case .endObject = self { return true }
        return false
    }
}
