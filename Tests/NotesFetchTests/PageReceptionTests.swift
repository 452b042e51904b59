import NotesFetch
import NotesJSON
import NotesPage
import Testing

@Suite("A page's reception")
struct PageReceptionTests {
    @Test("Chunks are held back for the next request's peek only while they would be decoded on this thread")
    func heldOnlyWhenDecodedHere() {
        let worker = JSONPipelineWorker(name: "test-reception")
        // Past 32 KiB a page is parsed on the lane's second thread from its first byte: taking a chunk is a
        // copy, and holding it would only start the parse later. Under it, a chunk is decoded as it comes.
        for (length, held) in [(100 << 10, false), (32 << 10, true), (nil, true)] {
            let reception = PageReception(configuration: PageConfiguration(), ids: IDSet(capacity: 1), worker: worker)
            reception.makeNextRequest = { _, _ in nil }
            var headers = [HTTPHeader("Content-Type", "application/json")]
            if let length { headers.append(HTTPHeader("Content-Length", "\(length)")) }
            #expect(reception.receive(head: HTTPResponseHead(status: 200, headers: headers)))
            #expect(reception.awaitsNextRequest == held, "Content-Length \(length.map(String.init) ?? "none")")
        }
        // Nothing to peek for: never held.
        let reception = PageReception(configuration: PageConfiguration(), ids: IDSet(capacity: 1), worker: worker)
        _ = reception.receive(
            head: HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")]))
        #expect(!reception.awaitsNextRequest)
    }
}
