import Foundation
import NotesJSON
import NotesPage
import Testing

// The same suite: what one page leaves to the next: a decoder dropped mid-page, a worker kept from page to
// page, a finished page's offset, a worker lent to another page.

extension PipelineTests {
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
}
