import Dispatch
import Foundation
import NotesFetch
import Synchronization
import TestSupport
import Testing

/// A walk's next page requested early through the fetcher: no request wasted, none past --max-pages.
@Suite("A walk's pages requested early")
struct EarlyWalkTests {
    /// Five pages of one note each, the cursor after the notes.
    static func server() throws -> ScriptedServer {
        try ScriptedServer { head in [.send(ScriptedServer.json(page(answering: head)))] }
    }

    /// The body of the page a request head asks for (`?cursor=N`, page 1 without one).
    static func page(answering head: String) -> String {
        let page = head.split(separator: " ")[1].split(separator: "=").last.flatMap { Int($0) } ?? 1
        let next = page < 5 ? "\"\(page + 1)\"" : "null"
        return #"{"notes":[{"id":"n\#(page)","title":"t"}],"next_cursor":\#(next)}"#
    }

    @Test("Each page is asked for once; the pages after the first ones go out early and are taken over")
    func whole() async throws {
        let server = try Self.server()
        defer { server.close() }
        let transport = CurlTransport()
        let run = try await InProcessRun(
            ["--all", "--format", "ids"], transport: transport, endpoint: server.origin + "/notes")
        #expect(run.status == .success, "\(run.stderr)")
        #expect(run.stdout == "n1\nn2\nn3\nn4\nn5\n")
        #expect(server.requests.count == 5)
        #expect(transport.earlyRequests.taken >= 2 && transport.earlyRequests.dropped == 0)
    }

    @Test("A page in several chunks asks for the next before its first bytes are decoded (a bad one costs that)")
    func askedBeforeDecoded() async throws {
        let padding = String(repeating: "x", count: 20_000)
        let server = try ScriptedServer { head in
            // Page 4 (taken over from page 3's early request, so a kept-alive connection is free for its
            // own): a duplicate in its first bytes, the cursor after 20 KB.
            let body =
                head.hasPrefix("GET /notes?cursor=4 ")
                ? #"{"notes":[{"id":"n4","title":"t"},{"id":"n4","title":"\#(padding)"}],"next_cursor":"5"}"#
                : Self.page(answering: head)
            return [.send(ScriptedServer.json(body))]
        }
        defer { server.close() }
        let run = try await InProcessRun(
            ["--all", "--format", "ids"], transport: CurlTransport(), endpoint: server.origin + "/notes")
        #expect(run.status != .success)
        #expect(run.stderr.contains("duplicate id \"n4\""), "\(run.stderr)")
        let asked = { server.requests.contains { $0.hasPrefix("GET /notes?cursor=5 ") } }
        let deadline = DispatchTime.now() + 5
        while !asked(), DispatchTime.now() < deadline { usleep(1_000) }
        #expect(asked(), "page 5 was asked for from page 4's last chunk, before its first was decoded")
    }

    /// A page past 32 KiB is decoded on two threads: its next value, read before the notes, is known only
    /// once the parsing thread has reached it. The page's first bytes come, then nothing until the next
    /// page is asked for: the walk must wait for its decoder while the network is silent, and ask then.
    @Test("A page on two threads asks for the next once the network pauses, when its next value came first")
    func nextFirstOnTwoThreads() async throws {
        let notes = (1...400).map { #"{"id":"a\#($0)","title":"\#(String(repeating: "t", count: 100))"}"# }
        let body = #"{"next_cursor":"2","notes":["# + notes.joined(separator: ",") + "]}"
        let first = 8000
        let cut = body.utf8.index(body.utf8.startIndex, offsetBy: first)
        let askedEarly = Mutex(false)
        let server = try ScriptedServer { head in
            guard head.hasPrefix("GET /notes ") else {
                return [.send(ScriptedServer.json(#"{"next_cursor":null,"notes":[{"id":"b","title":"t"}]}"#))]
            }
            let whole = ScriptedServer.json(body)
            let split = whole.utf8.count - body.utf8.count + first
            let bytes = Array(whole.utf8)
            return [
                .sendBytes(Array(bytes[..<split])),
                .waitUntil { requests, _ in
                    let asked = requests.contains { $0.hasPrefix("GET /notes?cursor=2 ") }
                    if asked { askedEarly.withLock { $0 = true } }
                    return asked
                },
                .sendBytes(Array(bytes[split...])),
            ]
        }
        defer { server.close() }
        #expect(body.utf8.count > 32 << 10 && String(body[..<cut]).contains("next_cursor"))
        // The command itself, whose lanes have transports of their own.
        let run = try await Run(["fetch", "--all", "--quiet", "--format", "ids", server.origin + "/notes"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 401)
        #expect(askedEarly.withLock { $0 }, "page 2 was asked for while page 1's notes were still to come")
    }

    @Test("Compressed pages are not guessed from: every page is asked for once, none early")
    func compressed() async throws {
        let server = try ScriptedServer { head in
            let body = gzipStored(Array(Self.page(answering: head).utf8))
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                + "Content-Length: \(body.count)\r\n\r\n"
            return [.sendBytes(Array(head.utf8) + body)]
        }
        defer { server.close() }
        let transport = CurlTransport()
        let run = try await InProcessRun(
            ["--all", "--format", "ids"], transport: transport, endpoint: server.origin + "/notes")
        #expect(run.stdout == "n1\nn2\nn3\nn4\nn5\n", "\(run.stderr)")
        #expect(server.requests.count == 5)
        #expect(transport.earlyRequests == (taken: 0, dropped: 0))
    }

    @Test("--max-pages, --max-notes: nothing is asked for past the last page; --no-early-requests: nothing early")
    func bounded() async throws {
        let server = try Self.server()
        defer { server.close() }
        let bounded = try await InProcessRun(
            ["--all", "--max-pages", "4", "--format", "ids"], transport: CurlTransport(),
            endpoint: server.origin + "/notes")
        #expect(bounded.stdout == "n1\nn2\nn3\nn4\n")
        #expect(server.requests.count == 4)
        let notes = try await InProcessRun(
            ["--all", "--max-notes", "3", "--format", "ids"], transport: CurlTransport(),
            endpoint: server.origin + "/notes")
        #expect(notes.stdout == "n1\nn2\nn3\n")
        #expect(server.requests.count == 4 + 3, "none past the page that reached --max-notes")

        let transport = CurlTransport()
        let plain = try await InProcessRun(
            ["--all", "--no-early-requests", "--format", "ids"], transport: transport,
            endpoint: server.origin + "/notes")
        #expect(plain.stdout == "n1\nn2\nn3\nn4\nn5\n")
        #expect(transport.earlyRequests == (taken: 0, dropped: 0))
        #expect(server.requests.count == 7 + 5)
    }
}

/// Names `next` at the first chunk, then records the head and the body (and stops at the first chunk if
/// told to).
final class FirstChunkNamer: HTTPResponseReceiver {
    private var next: HTTPRequest?
    private let stopsAtFirstChunk: Bool
    var head: HTTPResponseHead?
    var body: [UInt8] = []
    /// Chunks received, the one it stopped at included.
    var chunks = 0

    init(next: HTTPRequest?, stopsAtFirstChunk: Bool = false) {
        self.next = next
        self.stopsAtFirstChunk = stopsAtFirstChunk
    }

    func nextRequest(peekingAt chunk: UnsafeRawBufferPointer) -> HTTPRequest? {
        defer { next = nil }
        return next
    }

    func receive(head: HTTPResponseHead) -> Bool {
        self.head = head
        return true
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        chunks += 1
        body += chunk
        return !stopsAtFirstChunk
    }
}
