import NotesJSON
import NotesPage
import Testing

@Suite("Page limits while streaming")
struct PageLimitTests {
    /// An endless page of notes, one chunk at a time.
    struct NoteStream {
        private var index = 0
        private var started = false

        mutating func next(notes: Int = 500) -> [UInt8] {
            var chunk: [UInt8] = []
            if !started {
                chunk += Array(#"{"next_cursor": null, "notes": ["#.utf8)
                started = true
            }
            for _ in 0..<notes {
                chunk += Array(#"{"id": "n\#(index)", "title": "a note of a stream that never ends"},"#.utf8)
                index += 1
            }
            return chunk
        }
    }

    /// Past 256 KiB the page decodes on two threads: the scan on the caller's thread without each note's
    /// JSON, on the parsing thread with it. Either way the feed that crosses the cap throws.
    @Test("A 1 GiB stream of notes is refused at the page byte limit, exactly there", arguments: [false, true])
    func endlessPage(keepsJSON: Bool) {
        var configuration = PageConfiguration()
        configuration.limits.maxDocumentBytes = 8 << 20
        configuration.maxPageNotes = 1 << 30
        configuration.keepsJSON = keepsJSON
        var decoder = PageDecoder(configuration: configuration)
        var stream = NoteStream()
        var notes: [Note] = []
        var fed = 0
        var caught: PageError?
        do {
            while fed < 1 << 30 {
                let chunk = stream.next()
                try decoder.feed(chunk, into: &notes)
                fed += chunk.count
                notes.removeAll(keepingCapacity: true)
            }
        } catch {
            caught = error
        }
        #expect(caught?.code == .limitExceeded(.pageBytes(8 << 20)))
        #expect(caught?.offset == 8 << 20)
        #expect(fed < 8 << 20)
    }

    @Test("More notes than the page cap are refused at the first note over it")
    func tooManyNotes() {
        var configuration = PageConfiguration()
        configuration.maxPageNotes = 1_000
        var decoder = PageDecoder(configuration: configuration)
        var stream = NoteStream()
        var notes: [Note] = []
        var caught: PageError?
        do {
            for _ in 0..<10 { try decoder.feed(stream.next(notes: 300), into: &notes) }
        } catch {
            caught = error
        }
        #expect(caught?.code == .limitExceeded(.pageNotes(1_000)))
        #expect(notes.count == 1_000)
    }

    @Test("A page's ids join the run only when the page finishes")
    func pageAtomicIDs() throws {
        let ids = IDSet()
        let first = Array(
            #"{"notes": [{"id": "a", "title": "x"}, {"id": "b", "title": "y"}], "next_cursor": "2"}"#.utf8)
        let broken = Array(#"{"notes": [{"id": "c", "title": "x"}, {"id": "d"}], "next_cursor": "3"}"#.utf8)
        let retried = Array(
            #"{"notes": [{"id": "c", "title": "x"}, {"id": "d", "title": "z"}], "next_cursor": null}"#.utf8)
        #expect(
            decode([first[...]], ids: ids)
                == .page(notes: [#"{"id":"a","title":"x"}"#, #"{"id":"b","title":"y"}"#], next: "2"))
        guard case .failure(let error, _) = decode([broken[...]], ids: ids) else {
            Issue.record("the broken page was accepted")
            return
        }
        #expect(error.code == .missingTitle)
        #expect(!ids.contains("c"))
        guard case .page = decode([retried[...]], ids: ids) else {
            Issue.record("the retried page failed")
            return
        }
        #expect(ids.count == 4)
        // A page dropped half way (cancelled) gives its ids back too.
        do {
            var decoder = PageDecoder(ids: ids)
            var notes: [Note] = []
            try decoder.feed(Array(#"{"notes": [{"id": "e", "title": "x"}, "#.utf8), into: &notes)
            #expect(notes.count == 1 && ids.contains("e"))
        }
        #expect(!ids.contains("e"))
        // A duplicate across pages names the first page.
        let again = Array(#"{"notes": [{"id": "b", "title": "again"}], "next_cursor": null}"#.utf8)
        guard case .failure(let duplicate, _) = decode([again[...]], ids: ids) else {
            Issue.record("the duplicate was accepted")
            return
        }
        #expect(duplicate.code == .duplicateID(firstPage: 0))
        #expect(duplicate.message == #"duplicate id "b", seen on page 1"#)
    }

    @Test("An id of 65,535 bytes is taken; one byte more is a clear contract error, not a crash in the id set")
    func longestID() throws {
        func page(idBytes: Int) -> [UInt8] {
            Array(
                #"{"notes": [{"id": "a", "title": ""}, {"title": "", "id": "\#(String(repeating: "x", count: idBytes))"}]}"#
                    .utf8)
        }
        var configuration = PageConfiguration()
        configuration.limits.maxTokenBytes = 1 << 20
        #expect(
            decode(page(idBytes: IDSet.maxIDBytes), configuration: configuration)
                == .page(
                    notes: [
                        #"{"id":"a","title":""}"#,
                        #"{"title":"","id":"\#(String(repeating: "x", count: IDSet.maxIDBytes))"}"#,
                    ], next: nil))
        guard case .failure(let error, let before) = decode(page(idBytes: 65_536), configuration: configuration) else {
            Issue.record("a 65,536-byte id was accepted")
            return
        }
        #expect(error.code == .invalidID)
        #expect(before == 1)
        #expect(error.description == "id longer than 65535 bytes (note 1, byte 65595)")
    }
}
