import Dispatch
import Foundation
import NotesFetch
import Synchronization
import Testing

@testable import NotesURLSession

@Suite("The hand-off between the transfer thread and the decoder")
struct ResponseHandOffTests {
    /// Runs `produce` on another thread and returns everything the consumer took, in order.
    private func transfer(
        _ handOff: ResponseHandOff,
        stopAfter: Int? = nil,
        produce: @escaping @Sendable (ResponseHandOff) -> Void
    ) -> (bodies: [[UInt8]], heads: [Int]) {
        DispatchQueue.global().async {
            produce(handOff)
            handOff.finish()
        }
        var bodies: [[UInt8]] = []
        var heads: [Int] = []
        loop: while true {
            let event = handOff.next()
            defer { handOff.release() }
            switch event {
            case .head(let head): heads.append(head.status)
            case .body(let chunk):
                bodies.append(Array(chunk))
                if let stopAfter, bodies.count == stopAfter { handOff.stop() }
            case .end: break loop
            }
        }
        return (bodies, heads)
    }

    @Test("Head then body, in order; a chunk larger than a slot arrives in slot-sized pieces")
    func order() {
        let handOff = ResponseHandOff(slots: 3, slotBytes: 4)
        let bytes = Array(0..<UInt8(23))
        let (bodies, heads) = transfer(handOff) { handOff in
            #expect(handOff.send(head: HTTPResponseHead(status: 200)))
            bytes.withUnsafeBytes { #expect(handOff.send(body: $0)) }
            [UInt8(99)].withUnsafeBytes { #expect(handOff.send(body: $0)) }
        }
        #expect(heads == [200])
        #expect(bodies.map(\.count) == [4, 4, 4, 4, 4, 3, 1])
        #expect(bodies.flatMap { $0 } == bytes + [99])
    }

    @Test("The producer waits while every slot is taken: never more than `slots` events ahead")
    func backpressure() {
        let handOff = ResponseHandOff(slots: 2, slotBytes: 1)
        let sent = Atomic<Int>(0)
        DispatchQueue.global().async {
            for byte in 0..<UInt8(10) {
                _ = [byte].withUnsafeBytes { handOff.send(body: $0) }
                sent.add(1, ordering: .relaxed)
            }
            handOff.finish()
        }
        // Take nothing: the producer fills the two slots, then must wait however long we wait.
        var waited = 0
        while sent.load(ordering: .relaxed) < 2 && waited < 500 {
            usleep(10_000)
            waited += 1
        }
        usleep(100_000)
        let ahead = sent.load(ordering: .relaxed)
        #expect(ahead == 2)
        var received: [UInt8] = []
        while case .body(let chunk) = handOff.next() {
            received.append(chunk[0])
            handOff.release()
        }
        handOff.release()
        #expect(received == Array(0..<10))
    }

    @Test("After stop the producer is refused, and what it queued before drains to the end")
    func stop() {
        let handOff = ResponseHandOff(slots: 4, slotBytes: 1)
        let refused = Atomic<Bool>(false)
        let (bodies, _) = transfer(handOff, stopAfter: 2) { handOff in
            for byte in 0..<UInt8(100) {
                let accepted = [byte].withUnsafeBytes { handOff.send(body: $0) }
                if !accepted {
                    refused.store(true, ordering: .relaxed)
                    return
                }
            }
        }
        let wasRefused = refused.load(ordering: .relaxed)
        #expect(wasRefused)
        #expect(bodies.count >= 2 && bodies.count <= 2 + 4)
        #expect(bodies.map { $0[0] } == Array(0..<UInt8(bodies.count)))
    }
}
