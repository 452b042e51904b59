import Dispatch
import Foundation
import NotesFetch
import Synchronization
import TestSupport
import Testing

/// CurlTransport's next request sent early: out before the chunk that names it is taken, taken over by an
/// equal request, dropped otherwise, and refused while it waits if it is compressed.
@Suite("The next request, sent early")
struct EarlyRequestTests {
    static let first = #"{"notes":[{"id":"a"}],"next_cursor":"b"}"#
    static let second = #"{"notes":[{"id":"b"}],"next_cursor":null}"#
    static let other = #"{"notes":[{"id":"c"}],"next_cursor":null}"#

    /// Answers /a, /b and /c; /b with the `coding` header fields the first `encodedTimes` times. /a's body
    /// comes in two parts, the second once /b has been answered (or after 5 s); `answeredFirst` says whether
    /// it was.
    /// With `restSent`, /a's second part waits the whole 5 s, and the flag is set as it goes.
    fileprivate static func server(
        encodedTimes: Int = 0, coding: [String] = ["Content-Encoding: gzip"], answeredFirst: Flag? = nil,
        restSent: Flag? = nil
    ) throws -> ScriptedServer {
        let encoded = Mutex(encodedTimes)
        let response = ScriptedServer.json(first)
        let split = response.index(response.endIndex, offsetBy: -12)
        return try ScriptedServer { head in
            if head.hasPrefix("GET /a ") {
                return [
                    .send(String(response[..<split])),
                    .waitUntil { requests, answered in
                        let done = requests.contains { $0.hasPrefix("GET /b ") } && answered >= 1
                        if done { answeredFirst?.set() }
                        return done && restSent == nil
                    },
                    .waitUntil { _, _ in
                        restSent?.set()
                        return true
                    },
                    .send(String(response[split...])),
                ]
            }
            if head.hasPrefix("GET /b ") {
                let compressed = encoded.withLock { left in
                    defer { left -= 1 }
                    return left > 0
                }
                return [.send(ScriptedServer.json(second, headers: compressed ? coding : []))]
            }
            if head.hasPrefix("GET /c ") { return [.send(ScriptedServer.json(other))] }
            return [.send(ScriptedServer.json("{}", status: "404 Not Found"))]
        }
    }

    @Test("A next request a chunk names goes out while the page is taken; an equal request takes it over")
    func takenOver() throws {
        let answeredFirst = Flag()
        let server = try Self.server(answeredFirst: answeredFirst)
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        #expect(page.body == Array(Self.first.utf8))
        #expect(answeredFirst.isSet, "/b was asked and answered before /a's last bytes were sent")

        let meter = ExchangeMeter()
        let next = FirstChunkNamer(next: nil)
        #expect(
            try transport.perform(
                HTTPRequest(url: server.origin + "/b", meter: meter), receiver: next, cancellation: .init()))
        #expect(next.head?.status == 200)
        #expect(next.body == Array(Self.second.utf8))
        #expect(meter.sendCount == 1, "the early send is the request's")
        #expect(server.requests.count == 2, "/b was asked once")
        #expect(transport.earlyRequests == (taken: 1, dropped: 0))
    }

    @Test("An early request that no equal request takes over is dropped; the request asked for is answered")
    func dropped() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        let next = FirstChunkNamer(next: nil)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/c"), receiver: next, cancellation: .init()))
        #expect(next.body == Array(Self.other.utf8))
        #expect(transport.earlyRequests == (taken: 0, dropped: 1))
        #expect(server.requests.map { $0.split(separator: " ")[1] } == ["/a", "/b", "/c"])
    }

    @Test(
        "A response sent early with a coding is refused while it waits, and asked for again",
        arguments: [
            ["Content-Encoding: gzip"], ["Content-Encoding: identity", "Content-Encoding: gzip"],
            ["Content-Encoding: identity, deflate"], ["Transfer-Encoding: gzip"],
        ])
    func compressedRefused(coding: [String]) throws {
        let answeredFirst = Flag()
        let server = try Self.server(encodedTimes: 1, coding: coding, answeredFirst: answeredFirst)
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        #expect(answeredFirst.isSet, "the compressed answer came while /b waited")
        let next = FirstChunkNamer(next: nil)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        #expect(next.body == Array(Self.second.utf8))
        #expect(next.head?.value(of: "Content-Encoding") == nil)
        #expect(transport.earlyRequests == (taken: 0, dropped: 1))
        #expect(server.requests.map { $0.split(separator: " ")[1] } == ["/a", "/b", "/b"])
    }

    @Test("A receiver that stops at the chunk that named the next request ends the exchange there")
    func stopAtNamingChunk() throws {
        let restSent = Flag()
        let server = try Self.server(restSent: restSent)
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"), stopsAtFirstChunk: true)
        #expect(try !transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        #expect(page.chunks == 1, "nothing after the stop")
        #expect(!restSent.isSet, "the exchange ended at the stop, not when the server sent the rest")
    }

    @Test("A request taken over has its whole page timeout from then, however long it waited")
    func clockFromTakeOver() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let next = HTTPRequest(url: server.origin + "/b", timeouts: .init(total: 1))
        let page = FirstChunkNamer(next: next)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        usleep(1_500_000)  // the walk busy with the page before: longer than the next page's timeout
        let taker = FirstChunkNamer(next: nil)
        #expect(try transport.perform(next, receiver: taker, cancellation: .init()))
        #expect(taker.body == Array(Self.second.utf8))
        #expect(transport.earlyRequests == (taken: 1, dropped: 0))
    }
}

/// A body that libcurl hands over in several chunks (it cuts one read into chunks of 16 KiB).
@Suite("A body in several chunks, the next request sent early")
struct HeldChunkTests {
    /// 40 KB of notes, the next cursor after them: three chunks of libcurl's from one read.
    static let long =
        #"{"notes":[{"id":"a","title":""# + String(repeating: "x", count: 40_000) + #""}],"next_cursor":"b"}"#

    @Test("The chunk that names the next request is peeked at before the chunks ahead of it are taken")
    func namedBeforeTaken() throws {
        let server = try ScriptedServer { head in
            [.send(ScriptedServer.json(head.hasPrefix("GET /a ") ? Self.long : EarlyRequestTests.second))]
        }
        defer { server.close() }
        let transport = CurlTransport()
        let page = LastChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        #expect(page.body == Array(Self.long.utf8))
        #expect(page.events.count >= 4, "named, then the chunks: \(page.events)")
        #expect(page.events.first == "named", "\(page.events)")
        // Held bytes go on in pieces as libcurl cut them, so that what the first bytes say (a next value
        // before the items) is acted on as early as before.
        #expect(page.pieces.allSatisfy { $0 <= 16 << 10 }, "\(page.pieces)")
        let next = FirstChunkNamer(next: nil)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        #expect(next.body == Array(EarlyRequestTests.second.utf8))
        #expect(transport.earlyRequests == (taken: 1, dropped: 0))
    }

    @Test("A chunk held back is taken as soon as libcurl has no more bytes, not when the next ones arrive")
    func heldNotWaiting() throws {
        let response = ScriptedServer.json(Self.long)
        let split = response.index(response.endIndex, offsetBy: -30)
        let takenInTime = Flag()
        let received = Counter()
        let firstPart = Self.long.utf8.count - 30
        let server = try ScriptedServer { _ in
            [
                .send(String(response[..<split])),
                .waitUntil { _, _ in
                    let taken = received.value == firstPart
                    if taken { takenInTime.set() }
                    return taken
                },
                .send(String(response[split...])),
            ]
        }
        defer { server.close() }
        let page = LastChunkNamer(next: HTTPRequest(url: server.origin + "/b"), received: received)
        #expect(
            try CurlTransport().perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        #expect(page.body == Array(Self.long.utf8))
        #expect(takenInTime.isSet, "every byte sent was taken while the server waited")
    }

    @Test("Taking held bytes slowly is not an idle server: the idle clock runs from when the receiver is done")
    func slowTakerNotIdle() throws {
        let response = ScriptedServer.json(EarlyRequestTests.second)
        let split = response.index(response.endIndex, offsetBy: -10)
        let page = SlowTaker()
        let done = page.done
        let server = try ScriptedServer { _ in
            [
                .send(String(response[..<split])),
                .waitUntil { _, _ in  // 0.5 s after the receiver is done: 1.3 s after the bytes came
                    done.value > 0 && Int(DispatchTime.now().uptimeNanoseconds) - done.value > 500_000_000
                },
                .send(String(response[split...])),
            ]
        }
        defer { server.close() }
        #expect(
            try CurlTransport().perform(
                HTTPRequest(url: server.origin + "/a", timeouts: .init(idle: 1)), receiver: page, cancellation: .init())
        )
        #expect(page.body == Array(EarlyRequestTests.second.utf8))
    }
}

/// Awaits a next request no chunk names, and takes its first chunk slowly (0.8 s), noting when it is done.
private final class SlowTaker: HTTPResponseReceiver {
    let done = Counter()
    var body: [UInt8] = []

    var awaitsNextRequest: Bool { true }

    func receive(head: HTTPResponseHead) -> Bool { true }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        if body.isEmpty {
            usleep(800_000)
            done.value = Int(DispatchTime.now().uptimeNanoseconds)
        }
        body += chunk
        return true
    }
}

/// Names `next` at the chunk whose bytes end the body's next value (as a walk's page does), records what
/// happens in order, and counts the bytes taken in `received` (read from another thread).
private final class LastChunkNamer: HTTPResponseReceiver {
    private var next: HTTPRequest?
    private let received: Counter?
    var body: [UInt8] = []
    /// "named", then "chunk" for each chunk taken.
    var events: [String] = []
    /// The size of each chunk taken.
    var pieces: [Int] = []

    init(next: HTTPRequest, received: Counter? = nil) {
        self.next = next
        self.received = received
    }

    var awaitsNextRequest: Bool { next != nil }

    func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? {
        guard let request = next, chunk.reversed().starts(with: "}\"b\"".utf8) else { return nil }
        next = nil
        events.append("named")
        return request
    }

    func receive(head: HTTPResponseHead) -> Bool { true }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        events.append("chunk")
        pieces.append(chunk.count)
        body += chunk
        received?.value = body.count
        return true
    }
}

/// A count written on one thread and read on another.
final class Counter: Sendable {
    private let state = Mutex(0)
    var value: Int {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// Set once, from any thread.
final class Flag: Sendable {
    private let state = Mutex(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}

/// `bytes` as gzip with one stored (uncompressed) deflate block: what a server sends with
/// `Content-Encoding: gzip`, made without zlib.
func gzipStored(_ bytes: [UInt8]) -> [UInt8] {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc = ~crc
    let length = UInt16(bytes.count)
    func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 1] + little(length) + little(~length) + bytes + little(crc)
        + little(UInt32(bytes.count))
}

/// A receiver that takes a response ahead of its perform (``HTTPTransport/begin(_:receiver:cancellation:)``):
/// at most `budget` bytes of the body.
final class AheadTaker: HTTPResponseReceiver {
    let budget: Int
    var head: HTTPResponseHead?
    var heads = 0
    var body: [UInt8] = []
    /// Bytes taken before the perform.
    var takenAhead = 0
    var performing = false

    init(budget: Int) {
        self.budget = budget
    }

    func takesAhead(count: Int) -> Bool { body.count + count <= budget }

    func receive(head: HTTPResponseHead) -> Bool {
        self.head = head
        heads += 1
        return true
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        body += chunk
        if !performing { takenAhead = body.count }
        return true
    }
}

extension EarlyRequestTests {
    @Test("A response sent early is begun ahead of its perform, which goes on from there with the same receiver")
    func begunAhead() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        let next = AheadTaker(budget: 1 << 20)
        #expect(transport.begin(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        #expect(next.head?.status == 200 && next.takenAhead == Self.second.utf8.count, "the whole body, ahead")
        next.performing = true
        let meter = ExchangeMeter()
        #expect(
            try transport.perform(
                HTTPRequest(url: server.origin + "/b", meter: meter), receiver: next, cancellation: .init()))
        #expect(next.heads == 1 && next.body == Array(Self.second.utf8), "nothing given twice")
        #expect(meter.sendCount == 1, "the early send is the request's")
        #expect(server.requests.count == 2 && transport.earlyRequests == (taken: 1, dropped: 0))
    }

    @Test("A receiver that takes nothing ahead has the head; the body waits for the perform")
    func nothingAhead() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        let next = AheadTaker(budget: 0)
        #expect(transport.begin(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        #expect(next.head?.status == 200 && next.body.isEmpty)
        next.performing = true
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        #expect(next.heads == 1 && next.body == Array(Self.second.utf8))
    }

    @Test("Nothing begins for a request not sent early, nor for another receiver than the one begun")
    func beginsOnlyWhatWasSent() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        // On loopback a response comes at once; one that waits for bytes never sent fails in 5 s, not 30.
        var b = HTTPRequest(url: server.origin + "/b")
        b.timeouts.idle = 5
        let page = FirstChunkNamer(next: b)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        let other = AheadTaker(budget: 1 << 20)
        #expect(!transport.begin(HTTPRequest(url: server.origin + "/c"), receiver: other, cancellation: .init()))
        #expect(other.head == nil)
        let begun = AheadTaker(budget: 10)
        #expect(transport.begin(b, receiver: begun, cancellation: .init()))
        // Another receiver for /b has not seen the first bytes: it gets a response of its own.
        let second = AheadTaker(budget: 0)
        second.performing = true
        #expect(try transport.perform(b, receiver: second, cancellation: .init()))
        #expect(second.body == Array(Self.second.utf8))
        #expect(server.requests.map { $0.split(separator: " ")[1] } == ["/a", "/b", "/b"])
    }

    @Test("A response begun ahead that another request dropped: its perform throws, nothing starts over")
    func begunThenDropped() throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let page = FirstChunkNamer(next: HTTPRequest(url: server.origin + "/b"))
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/a"), receiver: page, cancellation: .init()))
        let next = AheadTaker(budget: 10)
        #expect(transport.begin(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init()))
        let other = FirstChunkNamer(next: nil)
        #expect(try transport.perform(HTTPRequest(url: server.origin + "/c"), receiver: other, cancellation: .init()))
        let taken = next.body
        #expect(throws: TransportError(.dropped, "the response begun ahead was dropped by another request")) {
            try transport.perform(HTTPRequest(url: server.origin + "/b"), receiver: next, cancellation: .init())
        }
        #expect(next.body == taken && next.heads == 1, "nothing more given to the receiver begun")
    }
}
