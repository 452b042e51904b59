import Dispatch
import NotesPage
import Testing

@testable import NotesJSON

// The same suite: how long the caller waits for the parsing thread when it asks about the page's start.

extension PipelineTests {
    @Test("Whether the next value came first is known once the items start, without waiting for the rest")
    func startWaitedForAlone() throws {
        let worker = JSONPipelineWorker(name: "test-start")
        let body = page(count: 600, seed: 12)
        let ring = JSONPipelineOptions(threshold: 0, blockBytes: 8 << 10, blocks: 32)
        #expect(body.count < ring.blockBytes * ring.blocks, "the page fits the ring: its feed never waits")
        // The worker's thread runs its jobs in turn: the page's parse starts once the gate opens.
        let gate = DispatchSemaphore(value: 0)
        worker.run { gate.wait() }
        let ids = IDSet()
        var decoder = PageDecoder(ids: ids, pipeline: ring, worker: worker)
        var notes: [Note] = []
        try decoder.feed(body, into: &notes)
        let pipelined = decoder.isPipelined
        #expect(pipelined && ids.count == 0, "nothing parsed before the gate opens")
        gate.signal()
        let nextFirst = decoder.hasReadNextBeforeItems
        #expect(!nextFirst)
        // The first block's notes, replayed as soon as it was parsed; the other blocks are left to replay.
        #expect(ids.count > 0 && ids.count < 100, "\(ids.count) of 600 notes replayed to find the items")
        _ = try decoder.finish(into: &notes)
        #expect(notes.count == 600 && ids.count == 600)
    }
}
