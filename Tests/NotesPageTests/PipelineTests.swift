import Foundation
import NotesJSON
import NotesPage
import TestSupport
import Testing

/// What one decode of a page came to, down to what the caller can observe after each chunk.
private struct Trace: CustomStringConvertible {
    var notes: [String] = []
    var error: PageError?
    var summary: PageDecoder.Summary?
    /// `offset`, `hasReadNextBeforeItems` and `nextCursorRead` after each chunk that did not fail.
    var steps: [String] = []
    /// `offset` after the end or the error.
    var offset = 0
    var idsAfter = 0

    var description: String {
        let outcome = error.map { "\($0.code.name) at \($0.offset) note \($0.noteIndex ?? -1): \($0.message)" } ?? "ok"
        return "\(notes.count) notes, \(outcome), \(steps.count) steps, offset \(offset), ids \(idsAfter)"
    }

    /// Whether a decode on two threads (`self`, with `ring`) agrees with one on one thread: the same in
    /// every way, except that the error may be thrown by a later call (two threads lag), so the steps of
    /// one thread need only be the first steps of two. After an error, `offset` is the end of the piece
    /// the parse stopped in: the same only when the ring's blocks hold whole pieces (64 KiB).
    func agrees(with one: Trace, ring: JSONPipelineOptions = .init()) -> Bool {
        let samePieces = error == nil || ring.blockBytes >= JSONPipelineOptions().blockBytes
        return notes == one.notes && error == one.error && summary == one.summary
            && (!samePieces || offset == one.offset) && idsAfter == one.idsAfter
            && (error == nil ? steps == one.steps : steps.starts(with: one.steps))
    }
}

/// Decodes `chunks` with the given pipeline, into a fresh id set.
private func trace(
    _ chunks: [ArraySlice<UInt8>], configuration: PageConfiguration, pipeline: JSONPipelineOptions,
    worker: JSONPipelineWorker? = nil, announce: Int? = nil, expectPipelined: Bool? = nil
) -> Trace {
    let ids = IDSet()
    var result = Trace()
    do {
        var decoder = PageDecoder(configuration: configuration, ids: ids, pipeline: pipeline, worker: worker)
        if let announce { decoder.announce(byteCount: announce) }
        var notes: [Note] = []
        do {
            for (index, chunk) in chunks.enumerated() {
                try decoder.feed(chunk, into: &notes)
                if index == 0, announce != nil, let expectPipelined {
                    let pipelined = decoder.isPipelined
                    #expect(pipelined == expectPipelined, "as of the first chunk")
                }
                // The next value first: `offset` waits for the decoding to catch up, which would hide a lag.
                let nextFirst = decoder.hasReadNextBeforeItems
                let next = decoder.nextCursorRead ?? "nil"
                result.steps.append("\(nextFirst) \(next) \(decoder.offset)")
            }
            result.summary = try decoder.finish(into: &notes)
        } catch {
            result.error = error
        }
        result.offset = decoder.offset
        let pipelined = decoder.isPipelined
        let peak = decoder.peakBlocksInUse
        if let expectPipelined { #expect(pipelined == expectPipelined) }
        #expect(peak <= pipeline.blocks)
        result.notes = notes.map { String(decoding: $0.json ?? $0.idBytes, as: UTF8.self) }
    }
    result.idsAfter = ids.count
    return result
}

/// A page of `count` notes with every kind of value: escapes (which yajl unescapes into its own buffer),
/// non-ASCII text, numbers, nested values; `next` before or after the notes.
private func page(count: Int, nextFirst: Bool = false, seed: UInt64 = 1, items: String = "notes") -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var notes: [String] = []
    for index in 0..<count {
        let pick = random.next() % 6
        var fields = [#""id":"n\#(index)""#, #""title":"t\#(index) \u00e9\n\"é漢字🙂""#]
        switch pick {
        case 0: fields.append(#""tags":["a","b\\c",{"x":[1,2.5e3,-0]}]"#)
        case 1: fields.append(#""n":123456789012345678901234567890,"t":true,"f":false,"z":null"#)
        case 2: fields.insert(#""body":"\#(String(repeating: "lorem ipsum ", count: Int(random.next() % 40)))""#, at: 0)
        case 3:
            fields.append(
                #""esc":"\ud83d\ude00\t\u0000 \#(String(repeating: "\\\\", count: Int(random.next() % 30)))""#)
        default: break
        }
        if random.next() % 2 == 0 { fields.reverse() }
        notes.append("{" + fields.joined(separator: random.next() % 3 == 0 ? " , " : ",") + "}")
    }
    let list = "\"\(items)\": [\n" + notes.joined(separator: ",\n") + "\n]"
    let next = #""next_cursor": "c\u00e9-\#(count)""#
    return Array(("{" + (nextFirst ? next + ", " + list : list + ", " + next) + ", \"more\": {\"a\": [1]}}\n").utf8)
}

/// `body` cut into chunks of `size` bytes.
private func chunks(_ body: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
    stride(from: 0, to: max(body.count, 1), by: size).map { body[$0..<min(body.count, $0 + size)] }
}

/// Rings small enough that a page of a few hundred KiB crosses many blocks, waits for free ones, and
/// packs several chunks into one.
private let rings: [JSONPipelineOptions] = [
    JSONPipelineOptions(threshold: 0, blockBytes: 64 << 10, blocks: 4),
    JSONPipelineOptions(threshold: 0, blockBytes: 1000, blocks: 1),
    JSONPipelineOptions(threshold: 3000, blockBytes: 4096, blocks: 2),
    JSONPipelineOptions(threshold: 100_000, blockBytes: 333, blocks: 3),
]

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

    @Test("A decoder dropped mid-page stops its thread and takes its ids back")
    func dropMidPage() {
        let ids = IDSet()
        let first = page(count: 500, seed: 9).map { $0 }
        var decoder = PageDecoder(ids: ids)
        var notes: [Note] = []
        try? decoder.feed(first, into: &notes)
        _ = try? decoder.finish(into: &notes)
        #expect(ids.count == 500 && ids.committedPages == 1)

        let body = page(count: 4000, seed: 10).map { $0 }.map { $0 }
        let renamed = Array(
            String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""id":"n"#, with: #""id":"m"#).utf8)
        for stopAt in [renamed.count / 3, renamed.count * 2 / 3] {
            weak var shared: AnyObject?
            do {
                var decoder = PageDecoder(ids: ids, pipeline: JSONPipelineOptions(threshold: 0, blocks: 2))
                var notes: [Note] = []
                for chunk in chunks(Array(renamed[..<stopAt]), size: 64 << 10) {
                    try? decoder.feed(chunk, into: &notes)
                }
                shared = decoder.pipelineState
                let pipelined = decoder.isPipelined
                let nextFirst = decoder.hasReadNextBeforeItems
                #expect(pipelined && !nextFirst)
                #expect(!notes.isEmpty)
            }  // dropped here: the thread stops, the page's ids go
            #expect(ids.count == 500 && ids.committedPages == 1, "dropped after \(stopAt) bytes")
            #expect(shared == nil, "the thread ended with the decoder")
        }
        // A page that failed mid-way also leaves the set as it was, and says so at once on every call.
        var again = PageDecoder(ids: ids, pipeline: JSONPipelineOptions(threshold: 0, blocks: 2))
        notes = []
        let broken = Array(
            String(decoding: renamed, as: UTF8.self).replacingOccurrences(of: "\"m300\"", with: "1.5").utf8)
        var failure: PageError?
        for chunk in chunks(broken, size: 64 << 10) {
            do throws(PageError) { try again.feed(chunk, into: &notes) } catch {
                failure = error
                break
            }
        }
        if failure == nil { #expect(throws: PageError.self) { _ = try again.finish(into: &notes) } }
        #expect(notes.count == 300)
        #expect(ids.count == 500)
        #expect(throws: PageError.self) { _ = try again.finish(into: &notes) }
    }

    @Test("A worker kept from page to page: each page as on one thread, after pages that failed or were dropped")
    func workerAcrossPages() {
        let worker = JSONPipelineWorker()
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 3)
        let clean = page(count: 1200, seed: 21)
        // The same id twice, mid-page.
        let broken = Array(
            String(decoding: page(count: 1200, seed: 22), as: UTF8.self)
                .replacingOccurrences(of: #""id":"n700""#, with: #""id":"n699""#).utf8)
        var parsed = 0
        for round in 0..<2 {
            for body in [clean, broken] {
                let pieces = chunks(body, size: 5000)
                let one = trace(pieces, configuration: PageConfiguration(), pipeline: .singleThreaded)
                #expect((one.error == nil) == (body == clean))
                let two = trace(
                    pieces, configuration: PageConfiguration(), pipeline: ring, worker: worker, expectPipelined: true)
                #expect(two.agrees(with: one, ring: ring), "round \(round): \(two) vs \(one)")
                parsed += 1
                #expect(worker.documentsParsed == parsed, "every page on the worker's thread")
            }
            do {  // dropped mid-page, its blocks still full: the next page must not see them
                var decoder = PageDecoder(pipeline: ring, worker: worker)
                var notes: [Note] = []
                try? decoder.feed(clean[..<(clean.count / 2)], into: &notes)
                #expect(!notes.isEmpty)
            }
            parsed += 1
            #expect(worker.documentsParsed == parsed)
        }
    }

    @Test("A finished page asked for its offset leaves the worker's ring alone, though the next page has it")
    func finishedPageLetsGo() throws {
        let worker = JSONPipelineWorker()
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 3)
        let first = page(count: 300, seed: 51)
        let second = page(count: 900, seed: 52)
        var done = PageDecoder(ids: IDSet(), pipeline: ring, worker: worker)
        var notes: [Note] = []
        try done.feed(first, into: &notes)
        let summary = try done.finish(into: &notes)
        var next = PageDecoder(ids: IDSet(), pipeline: ring, worker: worker)
        var nextNotes: [Note] = []
        let pieces = chunks(second, size: 3000)
        for (index, piece) in pieces.enumerated() {
            try next.feed(piece, into: &nextNotes)
            if index == pieces.count / 2 {
                let offset = done.offset  // the finished page's: nothing of the next page's may be replayed
                #expect(offset == first.count && summary.byteCount == first.count)
            }
        }
        _ = try next.finish(into: &nextNotes)
        #expect(notes.count == 300 && nextNotes.count == 900)
        let one = trace(pieces, configuration: PageConfiguration(), pipeline: .singleThreaded)
        #expect(nextNotes.map { String(decoding: $0.json ?? $0.idBytes, as: UTF8.self) } == one.notes)
        #expect(worker.documentsParsed == 2)
    }

    @Test("A page that finds the worker lent decodes on a thread of its own, and both pages as on one thread")
    func workerLent() throws {
        let worker = JSONPipelineWorker()
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 2)
        let bodies = [page(count: 800, seed: 31), page(count: 900, seed: 32)]
        var first = PageDecoder(ids: IDSet(), pipeline: ring, worker: worker)
        var second = PageDecoder(ids: IDSet(), pipeline: ring, worker: worker)
        var notes: [[Note]] = [[], []]
        let pieces = bodies.map { chunks($0, size: 3000) }
        for index in 0..<max(pieces[0].count, pieces[1].count) {  // in turn, both open at once
            if index < pieces[0].count { try first.feed(pieces[0][index], into: &notes[0]) }
            if index < pieces[1].count { try second.feed(pieces[1][index], into: &notes[1]) }
        }
        _ = try first.finish(into: &notes[0])
        _ = try second.finish(into: &notes[1])
        let both = (first.isPipelined, second.isPipelined)
        #expect(both == (true, true))
        #expect(worker.documentsParsed == 1, "the first page held the worker, the second had a thread of its own")
        for index in 0..<2 {
            let one = trace(pieces[index], configuration: PageConfiguration(), pipeline: .singleThreaded)
            let same = notes[index].map { String(decoding: $0.json ?? $0.idBytes, as: UTF8.self) } == one.notes
            #expect(same && one.notes.count == [800, 900][index], "page \(index + 1)")
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
