import Foundation
import NotesJSON
import NotesPage
import TestSupport
import Testing

@Suite("Two threads decode as one")
struct PipelineTests {
    @Test("A page past the threshold goes to two threads; one under it stays on one")
    func threshold() {
        let body = page(count: 3000)
        #expect(body.count > 256 << 10)
        let configuration = PageConfiguration()
        let one = trace(chunks(body, size: 64 << 10), configuration: configuration, pipeline: .singleThreaded)
        let two = trace(
            chunks(body, size: 64 << 10), configuration: configuration, pipeline: .init(), expectPipelined: true)
        #expect(one.error == nil && one.notes.count == 3000)
        #expect(two.agrees(with: one))
        let small = page(count: 100)
        _ = trace(
            chunks(small, size: 64 << 10), configuration: configuration, pipeline: .init(), expectPipelined: false)
        // One chunk of the whole page moves to two threads too, past the threshold.
        let whole = trace([body[...]], configuration: configuration, pipeline: .init(), expectPipelined: true)
        #expect(whole.notes == one.notes && whole.summary == one.summary)
    }

    @Test("Same notes, offsets, next values and summary, whatever the chunking and ring", arguments: [false, true])
    func agreement(nextFirst: Bool) {
        let body = page(count: 1500, nextFirst: nextFirst, seed: nextFirst ? 7 : 8)
        for keepsJSON in [true, false] {
            var configuration = PageConfiguration()
            configuration.keepsJSON = keepsJSON
            for size in [1 << 10, 7777, 64 << 10, body.count] {
                let pieces = chunks(body, size: size)
                let one = trace(pieces, configuration: configuration, pipeline: .singleThreaded)
                #expect(one.error == nil)
                for ring in rings {
                    let two = trace(pieces, configuration: configuration, pipeline: ring)
                    #expect(two.agrees(with: one, ring: ring), "chunks of \(size), ring \(ring): \(two) vs \(one)")
                }
            }
        }
    }

    /// Faults planted near one another: whichever comes first in the body must win, with its offset and
    /// message, and the notes before it must come out, as on one thread.
    @Test(
        "The first error in the body wins, whichever thread finds it",
        arguments: [
            ("invalid UTF-8 (the scanner)", #""title":"t1"#, #""title":"t\#u{FFFD}"#),
            ("syntax (yajl)", #""id":"n1"#, #""id":"n1"]"#),
            ("duplicate id (the page)", #""id":"n1""#, #""id":"n0""#),
            ("missing title (the page)", #""title":"t1"#, #""titre":"t1"#),
            ("a string over the cap (the scanner)", #""id":"n1""#, #""id":"n1\#(String(repeating: "x", count: 700))""#),
            ("too deep (the scanner)", #""id":"n1""#, #""id":"n1","d":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]"#),
        ]
    )
    func firstErrorWins(what: String, find: String, replace: String) {
        // With each note's JSON the scan runs on the parsing thread, without it on the caller's.
        for keepsJSON in [true, false] {
            firstErrorWins(what: what, find: find, replace: replace, keepsJSON: keepsJSON)
        }
    }

    private func firstErrorWins(what: String, find: String, replace: String, keepsJSON: Bool) {
        var configuration = PageConfiguration(keepsJSON: keepsJSON)
        configuration.limits.maxTokenBytes = 600
        configuration.limits.maxDepth = 16
        let clean = page(count: 2500, seed: 3)
        let text = String(decoding: clean, as: UTF8.self)
        // The fault at several places, some two faults close together (the later one must lose).
        let places = [1, 400, 401, 2498]
        for (index, place) in places.enumerated() {
            var body = text.replacingOccurrences(of: find.replacingOccurrences(of: "1", with: "\(place)"), with: "@@")
            let planted = replace.replacingOccurrences(of: "1", with: "\(place)")
            body = body.replacingOccurrences(of: "@@", with: planted)
            if index == 2 {  // and, a note later, an invalid byte the scanner finds
                body = body.replacingOccurrences(of: #""id":"n402""#, with: "\"id\":\"n402\u{1}\"")
            }
            var bytes = Array(body.utf8)
            if what.hasPrefix("invalid UTF-8") {  // U+FFFD's bytes become a lone continuation byte
                if let at = bytes.firstIndex(of: 0xEF) { bytes.replaceSubrange(at..<at + 3, with: [0x80]) }
            }
            for size in [1000, 64 << 10, bytes.count] {
                let pieces = chunks(bytes, size: size)
                let one = trace(pieces, configuration: configuration, pipeline: .singleThreaded)
                #expect(one.error != nil, "\(what) at note \(place)")
                for ring in rings {
                    let two = trace(pieces, configuration: configuration, pipeline: ring)
                    #expect(
                        two.agrees(with: one, ring: ring),
                        "\(what) at note \(place), chunks of \(size), ring \(ring): \(two) vs \(one)")
                }
            }
        }
    }

    /// With chunks of 1000 bytes into blocks of 4096 no feed fills its last block (each block takes four
    /// chunks and 96 bytes are left), so the block that holds the violation is still the caller's when the
    /// feed is done with it: the parsing thread cannot have seen it, and only a feed that stops at the
    /// violation itself can throw it. That holds whatever the threads' pace. With chunks of a block each,
    /// every feed hands its block over, and the parsing thread may or may not have parsed it by then.
    @Test(
        "Typed notes on two threads: a violation the scan finds stops the very feed that holds it, as on one",
        arguments: [1000, 4096])
    func violationStopsItsFeed(chunkSize: Int) {
        var body = page(count: 1500, seed: 61)
        let title = Array("\"t900 ".utf8)  // note 900's title, about three fifths in
        let at = (0...(body.count - title.count)).first { body[$0..<$0 + title.count].elementsEqual(title) }!
        body.insert(0x80, at: at + title.count)  // a lone continuation byte inside the string
        let pieces = chunks(body, size: chunkSize)
        let configuration = PageConfiguration(keepsJSON: false)  // the scan runs on the caller's thread
        var outcomes: [(index: Int?, error: PageError?)] = []
        for pipeline in [.singleThreaded, JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 2)] {
            var decoder = PageDecoder(configuration: configuration, pipeline: pipeline)
            var notes: [Note] = []
            var outcome: (index: Int?, error: PageError?) = (nil, nil)
            for (index, piece) in pieces.enumerated() {
                do throws(PageError) { try decoder.feed(piece, into: &notes) } catch {
                    outcome = (index, error)
                    break
                }
            }
            outcomes.append(outcome)
        }
        #expect(outcomes[0].error?.offset == at + title.count && outcomes[0].index == (at + title.count) / chunkSize)
        #expect(
            outcomes[1].index == outcomes[0].index && outcomes[1].error == outcomes[0].error,
            "two threads threw at chunk \(outcomes[1].index ?? -1), one at chunk \(outcomes[0].index ?? -1)")
    }

    @Test("The notes cap and the page byte cap hold on two threads")
    func limits() {
        let body = page(count: 2000, seed: 5)
        let cases = [(1999, Int.max), (2000, Int.max), (100_000, body.count - 10), (100_000, 300_000)]
        for (notes, bytes) in cases {
            for keepsJSON in [true, false] {
                var configuration = PageConfiguration(maxPageNotes: notes, keepsJSON: keepsJSON)
                configuration.limits.maxDocumentBytes = bytes
                for size in [4096, 64 << 10] {
                    let pieces = chunks(body, size: size)
                    let one = trace(pieces, configuration: configuration, pipeline: .singleThreaded)
                    for ring in rings {
                        let two = trace(pieces, configuration: configuration, pipeline: ring)
                        #expect(
                            two.agrees(with: one, ring: ring), "\(notes), \(bytes), \(keepsJSON): \(two) vs \(one)")
                    }
                }
            }
        }
    }

    /// The caller sleeps until half the blocks it waits for are parsed; a parse that ends at an error before
    /// that many must still wake it, with the error. The error sits late in the page, where the caller,
    /// which replays faster than yajl parses, is most often already asleep.
    @Test("A parse that ends at an error wakes a caller waiting for blocks past it")
    func errorWakesWaitingCaller() throws {
        let clean = page(count: 3000, seed: 17)
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 32)
        for share in [70, 85, 95, 99] {
            var body = clean
            let id = Array(#""id":"n\#(3000 * share / 100)""#.utf8)
            let at = try #require((0...(body.count - id.count)).first { body[$0..<$0 + id.count].elementsEqual(id) })
            body.insert(UInt8(ascii: "]"), at: at + id.count)  // a syntax error only yajl finds
            for size in [16 << 10, body.count] {
                for _ in 0..<5 {
                    let two = trace(chunks(body, size: size), configuration: PageConfiguration(), pipeline: ring)
                    #expect(two.error?.code == .invalidJSON, "error at \(share) % of the page, chunks of \(size)")
                    #expect(two.error?.offset == at + id.count)
                }
            }
        }
    }

    /// A repeated id is taken into the id set at its note's end; a fault of the same note after the id
    /// (a second id, a title of another type, a syntax error, a string over the cap, the body's end) still
    /// loses to it, as it comes later in the body.
    @Test(
        "A repeated id wins over a later fault of its note, with the id's offset, on one thread and two",
        arguments: [
            #"{"id":"f7","id":"x","title":"t"}"#, #"{"id":"f7","title":5}"#, #"{"id":"f7","title":"t"]"#,
            #"{"id":"f7","title":"\#(String(repeating: "x", count: 700))"}"#, #"{"id":"f7","title":"t""#,
        ])
    func duplicateBeforeLaterFault(note: String) throws {
        let filler = (0..<3000).map { #"{"id":"f\#($0)","title":"t"}"# }.joined(separator: ",")
        let head = #"{"notes":["# + filler + ","
        let body = Array((head + note + (note.hasSuffix(#""t""#) ? "" : "]}")).utf8)
        let idEnd = head.utf8.count + #"{"id":"f7""#.utf8.count
        var configuration = PageConfiguration()
        configuration.limits.maxTokenBytes = 600
        for size in [1000, body.count] {
            let one = trace(chunks(body, size: size), configuration: configuration, pipeline: .singleThreaded)
            #expect(one.error?.code == .duplicateID(firstPage: 0), "\(one)")
            #expect(one.error?.offset == idEnd && one.error?.noteIndex == 3000)
            for ring in rings {
                let two = trace(chunks(body, size: size), configuration: configuration, pipeline: ring)
                #expect(two.agrees(with: one, ring: ring), "ring \(ring): \(two) vs \(one)")
            }
        }
    }

    @Test("Every split point of a small page, with a ring of one tiny block")
    func everySplit() {
        let bodies = [
            Array(
                #"{"notes":[{"id":"a","title":"\u00e9\n"},{"title":"x","id":"b","n":[1e5,{}]}],"next_cursor":12}"#.utf8),
            Array(#"[{"id":"a","title":"b"},{"id":"a","title":"c"}]"#.utf8),
            Array(#"{"next_cursor":"x","notes":[{"id":"a","title":"b"}] "#.utf8),
            Array(#"{"notes":[{"id":"a","title":"b"}]} ""#.utf8),
            Array("{\"notes\":[{\"id\":\"a\",\"title\":\"b\u{7}\"}]}".utf8),
            Array("7".utf8),
        ]
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 16, blocks: 1)
        for body in bodies {
            for split in 0...body.count {
                for keepsJSON in [true, false] {
                    let configuration = PageConfiguration(keepsJSON: keepsJSON)
                    let pieces = [body[..<split], body[split...]]
                    let one = trace(pieces, configuration: configuration, pipeline: .singleThreaded)
                    let two = trace(pieces, configuration: configuration, pipeline: ring)
                    #expect(
                        two.agrees(with: one, ring: ring),
                        "\(String(decoding: body, as: UTF8.self)) split at \(split), JSON kept: \(keepsJSON)")
                }
            }
        }
    }

    /// Without the notes' JSON, the replay passes over what only nests (a note's other members, containers
    /// no path leads into) by its shape alone: each body has some of that around what must still be read.
    @Test(
        "Without the notes' JSON, what a note nests and what the page skips read as on one thread",
        arguments: [
            (
                #"{"a":{"b":[1,{"c":[]}]},"notes":[{"x":{"id":"q","title":[]},"id":"a","title":"b","tags":["t",{"id":"z"}],"n":null},{"ids":1,"id":7,"title":"c","m":{"title":"d"}}],"z":[{"id":"a"}]}"#,
                "", ["a", "7"]
            ),
            (
                #"{"notes":[{"attributes":{"x":{"id":1},"id":"a","meta":{"title":"b","t":[2]}},"id":"no"},{"attributes":{"id":"b","meta":{"x":"y","title":"c"}},"meta":{"title":"x"}}]}"#,
                "nested", ["a", "b"]
            ),
            (
                #"{"edges":[{"cursor":"c1","node":{"id":"a","title":"b","x":[{}]}},{"node":{"id":"b","title":"c"},"more":{"node":1}}]}"#,
                "record", ["a", "b"]
            ),
            (#"[{"uuid":"a","title":"b","x":{"id":2}},{"uuid":"b","title":"c","y":[[]]}]"#, "detect", ["a", "b"]),
            (
                #"{"notes":[{"id":"a","title":"b","x":[1]},{"id":"a","title":"c","x":{"y":2}},{"id":"b","title":"d"}]}"#,
                "skip", ["a", "b"]
            ),
            (#"{"notes":[{"id":"a","x":{"title":"t"},"y":[{"title":"u"}]}]}"#, "", []),  // no title of its own
            // Keys as the page has them after unescaping, and keys too long for their length to tell.
            (#"{"notes":[{"\u0078yz":{"id":1},"\u0069d":"a","t\u0069tle":"b"}]}"#, "", ["a"]),
            (
                #"{"notes":[{""# + String(repeating: "z", count: 80) + #"":[1],""# + String(repeating: "k", count: 70)
                    + #"":"a","title":"b"}]}"#, "long", ["a"]
            ),
        ])
    func passedOver(body text: String, configured: String, ids expected: [String]) {
        let body = Array(text.utf8)
        var configuration = PageConfiguration(keepsJSON: false)
        switch configured {
        case "nested":
            configuration.idPath = FieldPath("attributes.id")
            configuration.titlePath = FieldPath("attributes.meta.title")
        case "record":
            configuration.itemsPath = FieldPath("edges")
            configuration.recordKey = "node"
        case "detect": configuration.detects = .id
        case "skip": configuration.duplicates = .skip
        case "long": configuration.idPath = FieldPath(String(repeating: "k", count: 70))
        default: break
        }
        let whole = trace([body[...]], configuration: configuration, pipeline: .singleThreaded)
        #expect(whole.notes == expected)
        #expect((whole.error?.code == .missingTitle) == expected.isEmpty)
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 16, blocks: 1)
        for split in 0...body.count {
            let pieces = [body[..<split], body[split...]]
            let one = trace(pieces, configuration: configuration, pipeline: .singleThreaded)
            let two = trace(pieces, configuration: configuration, pipeline: ring, expectPipelined: true)
            #expect(two.agrees(with: one, ring: ring), "split at \(split): \(two) vs \(one)")
        }
    }

    @Test("A page announced past the threshold moves to two threads at its first byte; one announced under it stays")
    func announced() {
        let body = page(count: 1500, seed: 41)
        let ring = JSONPipelineOptions(threshold: 64 << 10, blockBytes: 8 << 10, blocks: 8)
        #expect(body.count > 2 * ring.threshold)
        let pieces = chunks(body, size: 1000)
        let one = trace(pieces, configuration: PageConfiguration(), pipeline: .singleThreaded)
        let early = trace(
            pieces, configuration: PageConfiguration(), pipeline: ring, announce: body.count, expectPipelined: true)
        #expect(early.agrees(with: one, ring: ring))
        // A length under the threshold (a server that sends more than it said, or a wrong guess) keeps the
        // page on the caller's thread to the end.
        let stays = trace(
            pieces, configuration: PageConfiguration(), pipeline: ring, announce: 1000, expectPipelined: false)
        #expect(stays.agrees(with: one, ring: ring))
        // Without a length, the page moves once past the threshold, as before.
        let moves = trace(pieces, configuration: PageConfiguration(), pipeline: ring, expectPipelined: true)
        #expect(moves.agrees(with: one, ring: ring))
    }

    @Test("The ring never holds more blocks than its size, however far the decoder lags")
    func ringBound() {
        let body = page(count: 3000, seed: 11)
        for blocks in [1, 2, 4] {
            let ring = JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: blocks)
            var decoder = PageDecoder(pipeline: ring)
            var notes: [Note] = []
            try? decoder.feed(body, into: &notes)  // one chunk: the caller copies far ahead of the parse
            _ = try? decoder.finish(into: &notes)
            let peak = decoder.peakBlocksInUse
            #expect(notes.count == 3000)
            #expect(peak == blocks)
        }
    }
}
