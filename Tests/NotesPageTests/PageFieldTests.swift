import NotesPage
import Testing

/// What pagination reads off a page besides its notes: values at field paths, the last id, and
/// duplicates left out on request.
@Suite("Field paths, the last id, duplicates skipped")
struct PageFieldTests {
    func summary(_ body: String, _ configure: (inout PageConfiguration) -> Void = { _ in }, ids: IDSet = IDSet())
        throws(PageError) -> (PageDecoder.Summary, [String])
    {
        var configuration = PageConfiguration()
        configure(&configuration)
        var decoder = PageDecoder(configuration: configuration, ids: ids)
        var notes: [Note] = []
        // Every split point, so that a value cut by a chunk boundary is still read whole.
        let bytes = Array(body.utf8)
        try decoder.feed(bytes[..<(bytes.count / 2)], into: &notes)
        try decoder.feed(bytes[(bytes.count / 2)...], into: &notes)
        let summary = try decoder.finish(into: &notes)
        return (summary, notes.map(\.id))
    }

    @Test("Values at field paths are read at any depth, of any type, in the order the paths were given")
    func fields() throws {
        let body = #"""
            {"count": 1234, "meta": {"more": true, "total_pages": 13, "x": [1]}, "data": [{"id": "a", "title": ""}],
             "object": "list", "cursor": {"after": "a"}, "n": null}
            """#
        let (summary, ids) = try summary(body) { configuration in
            configuration.itemsPath = FieldPath("data")
            configuration.fieldPaths = [
                FieldPath("meta.more"), FieldPath("count"), FieldPath("object"), FieldPath("cursor"),
                FieldPath("meta.total_pages"), FieldPath("absent"), FieldPath("n"), FieldPath("meta.x"),
            ]
        }
        #expect(ids == ["a"])
        #expect(
            summary.fields == [
                .bool(true), .number("1234"), .string("list"), .container("an object"), .number("13"), nil, .null,
                .container("an array"),
            ])
        #expect(summary.lastID == Array("a".utf8))
    }

    @Test("Field paths are equal, and hash equal, exactly when their keys are: a walk finds a page's values by them")
    func pathsHashByTheirKeys() {
        let paths = [
            FieldPath("ab.c"), FieldPath("a.bc"), FieldPath("abc"), FieldPath(components: [[], Array("abc".utf8)]),
            FieldPath(components: [Array("abc".utf8), []]), FieldPath("meta.pagination.count"), FieldPath(""),
        ]
        var positions: [FieldPath: Int] = [:]
        for (position, path) in paths.enumerated() { positions[path] = position }
        #expect(positions.count == paths.count)
        for (position, path) in paths.enumerated() {
            let same = try? FieldPath.parse(path.description)
            #expect(positions[path] == position)
            #expect(path.components.isEmpty || same.map { positions[$0] == position } == true, "\(path)")
            #expect(path.hashValue == FieldPath(components: path.components).hashValue)
        }
    }

    @Test("A field path found twice is a contract error, as the items and the next value are")
    func fieldTwice() {
        #expect(throws: PageError.self) {
            try summary(#"{"notes": [], "count": 1, "count": 2}"#) { $0.fieldPaths = [FieldPath("count")] }
        }
    }

    @Test("A number as the next value is taken as its text; a boolean is refused")
    func numberNext() throws {
        let (summary, _) = try summary(#"{"next_page": 3, "notes": []}"#) { $0.nextPath = FieldPath("next_page") }
        #expect(summary.nextCursor == "3")
        do {
            _ = try self.summary(#"{"next_page": false, "notes": []}"#) { $0.nextPath = FieldPath("next_page") }
            Issue.record("a boolean next value was accepted")
        } catch {
            #expect(error.code == .invalidNext)
            #expect(error.message == "'next_page' is a boolean, not a string, number or null")
        }
    }

    @Test("Paths that overlap are refused", arguments: ["notes", "notes.x", "next_cursor", "meta"])
    func overlaps(field: String) {
        var configuration = PageConfiguration()
        configuration.fieldPaths = [FieldPath("meta.total"), FieldPath(field)]
        #expect(configuration.pathProblem != nil)
    }

    @Test("--on-duplicate skip: a repeated id is left out and counted, on the page and across pages")
    func skipDuplicates() throws {
        let ids = IDSet()
        let first = try summary(#"{"notes": [{"id": "a", "title": ""}, {"id": "b", "title": ""}]}"#, ids: ids)
        #expect(first.1 == ["a", "b"])
        let body = #"{"notes": [{"id": "b", "title": ""}, {"id": "c", "title": ""}, {"id": "c", "title": ""}]}"#
        let (summary, kept) = try summary(body, { $0.duplicates = .skip }, ids: ids)
        #expect(kept == ["c"])
        #expect(summary.skippedCount == 2)
        #expect(summary.noteCount == 3)
        #expect(summary.lastID == Array("c".utf8))
        // Failing is the default.
        #expect(throws: PageError.self) { try self.summary(body, ids: ids) }
    }
}
