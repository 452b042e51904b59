import NotesJSON
import NotesPage
import Testing

/// What a record must be: an id that is a non-empty string or an integer, at any path inside the item, and
/// a title at any path, or none.
@Suite("Records: integer ids, ids and titles at any path, paths dotted or JSON Pointers")
struct RecordTests {
    /// The ids of `body`'s notes, or the error, decoded at every split point: a record's answer never
    /// depends on how the body was cut.
    func ids(_ body: String, _ configure: (inout PageConfiguration) -> Void = { _ in }) -> Result<[String], PageError> {
        var configuration = PageConfiguration()
        configure(&configuration)
        let bytes = Array(body.utf8)
        var answers: [Result<[String], PageError>] = []
        for split in 0...bytes.count {
            var decoder = PageDecoder(configuration: configuration)
            var notes: [Note] = []
            do throws(PageError) {
                try decoder.feed(bytes[..<split], into: &notes)
                try decoder.feed(bytes[split...], into: &notes)
                _ = try decoder.finish(into: &notes)
                answers.append(.success(notes.map(\.id)))
            } catch {
                answers.append(.failure(error))
            }
        }
        #expect(Set(answers.map { "\($0)" }).count == 1, "the answer changed with the split point")
        return answers[0]
    }

    func message(_ result: Result<[String], PageError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    @Test("An integer id is taken as written, digits and sign; its JSON is unchanged")
    func integerIDs() throws {
        let body = #"{"notes": [{"id": 42, "title": "a"}, {"id": -7, "title": "b"}, {"id": 0, "title": "c"}]}"#
        #expect(try ids(body).get() == ["42", "-7", "0"])
        var decoder = PageDecoder()
        var notes: [Note] = []
        try decoder.feed(Array(body.utf8)[...], into: &notes)
        _ = try decoder.finish(into: &notes)
        #expect(notes.map { String(decoding: $0.json ?? [], as: UTF8.self) }.first == #"{"id":42,"title":"a"}"#)
    }

    @Test("Each note keeps its own id, title and JSON, of any length, with and without its JSON")
    func idTitleAndJSON() throws {
        // Lengths 0 to 40 each way, so that no part sits at the same place in every note; now and then an id
        // or a title many times longer than any before it, then short ones again.
        let records = (0..<300).map { index in
            (
                id: "n\(index)" + String(repeating: "i", count: index % 100 == 50 ? 700 : index % 17),
                title: String(repeating: "t\(index % 10)", count: index % 100 == 70 ? 3_000 : index % 41)
            )
        }
        let body =
            "{\"notes\":[" + records.map { #"{"id":"\#($0.id)","title":"\#($0.title)"}"# }.joined(separator: ",") + "]}"
        for keepsJSON in [false, true] {
            var configuration = PageConfiguration()
            configuration.keepsJSON = keepsJSON
            var decoder = PageDecoder(configuration: configuration)
            var notes: [Note] = []
            try decoder.feed(Array(body.utf8)[...], into: &notes)
            _ = try decoder.finish(into: &notes)
            #expect(notes.map(\.id) == records.map(\.id))
            #expect(notes.map(\.title) == records.map(\.title))
            #expect(
                notes.map { $0.json.map { String(decoding: $0, as: UTF8.self) } }
                    == records.map { keepsJSON ? #"{"id":"\#($0.id)","title":"\#($0.title)"}"# : nil })
        }
        // Where titles are optional, a note without one has none, whatever the note before it had.
        let mixed =
            #"{"data": [{"id": 1, "title": "one"}, {"id": 2}, {"id": 3, "title": null}, {"id": 4, "title": "four"}]}"#
        for keepsJSON in [false, true] {
            var optional = PageConfiguration(itemsPath: FieldPath("data"))
            optional.titleRule = .whenItemsAreNotes
            optional.keepsJSON = keepsJSON
            var decoder = PageDecoder(configuration: optional)
            var notes: [Note] = []
            try decoder.feed(Array(mixed.utf8)[...], into: &notes)
            _ = try decoder.finish(into: &notes)
            #expect(notes.map(\.title) == ["one", "", "", "four"], "keeping the JSON: \(keepsJSON)")
        }
        let made = Note(id: "é", title: "", json: "{}")
        #expect(made.id == "é" && made.title == "" && made.json.map { Array($0) } == Array("{}".utf8))
    }

    @Test("A note prints as its own id, title and JSON, not the buffer it shares with the notes beside it")
    func printed() throws {
        var configuration = PageConfiguration()
        configuration.keepsJSON = true
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        let body = #"{"notes":[{"id":"a\"1","title":"x"},{"id":"b","title":"y\n","n":1}]}"#
        try decoder.feed(Array(body.utf8)[...], into: &notes)
        _ = try decoder.finish(into: &notes)
        #expect(
            notes.map(String.init(describing:)) == [
                #"Note(id: "a\"1", title: "x", json: "{\"id\":\"a\\\"1\",\"title\":\"x\"}")"#,
                #"Note(id: "b", title: "y\n", json: "{\"id\":\"b\",\"title\":\"y\\n\",\"n\":1}")"#,
            ])
        #expect("\(Note(id: "c", title: ""))" == #"Note(id: "c", title: "")"#, "no JSON kept, none printed")
    }

    @Test(
        "An id of any other type is a contract error naming it",
        arguments: [
            ("1.5", "id is a number with a fraction (1.5), not a string or an integer"),
            ("1e3", "id is a number with an exponent (1e3), not a string or an integer"),
            ("-2E-1", "id is a number with an exponent (-2E-1), not a string or an integer"),
            ("true", "id is a boolean, not a string or an integer"),
            ("null", "id is null, not a string or an integer"),
            (#"{"a": 1}"#, "id is an object, not a string or an integer"),
            ("[1]", "id is an array, not a string or an integer"),
            (#""""#, "id is an empty string"),
        ])
    func otherTypes(id: String, expected: String) {
        let result = ids(#"{"notes": [{"id": \#(id), "title": "x"}]}"#)
        #expect(message(result) == expected)
        if case .failure(let error) = result { #expect(error.code == .invalidID && error.noteIndex == 0) }
    }

    @Test(
        "A note's JSON is compact at any depth, past 64 levels too: each container's members separated as in the body",
        arguments: [1, 2, 63, 64, 65, 66, 129, 200])
    func jsonAtDepth(depth: Int) throws {
        // Level k holds a member before and after the level inside it, objects and arrays in turn, so that
        // whether a container already holds a member must be remembered across every level below it.
        func nested(_ level: Int, spaced: Bool) -> String {
            let gap = spaced ? " " : ""
            guard level < depth else { return "[]" }
            let inner = nested(level + 1, spaced: spaced)
            return level.isMultiple(of: 2)
                ? "{\"a\":\(gap)\(level),\(gap)\"n\":\(gap)\(inner),\(gap)\"z\":\(gap)[\(level)]}"
                : "[\(level),\(gap)\(inner),\(gap)\"\(level)\",\(gap){}]"
        }
        let body = "{\"notes\": [{\"id\": \"x\", \"v\": \(nested(0, spaced: true)), \"title\": \"t\"}]}"
        var configuration = PageConfiguration(limits: JSONLimits(maxDepth: depth + 4))
        configuration.keepsJSON = true
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        try decoder.feed(Array(body.utf8)[...], into: &notes)
        _ = try decoder.finish(into: &notes)
        let expected = "{\"id\":\"x\",\"v\":\(nested(0, spaced: false)),\"title\":\"t\"}"
        #expect(notes.map { String(decoding: $0.json ?? [], as: UTF8.self) } == [expected])
    }

    @Test("An integer and a string of the same digits are the same id")
    func integerAndStringCollide() {
        let result = ids(#"{"notes": [{"id": 42, "title": "a"}, {"id": "42", "title": "b"}]}"#)
        #expect(message(result) == #"duplicate id "42", seen earlier on this page"#)
        let reversed = ids(#"{"notes": [{"id": "7", "title": "a"}, {"id": 7, "title": "b"}]}"#)
        #expect(message(reversed) == #"duplicate id "7", seen earlier on this page"#)
    }

    @Test("The id and the title at paths inside the item (JSON:API's attributes), the rest of the item kept")
    func nestedPaths() throws {
        let body = #"""
            {"data": [{"type": "notes", "id": "1", "attributes": {"body": {"title": "not this"}, "title": "one"}},
                      {"attributes": {"title": "two", "uuid": 9}, "id": "2", "links": {"title": "no"}}]}
            """#
        let result = ids(body) {
            $0.itemsPath = FieldPath("data")
            $0.titlePath = FieldPath("attributes.title")
        }
        #expect(try result.get() == ["1", "2"])
        var configuration = PageConfiguration(itemsPath: FieldPath("data"))
        configuration.idPath = FieldPath("attributes.uuid")
        configuration.titlePath = FieldPath("attributes.title")
        configuration.keepsJSON = true
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        try decoder.feed(
            Array(#"{"data": [{"attributes": {"title": "t", "uuid": 9, "x": [{"uuid": 1}]}}]}"#.utf8)[...], into: &notes
        )
        _ = try decoder.finish(into: &notes)
        #expect(notes.map(\.id) == ["9"])
        #expect(notes.map(\.title) == ["t"])
        #expect(
            notes.first.flatMap { $0.json }.map { String(decoding: $0, as: UTF8.self) }
                == #"{"attributes":{"title":"t","uuid":9,"x":[{"uuid":1}]}}"#)
    }

    @Test("A path's id or title missing, twice, or of the wrong type is named by its path")
    func pathErrors() {
        let configure: (inout PageConfiguration) -> Void = {
            $0.idPath = FieldPath("meta.key")
            $0.titlePath = FieldPath("attributes.title")
        }
        #expect(
            message(ids(#"{"notes": [{"meta": {"key": 1}, "attributes": {}}]}"#, configure))
                == "note has no 'attributes.title'")
        #expect(
            message(ids(#"{"notes": [{"meta": {}, "attributes": {"title": ""}}]}"#, configure))
                == "note has no 'meta.key'")
        #expect(
            message(ids(#"{"notes": [{"meta": {"key": 1, "key": 2}}]}"#, configure)) == "note has two 'meta.key' fields"
        )
        #expect(
            message(ids(#"{"notes": [{"meta": {"key": 1}, "attributes": {"title": 3}}]}"#, configure))
                == "title is a number, not a string")
        // The id at a path is found only there: an `id` elsewhere in the item is just a field.
        #expect(
            message(ids(#"{"notes": [{"id": "x", "meta": [{"key": 1}], "attributes": {"title": ""}}]}"#, configure))
                == "note has no 'meta.key'")
    }

    @Test("With no title path, items need none; a title is then just a field")
    func noTitle() throws {
        let result = ids(#"{"notes": [{"id": 1}, {"id": 2, "title": 5}]}"#) { $0.titlePath = nil }
        #expect(try result.get() == ["1", "2"])
        #expect(message(ids(#"{"notes": [{"id": 1}]}"#)) == "note has no 'title'")
    }

    @Test("The id and title paths may not overlap, nor be empty")
    func pathProblems() {
        var configuration = PageConfiguration()
        configuration.titlePath = FieldPath("id")
        #expect(configuration.pathProblem == "the id path 'id' and the title path 'id' overlap")
        configuration.titlePath = FieldPath("a.b")
        configuration.idPath = FieldPath("a")
        #expect(configuration.pathProblem != nil)
        configuration.idPath = FieldPath("")
        #expect(configuration.pathProblem == "the id path is empty")
    }

    @Test(
        "A path is dotted, or an RFC 6901 JSON Pointer when it starts with /",
        arguments: [
            ("results", [["results"]], "results"),
            ("meta.pagination.count", [["meta", "pagination", "count"]], "meta.pagination.count"),
            ("/@odata.nextLink", [["@odata.nextLink"]], "/@odata.nextLink"),
            ("/a~1b/c~0d/~01", [["a/b", "c~d", "~1"]], "a/b.c~d.~1"),
            ("/data/", [["data", ""]], "/data/"),
            ("/", [[""]], "/"),
            ("//x", [["", "x"]], "//x"),
        ])
    func parsing(text: String, keys: [[String]], description: String) throws {
        let path = try FieldPath.parse(text)
        #expect(path.components == keys[0].map { Array($0.utf8) })
        #expect(path.description == description)
        #expect(try FieldPath.parse(path.description) == path, "the description names the same path")
    }

    @Test(
        "A text that cannot be a path says why",
        arguments: [
            ("", "'' is not a path: it is empty"),
            ("a..b", "'a..b' is not a path: a key is empty (a JSON Pointer starting with / takes any key)"),
            (".a", "'.a' is not a path: a key is empty (a JSON Pointer starting with / takes any key)"),
            ("/a~2", "'/a~2' is not a path: '~' must be followed by 0 or 1"),
            ("/a~", "'/a~' is not a path: '~' must be followed by 0 or 1"),
        ])
    func invalidPaths(text: String, expected: String) {
        #expect(throws: FieldPath.SyntaxError.self) { try FieldPath.parse(text) }
        do {
            _ = try FieldPath.parse(text)
        } catch {
            #expect(error.description == expected)
        }
        let deep = Array(repeating: "k", count: FieldPath.maxComponents + 1).joined(separator: ".")
        #expect(throws: FieldPath.SyntaxError.self) { try FieldPath.parse(deep) }
    }

    @Test("A JSON Pointer reaches keys with dots: the items at /@odata.value, the id at /a.b")
    func pointerKeys() throws {
        let result = ids(#"{"@odata.value": [{"a.b": 5, "title": ""}]}"#) {
            $0.itemsPath = try! FieldPath.parse("/@odata.value")
            $0.idPath = try! FieldPath.parse("/a.b")
        }
        #expect(try result.get() == ["5"])
    }
}

/// Paths nobody gave, found on the page: the items as the one array of objects at the top level (or the one
/// with a common name), the next value at one of the common places.
@Suite("Paths found on the page: items, next value, or a clear error that names the candidates")
struct PathDetectionTests {
    func summary(_ body: String) -> Result<(PageDecoder.Summary, [String]), PageError> {
        var configuration = PageConfiguration()
        configuration.detects = [.items, .next]
        configuration.titlePath = nil
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        let bytes = Array(body.utf8)
        do throws(PageError) {
            try decoder.feed(bytes[..<(bytes.count / 2)], into: &notes)
            try decoder.feed(bytes[(bytes.count / 2)...], into: &notes)
            let summary = try decoder.finish(into: &notes)
            return .success((summary, notes.map(\.id)))
        } catch {
            return .failure(error)
        }
    }

    @Test("Django REST framework's page: results and next are found, the count is just a field")
    func djangoRESTFramework() throws {
        let (summary, ids) = try summary(
            #"{"count": 3, "next": "http://h/n?page=2", "previous": null, "results": [{"id": 1}, {"id": 2}]}"#
        ).get()
        #expect(ids == ["1", "2"])
        #expect(summary.detectedItemsPath == FieldPath("results"))
        #expect(summary.detectedNextPath == FieldPath("next"))
        #expect(summary.nextCursor == "http://h/n?page=2" && summary.hasNextValue)
    }

    @Test("The defaults where they are: nothing is found, nothing changes")
    func defaults() throws {
        let (summary, ids) = try summary(#"{"notes": [{"id": "a"}], "next_cursor": "c2"}"#).get()
        #expect(ids == ["a"])
        #expect(summary.detectedItemsPath == nil && summary.detectedNextPath == nil)
        #expect(summary.nextCursor == "c2")
    }

    @Test("JSON:API: data beside included (a common name wins over another), links.next, a null next is the end")
    func jsonAPI() throws {
        let (summary, ids) = try summary(
            #"{"links": {"next": null}, "data": [{"id": "1"}], "included": [{"id": "9"}], "meta": {"pagination": {"count": 1}}}"#
        ).get()
        #expect(ids == ["1"])
        #expect(summary.detectedItemsPath == FieldPath("data"))
        #expect(summary.detectedNextPath == FieldPath("links.next"))
        #expect(summary.nextCursor == nil && summary.hasNextValue)
    }

    @Test("Any top-level array of objects when it is the only one; arrays of other values are passed over")
    func onlyArrayOfObjects() throws {
        let (summary, ids) = try summary(#"{"columns": ["id"], "things": [{"id": 5}], "/odd": 1}"#).get()
        #expect(ids == ["5"])
        #expect(summary.detectedItemsPath == FieldPath("things"))
        #expect(
            try self.summary(#"{"@odata.nextLink": "http://h/n?skip=2", "value": [{"id": 1}]}"#).get().0.nextCursor
                == "http://h/n?skip=2")
    }

    @Test("An empty array with a common name is an empty page; a later array of objects takes its place")
    func emptyCommonArray() throws {
        let (empty, none) = try summary(#"{"results": [], "next": null}"#).get()
        #expect(none.isEmpty && empty.detectedItemsPath == FieldPath("results"))
        let (later, ids) = try summary(#"{"items": [], "results": [{"id": 1}]}"#).get()
        #expect(ids == ["1"] && later.detectedItemsPath == FieldPath("results"))
    }

    @Test("Two candidates is an error naming both and the option to pass, never a guess")
    func ambiguous() {
        func message(_ body: String) -> String? {
            if case .failure(let error) = summary(body) { return error.message }
            return nil
        }
        #expect(
            message(#"{"results": [{"id": 1}], "data": [{"id": 2}]}"#)
                == "the page has two arrays of objects that could be the items, 'results' and 'data': pass --items-path"
        )
        #expect(
            message(#"{"facets": [{"id": 1}], "others": [{"id": 2}]}"#)
                == "the page has two arrays of objects that could be the items, 'facets' and 'others': pass --items-path"
        )
        #expect(
            message(#"{"notes": [{"id": 1}], "next": "a", "next_page": "b"}"#)
                == "the page has two values that could be the next page's, 'next' and 'next_page': pass --next-path")
        #expect(
            message(#"{"columns": ["a"], "rows": [[1, 2]]}"#)
                == "no 'notes' array in the page, nor an array of objects at its top level (arrays of other values: 'columns', 'rows'): pass --items-path"
        )
        #expect(
            message(#"{"count": 0}"#)
                == "no 'notes' array in the page, nor any array of objects at its top level: pass --items-path")
    }
}

extension RecordTests {
    @Test("A note is its bytes: equal and hashed alike wherever they live; an empty JSON is JSON, not none")
    func noteValue() throws {
        let made = Note(id: "n1", title: "t", json: #"{"id":"n1","title":"t"}"#)
        var decoder = PageDecoder()
        var notes: [Note] = []
        try decoder.feed(Array(#"{"notes":[{"id":"n0","title":"s"},{"id":"n1","title":"t"}]}"#.utf8), into: &notes)
        _ = try decoder.finish(into: &notes)
        // The second note shares its buffer with the first, and sits past its bytes.
        #expect(notes.count == 2 && notes[1] == made && notes[0] != made)
        #expect(Set([notes[1], made]).count == 1)
        #expect(notes[1].idBytes.elementsEqual("n1".utf8) && notes[1].titleBytes.elementsEqual("t".utf8))
        let empty = Note(id: "n1", title: "t", json: "")
        #expect(empty.json?.isEmpty == true && empty != Note(id: "n1", title: "t"))
        #expect(Note(id: "n1", title: "t").json == nil)
        // A note of no bytes at all is made too.
        let nothing = Note(id: "", title: "")
        #expect(nothing.id.isEmpty && nothing.title.isEmpty && nothing.json == nil)
    }
}
