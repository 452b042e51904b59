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

/// A page of `count` notes of about 200 bytes, its next cursor `next` first or last.
private func body(count: Int, next: String, nextFirst: Bool) -> [UInt8] {
    let notes = (0..<count).map {
        #"{"id":"n\#($0)","title":"t\#($0)","text":"\#(String(repeating: "x", count: 160))"}"#
    }
    let cursor = #""next_cursor":"\#(next)""#
    let items = #""notes":[\#(notes.joined(separator: ","))]"#
    return Array((nextFirst ? "{\(cursor),\(items)}" : "{\(items),\(cursor)}").utf8)
}

private func head(length: Int) -> HTTPResponseHead {
    HTTPResponseHead(
        status: 200,
        headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Length", "\(length)")])
}

extension PageReceptionTests {
    @Test("A page begun ahead takes only what its ring holds, and nothing of it is handled until released")
    func aheadTakesWhatTheRingHolds() throws {
        let worker = JSONPipelineWorker(name: "test-reception")
        let ids = IDSet()
        let page = body(count: 2000, next: "c2", nextFirst: false)
        let reception = PageReception(configuration: PageConfiguration(), ids: ids, worker: worker)
        reception.beginAhead()
        #expect(reception.receive(head: head(length: page.count)))
        var offset = 0
        while offset < page.count {
            let end = min(page.count, offset + 16384)
            guard reception.takesAhead(count: end - offset) else { break }
            let taken = page[offset..<end].withUnsafeBytes { reception.receive(body: $0) }
            #expect(taken)
            offset = end
        }
        #expect(offset > 0 && offset < page.count, "took \(offset) of \(page.count) bytes ahead")
        #expect(ids.count == 0 && reception.notes.isEmpty && reception.problem == nil)
        // The attempt takes it over: the rest as it comes, peeked at for the next request.
        var asked: String?
        reception.makeNextRequest = { _, value in
            asked = value
            return HTTPRequest(url: "http://127.0.0.1/\(value)")
        }
        reception.release()
        while offset < page.count {
            let end = min(page.count, offset + 16384)
            page[offset..<end].withUnsafeBytes { chunk in
                _ = reception.nextRequest(peekingAt: chunk)
                #expect(reception.receive(body: chunk))
            }
            offset = end
        }
        _ = try reception.finish()
        #expect(reception.notes.count == 2000 && ids.count == 2000)
        #expect(asked == "c2" && reception.sentEarly?.url == "http://127.0.0.1/c2")
    }

    @Test("A next value in the chunks taken ahead makes the next request once the attempt takes the page over")
    func nextReadAhead() throws {
        let worker = JSONPipelineWorker(name: "test-reception")
        let page = body(count: 300, next: "c9", nextFirst: false)
        let reception = PageReception(configuration: PageConfiguration(), ids: IDSet(), worker: worker)
        reception.beginAhead()
        #expect(reception.receive(head: head(length: page.count)))
        #expect(reception.takesAhead(count: page.count))
        page.withUnsafeBytes { chunk in
            #expect(reception.nextRequest(peekingAt: chunk) == nil, "nothing asked before the attempt says how")
            #expect(reception.receive(body: chunk))
        }
        reception.makeNextRequest = { _, value in HTTPRequest(url: "http://127.0.0.1/\(value)") }
        reception.release()
        let next = reception.nextRequest(peekingAt: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(next?.url == "http://127.0.0.1/c9")
        _ = try reception.finish()
        #expect(reception.notes.count == 300)
    }
}
