import NotesJSON

/// Records events as short strings: `{`, `}`, `[`, `]`, `k:key`, `s:text`, `n:1.5`, `true`, `null`.
final class Recorder: JSONEventHandler {
    var events: [String] = []
    /// Stop (return false) at this event index, if set.
    var stopAt: Int?

    func handle(_ event: JSONEvent) -> Bool {
        switch event {
        case .startObject: events.append("{")
        case .endObject: events.append("}")
        case .startArray: events.append("[")
        case .endArray: events.append("]")
        case .key(let bytes): events.append("k:" + String(decoding: bytes, as: UTF8.self))
        case .string(let bytes): events.append("s:" + String(decoding: bytes, as: UTF8.self))
        case .number(let bytes): events.append("n:" + String(decoding: bytes, as: UTF8.self))
        case .bool(let value): events.append(value ? "true" : "false")
        case .null: events.append("null")
        }
        return events.count - 1 != stopAt
    }
}

/// What parsing a document came to.
enum ParseOutcome: Equatable {
    case accepted([String])
    case rejected(JSONError)
}

/// Parses `chunks` as one document.
func parse(_ chunks: [ArraySlice<UInt8>], limits: JSONLimits = JSONLimits()) -> ParseOutcome {
    let recorder = Recorder()
    var parser = JSONStreamParser(limits: limits, handler: recorder)
    do {
        for chunk in chunks { try parser.feed(chunk) }
        try parser.finish()
        return .accepted(recorder.events)
    } catch {
        return .rejected(error)
    }
}

func parse(_ text: String, limits: JSONLimits = JSONLimits()) -> ParseOutcome {
    parse([Array(text.utf8)[...]], limits: limits)
}

func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) -> ParseOutcome {
    parse([bytes[...]], limits: limits)
}
