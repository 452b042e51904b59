import Foundation
import NotesPage
import Testing

@testable import NotesJSON

// The same suite: a page begun on the worker while the page before it is still being finished.

extension PipelineTests {
    /// A page of `count` notes whose ids are `prefix` and a number, so that two pages share none.
    fileprivate func page(count: Int, seed: UInt64, prefix: String) -> [UInt8] {
        let text = String(decoding: NotesPageTests.page(count: count, seed: seed), as: UTF8.self)
        return Array(text.replacingOccurrences(of: #""id":"n"#, with: #""id":"\#(prefix)"#).utf8)
    }

    fileprivate static let ring = JSONPipelineOptions(threshold: 0, blockBytes: 8 << 10, blocks: 32)

    @Test(
        "A page begun ahead parses behind the page before it on one worker: its ids enter the set only once released",
        .timeLimit(.minutes(1)))
    func beganAhead() throws {
        let worker = JSONPipelineWorker(name: "test-ahead")
        let ids = IDSet()
        let first = page(count: 300, seed: 3, prefix: "a")
        let second = page(count: 300, seed: 4, prefix: "b")
        var before = PageDecoder(ids: ids, commitsIDs: false, pipeline: Self.ring, worker: worker)
        var beforeNotes: [Note] = []
        try before.feed(first, into: &beforeNotes)
        let pipelined = before.isPipelined
        #expect(pipelined)

        var next = PageDecoder(ids: ids, commitsIDs: false, pipeline: Self.ring, worker: worker)
        next.beginAhead()
        let elsewhere = next.parsesElsewhere
        #expect(elsewhere)
        next.hold()
        var nextNotes: [Note] = []
        let half = second.count / 2
        var fits = next.canHold(byteCount: half)
        #expect(fits)
        try next.feed(second[..<half], into: &nextNotes)
        // The page before finishes while the next one's parse waits on the same thread for bytes to come.
        _ = try before.finish(into: &beforeNotes)
        #expect(beforeNotes.count == 300 && ids.count == 300)
        ids.commitPage()
        // The next page's parse runs now; more of its bytes come, and still nothing of it is handled.
        Thread.sleep(forTimeInterval: 0.05)
        fits = next.canHold(byteCount: second.count - half)
        #expect(fits)
        try next.feed(second[half...], into: &nextNotes)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(nextNotes.isEmpty && ids.count == 300, "\(ids.count - 300) ids of the page held went into the set")

        try next.release(into: &nextNotes)
        _ = try next.finish(into: &nextNotes)
        #expect(nextNotes.count == 300 && ids.count == 600)
        var alone = PageDecoder(pipeline: .singleThreaded)
        var aloneNotes: [Note] = []
        try alone.feed(second, into: &aloneNotes)
        _ = try alone.finish(into: &aloneNotes)
        #expect(nextNotes == aloneNotes, "the notes of one thread")
        #expect(worker.documentsParsed == 2)
    }

    @Test(
        "A page begun ahead and dropped takes no id back, and its parse leaves the worker", .timeLimit(.minutes(1)))
    func droppedAhead() throws {
        let worker = JSONPipelineWorker(name: "test-ahead")
        let ids = IDSet()
        var before = PageDecoder(ids: ids, commitsIDs: false, pipeline: Self.ring, worker: worker)
        var notes: [Note] = []
        try before.feed(page(count: 200, seed: 5, prefix: "a"), into: &notes)
        _ = try before.finish(into: &notes)
        do {
            var next = PageDecoder(ids: ids, commitsIDs: false, pipeline: Self.ring, worker: worker)
            next.beginAhead()
            next.hold()
            var held: [Note] = []
            try next.feed(page(count: 100, seed: 6, prefix: "b")[..<5000], into: &held)
        }
        // The page before is still the set's open page, whole.
        #expect(ids.count == 200)
        ids.commitPage()
        #expect(ids.count == 200)
        // The dropped page's job has ended: a later page parses on the same worker.
        var later = PageDecoder(ids: ids, commitsIDs: true, pipeline: Self.ring, worker: worker)
        var laterNotes: [Note] = []
        try later.feed(page(count: 200, seed: 7, prefix: "c"), into: &laterNotes)
        _ = try later.finish(into: &laterNotes)
        #expect(laterNotes.count == 200 && ids.count == 400)
    }

    @Test(
        "An error in the bytes held is thrown once released, as one thread throws it",
        .timeLimit(.minutes(1)), arguments: [true, false], [false, true])
    func errorHeldUntilRelease(keepsJSON: Bool, badUTF8: Bool) throws {
        let worker = JSONPipelineWorker(name: "test-ahead")
        let configuration = PageConfiguration(keepsJSON: keepsJSON)
        var body = page(count: 100, seed: 8, prefix: "b")
        body.removeLast(40)
        // A trailing comma in the notes (yajl's error), or a byte that is no UTF-8 (the scan's).
        body += badUTF8 ? [0x22, 0xFF, 0x22, 0x5D, 0x7D] : Array(#"}, ]}"#.utf8)
        var alone = PageDecoder(configuration: configuration, pipeline: .singleThreaded)
        var aloneNotes: [Note] = []
        var expected: PageError?
        do {
            try alone.feed(body, into: &aloneNotes)
            _ = try alone.finish(into: &aloneNotes)
        } catch { expected = error }
        #expect(expected != nil)

        var next = PageDecoder(
            configuration: configuration, ids: IDSet(), commitsIDs: false, pipeline: Self.ring, worker: worker)
        next.beginAhead()
        next.hold()
        var notes: [Note] = []
        try next.feed(body, into: &notes)  // held: nothing is thrown, nothing handled
        #expect(notes.isEmpty)
        var thrown: PageError?
        do {
            try next.release(into: &notes)
            _ = try next.finish(into: &notes)
        } catch { thrown = error }
        #expect(thrown != nil && thrown?.kind == expected?.kind && thrown?.offset == expected?.offset)
        #expect(notes.count == aloneNotes.count, "the notes before the error, as on one thread")
    }
}
