import NotesPage
import Testing

/// What a GraphQL connection's page needs from the decoder: the record inside each edge, a page that may
/// have no items, and the JSON of a container at a field path (`errors`).
@Suite("Connections: the record inside each item, pages without items, containers at field paths")
struct ConnectionTests {
    /// Decodes `body` at every split point and returns the notes' JSON and the summary, or the error: the
    /// answer never depends on how the body was cut.
    func decode(_ body: String, _ configure: (inout PageConfiguration) -> Void) -> Result<
        ([String], PageDecoder.Summary), PageError
    > {
        var configuration = PageConfiguration()
        configure(&configuration)
        let bytes = Array(body.utf8)
        var answers: [Result<([String], PageDecoder.Summary), PageError>] = []
        for split in 0...bytes.count {
            var decoder = PageDecoder(configuration: configuration)
            var notes: [Note] = []
            do throws(PageError) {
                try decoder.feed(bytes[..<split], into: &notes)
                try decoder.feed(bytes[split...], into: &notes)
                let summary = try decoder.finish(into: &notes)
                answers.append(.success((notes.map { String(decoding: $0.json ?? [], as: UTF8.self) }, summary)))
            } catch {
                answers.append(.failure(error))
            }
        }
        #expect(Set(answers.map { "\($0)" }).count == 1, "the answer changed with the split point")
        return answers[0]
    }

    func edges(_ configuration: inout PageConfiguration) {
        configuration.itemsPath = FieldPath("data.notes.edges")
        configuration.nextPath = FieldPath("data.notes.pageInfo.endCursor")
        configuration.recordKey = "node"
    }

    @Test("Each edge's node is the record, written as its exact JSON; the edge's cursor is not kept")
    func edgeNodes() throws {
        let body = #"""
            {"data": {"notes": {"edges": [{"cursor": "c1", "node": {"id": "a", "title": "x", "tags": [1, {"k": null}]}},
            {"node": {"id": 7, "title": "y"}, "cursor": "c2"}], "pageInfo": {"endCursor": "c2"}}}}
            """#
        let (notes, summary) = try decode(body, edges).get()
        #expect(notes == [#"{"id":"a","title":"x","tags":[1,{"k":null}]}"#, #"{"id":7,"title":"y"}"#])
        #expect(summary.nextCursor == "c2")
        #expect(summary.noteCount == 2)
    }

    @Test("An edge without its node, with a node that is not an object, or with two, is a contract error")
    func badEdges() {
        let cases = [
            (#"{"data": {"notes": {"edges": [{"cursor": "c1"}]}}}"#, "item 0 has no 'node' object"),
            (#"{"data": {"notes": {"edges": [{"node": null}]}}}"#, "item 0's 'node' is null, not an object"),
            (#"{"data": {"notes": {"edges": [{"node": [1]}]}}}"#, "item 0's 'node' is an array, not an object"),
            (
                #"{"data": {"notes": {"edges": [{"node": {"id": "a", "title": "t"}, "node": {"id": "b"}}]}}}"#,
                "item 0 has two 'node' fields"
            ),
            (#"{"data": {"notes": {"edges": ["x"]}}}"#, "item 0 is a string, not an object"),
        ]
        for (body, message) in cases {
            guard case .failure(let error) = decode(body, edges) else {
                Issue.record("\(body) is refused")
                continue
            }
            #expect(error.message.hasPrefix(message), "\(body)")
        }
    }

    @Test("With items not required, a page without them has no notes and says so; required, it is an error")
    func itemsNotRequired() throws {
        let body = #"{"errors": [{"message": "boom", "path": ["notes"]}], "data": null}"#
        let (notes, summary) = try decode(body) {
            edges(&$0)
            $0.requiresItems = false
        }.get()
        #expect(notes.isEmpty && !summary.hasItems)
        guard case .failure(let error) = decode(body, edges) else {
            Issue.record("a page without its items is refused when they are required")
            return
        }
        #expect(error.code == .missingItems)
    }

    @Test("An object or array at a field path is kept as compact JSON up to 16 KiB; a longer one is not")
    func fieldJSON() throws {
        let body =
            #"{"errors": [ {"message": "a \"quoted\" word", "path": ["notes", 2], "locations": [{"line": 1}]} ], "n": 3, "big": ["#
            + Array(repeating: #""0123456789""#, count: 1600).joined(separator: ",") + "]}"
        let (_, summary) = try decode(body) {
            $0.fieldPaths = [FieldPath("errors"), FieldPath("n"), FieldPath("big"), FieldPath("absent")]
            $0.requiresItems = false
        }.get()
        #expect(
            summary.fieldJSON == [
                #"[{"message":"a \"quoted\" word","path":["notes",2],"locations":[{"line":1}]}]"#, nil, nil, nil,
            ])
        #expect(summary.fields[0] == .container("an array") && summary.fields[1] == .number("3"))
        #expect(summary.fields[2] == .container("an array"))
    }
}
