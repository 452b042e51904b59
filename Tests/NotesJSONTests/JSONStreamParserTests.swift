import NotesJSON
import Testing

@Suite("The JSON push parser")
struct JSONStreamParserTests {
    @Test("Events come out in order, numbers exactly as written")
    func events() {
        let outcome = parse(
            #"{"a": [1, -9223372036854775808, 1.50e3, 1e400, true, false, null], "b": {"c": "d\u00e9\n"}}"#)
        #expect(
            outcome
                == .accepted([
                    "{", "k:a", "[", "n:1", "n:-9223372036854775808", "n:1.50e3", "n:1e400", "true", "false", "null",
                    "]",
                    "k:b", "{", "k:c", "s:dé\n", "}", "}",
                ])
        )
    }

    @Test("A number at the very end is delivered by finish()")
    func trailingNumber() {
        #expect(parse("12") == .accepted(["n:12"]))
        #expect(parse([Array("1".utf8)[...], Array("2".utf8)[...]]) == .accepted(["n:12"]))
    }

    /// Text yajl lets through and JSON forbids, each with the offset of the offending byte and the kind of
    /// error it must give: `invalidText` for what the strict text checks refuse (bytes between tokens, UTF-8,
    /// escapes, control characters in strings), `syntax` for a grammar error the scanner catches before yajl
    /// (so that where it is reported does not depend on the chunking).
    @Test(
        "Text yajl accepts but JSON forbids is rejected at the offending byte",
        arguments: [
            ([0x5B, 0x0C, 0x5D], 1, .invalidText, "form feed between tokens"),
            ([0x5B, 0x0B, 0x5D], 1, .invalidText, "vertical tab between tokens"),
            (Array(#"["\uD800"]"#.utf8), 8, .invalidText, "lone high surrogate, then the closing quote"),
            (Array(#"["\uDC00"]"#.utf8), 7, .invalidText, "lone low surrogate"),
            (Array(#"["\uD800\u0041"]"#.utf8), 13, .invalidText, "high surrogate, then a non-surrogate escape"),
            (Array(#"["\uD800x"]"#.utf8), 8, .invalidText, "high surrogate, then text"),
            ([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], 3, .invalidText, "a UTF-8-encoded surrogate"),
            ([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], 2, .invalidText, "a 2-byte overlong"),
            ([0x5B, 0x22, 0xE0, 0x80, 0xAF, 0x22, 0x5D], 3, .invalidText, "a 3-byte overlong"),
            ([0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D], 3, .invalidText, "beyond U+10FFFF"),
            ([0x5B, 0x22, 0xF5, 0x80, 0x80, 0x80, 0x22, 0x5D], 2, .invalidText, "F5 is never a lead byte"),
            ([0x5B, 0x22, 0xE2, 0x82, 0x22, 0x5D], 4, .invalidText, "a sequence cut by the quote"),
            ([0x5B, 0x22, 0x61, 0x09, 0x22, 0x5D], 3, .invalidText, "a raw tab in a string"),
            (Array(#"["\x"]"#.utf8), 3, .invalidText, "an unknown escape"),
            (Array(#"["\u12G4"]"#.utf8), 6, .invalidText, "a bad hex digit"),
            (Array("[1\"a\"]".utf8), 2, .syntax, "a string glued to a number"),
        ] as [([UInt8], Int, JSONError.Kind, String)]
    )
    func strictText(_ bytes: [UInt8], offset: Int, kind: JSONError.Kind, what: String) {
        guard case .rejected(let error) = parse(bytes) else {
            Issue.record("\(what): accepted")
            return
        }
        #expect(error.offset == offset, "\(what)")
        #expect(error.kind == kind, "\(what): \(error)")
        for split in 0...bytes.count {
            #expect(parse([bytes[..<split], bytes[split...]]) == .rejected(error), "\(what), split at \(split)")
        }
    }

    @Test("Valid multi-byte text and surrogate pairs are accepted, even split inside a sequence")
    func validUnicode() {
        let bytes = Array(#"["é日😀\ud83d\ude00"]"#.utf8)
        let whole = parse(bytes)
        #expect(whole == .accepted(["[", "s:é日😀😀", "]"]))
        for split in 0...bytes.count {
            #expect(parse([bytes[..<split], bytes[split...]]) == whole)
        }
    }

    @Test("An empty or blank document is truncated; trailing text and a second value are errors")
    func documentBoundaries() {
        #expect(parse("") == .rejected(JSONError(.truncated, offset: 0, message: "empty document")))
        guard case .rejected(let blank) = parse("  \n") else {
            Issue.record("blank accepted")
            return
        }
        #expect(blank.kind == .truncated)
        guard case .rejected(let open) = parse(#"{"a": ["#) else {
            Issue.record("open accepted")
            return
        }
        #expect(open.kind == .truncated && open.offset == 7)
        guard case .rejected(let garbage) = parse("{} x") else {
            Issue.record("garbage accepted")
            return
        }
        #expect(garbage.kind == .syntax)
        // yajl itself accepts a string left open after the value; the parser must not.
        for text in [#"{} ""#, #"{"a": 1}  "abc"#, #"[1] "\"#] {
            guard case .rejected(let open) = parse(text) else {
                Issue.record("\(text) accepted")
                continue
            }
            #expect(open.kind == .syntax && open.offset == text.utf8.count, "\(text)")
            let bytes = Array(text.utf8)
            for split in 0...bytes.count {
                #expect(parse([bytes[..<split], bytes[split...]]) == .rejected(open), "\(text), split at \(split)")
            }
        }
        guard case .rejected(let second) = parse("{} {}") else {
            Issue.record("two values accepted")
            return
        }
        #expect(second.kind == .syntax)
    }

    @Test("A handler that returns false stops the parse just past its token, and the error sticks")
    func handlerStop() {
        let recorder = Recorder()
        recorder.stopAt = 2
        var parser = JSONStreamParser(handler: recorder)
        #expect(throws: JSONError(.stopped, offset: 11, message: "stopped by the handler")) {
            try parser.feed(Array(#"{"ab": "cd", "e": 1}"#.utf8))
        }
        #expect(recorder.events == ["{", "k:ab", "s:cd"])
        #expect(throws: JSONError(.stopped, offset: 11, message: "stopped by the handler")) {
            try parser.feed(Array("x".utf8))
        }
        #expect(throws: JSONError.self) { try parser.finish() }
    }

    @Test("The document limit counts every byte, whitespace included")
    func documentLimit() {
        let limits = JSONLimits(maxDocumentBytes: 10)
        #expect(parse("[1,2,3,4] ", limits: limits) == .accepted(["[", "n:1", "n:2", "n:3", "n:4", "]"]))
        let error = JSONError(.limitExceeded(.documentBytes(10)), offset: 10, message: "document longer than 10 bytes")
        #expect(parse("[1,2,3,4]  ", limits: limits) == .rejected(error))
        #expect(parse([Array("[1,2,3".utf8)[...], Array(",4]  ".utf8)[...]], limits: limits) == .rejected(error))
    }

    @Test("The token limit counts strings, keys and numbers as written")
    func tokenLimit() {
        let limits = JSONLimits(maxTokenBytes: 4)
        guard case .accepted = parse(#"["abcd", 1234, {"wxyz": true}]"#, limits: limits) else {
            Issue.record("tokens of exactly the limit were refused")
            return
        }
        #expect(
            parse(#"["abcde"]"#, limits: limits)
                == .rejected(
                    JSONError(.limitExceeded(.tokenBytes(4)), offset: 6, message: "string longer than 4 bytes")))
        #expect(
            parse(#"[12345]"#, limits: limits)
                == .rejected(
                    JSONError(
                        .limitExceeded(.tokenBytes(4)), offset: 5, message: "number or literal longer than 4 bytes")))
        #expect(
            parse(#"{"vwxyz": 1}"#, limits: limits)
                == .rejected(
                    JSONError(.limitExceeded(.tokenBytes(4)), offset: 6, message: "string longer than 4 bytes")))
        // Escapes count as written: \n is two bytes.
        #expect(parse(#"["a\nb"]"#, limits: limits) == .accepted(["[", "s:a\nb", "]"]))
        guard case .rejected = parse(#"["a\n\n"]"#, limits: limits) else {
            Issue.record("escapes not counted")
            return
        }
    }

    @Test("A 64 MiB string fed in 64 KiB chunks is refused at the token limit, after about 1 MiB")
    func hugeString() {
        let recorder = Recorder()
        var parser = JSONStreamParser(handler: recorder)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        var fed = 0
        var caught: JSONError?
        do {
            try parser.feed(Array(#"{"title": ""#.utf8))
            while fed < 64 << 20 {
                try parser.feed(chunk)
                fed += chunk.count
            }
        } catch {
            caught = error
        }
        let limit = JSONLimits().maxTokenBytes
        #expect(
            caught
                == JSONError(
                    .limitExceeded(.tokenBytes(limit)), offset: 11 + limit, message: "string longer than \(limit) bytes"
                ))
        #expect(fed <= limit, "stopped within the chunk that crossed the limit")
    }

    @Test("1,000,000 nested arrays are refused at the depth limit")
    func deepNesting() {
        var parser = JSONStreamParser(handler: Recorder())
        let chunk = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        var caught: JSONError?
        var fed = 0
        do {
            for _ in 0..<10 {
                try parser.feed(chunk)
                fed += chunk.count
            }
        } catch {
            caught = error
        }
        #expect(caught == JSONError(.limitExceeded(.depth(64)), offset: 64, message: "nesting deeper than 64 levels"))
        #expect(fed == 0)
    }
}
