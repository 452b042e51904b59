import NotesJSON

// A value at a field path, copied as compact JSON.

extension PageState {
    /// An event in an object or array at a field path: copied as compact JSON while it fits in
    /// ``PageDecoder/maxFieldJSONBytes``, then only followed to its end.
    mutating func inCapture(_ event: JSONEvent) -> Bool {
        let fits = capture.bytes.count <= PageDecoder.maxFieldJSONBytes
        switch event {
        case .startObject:
            captureDepth += 1
            if fits { capture.open(UInt8(ascii: "{")) }
        case .startArray:
            captureDepth += 1
            if fits { capture.open(UInt8(ascii: "[")) }
        case .endObject, .endArray:
            captureDepth -= 1
            if fits { capture.close(event.isEndObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
            if captureDepth == 0 {
                frames.removeLast()
                if captureIndex < 0 {
                    // A next value: one that does not fit is no next value to send back.
                    guard capture.bytes.count <= PageDecoder.maxFieldJSONBytes else {
                        return fail(
                            .invalidNext,
                            "'\(configuration.nextPath)' is over \(PageDecoder.maxFieldJSONBytes) bytes of JSON")
                    }
                    nextJSON = Array(capture.bytes)
                } else if capture.bytes.count <= PageDecoder.maxFieldJSONBytes {
                    fieldJSON[captureIndex] = Array(capture.bytes)
                }
            }
        case .key(let key):
            if fits { capture.key(key) }
        case .string(let text):
            if fits { capture.value(string: text) }
        case .number(let text):
            if fits { capture.value(raw: text) }
        case .bool(let value):
            if fits { capture.value(literal: value ? "true" : "false") }
        case .null:
            if fits { capture.value(literal: "null") }
        }
        return true
    }
}
