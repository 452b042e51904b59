import Dispatch
import Foundation
import NotesFetch
import TestSupport
import Testing

@Suite("CurlTransport against a server that stalls")
struct CurlTransportTests {
    @Test("A receiver that stops on the head ends the exchange at once, though the body never comes")
    func stopOnHead() throws {
        let server = try StallingServer(head: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100\r\n\r\n")
        defer { server.close() }
        let transport = CurlTransport()
        let start = Date()
        let completed = try transport.perform(
            HTTPRequest(url: "http://127.0.0.1:\(server.port)/notes", timeouts: .init(idle: 10)),
            receiver: Receiver(acceptsHead: false),
            cancellation: CancellationFlag()
        )
        #expect(!completed)
        // Not the 10 s idle timeout: the progress callback sees the stop within about a second.
        #expect(Date().timeIntervalSince(start) < 3)

        // The same transport (and its hand-off) serves the next request whole.
        let next = try StallingServer(head: "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n[1,2,3]")
        defer { next.close() }
        let receiver = Receiver(acceptsHead: true)
        let nextCompleted = try transport.perform(
            HTTPRequest(url: "http://127.0.0.1:\(next.port)/notes", timeouts: .init(idle: 10)),
            receiver: receiver,
            cancellation: CancellationFlag()
        )
        #expect(nextCompleted)
        #expect(receiver.body == Array("[1,2,3]".utf8))
    }

    @Test("Cancelling while the body stalls throws cancelled within about a second")
    func cancelWhileStalled() throws {
        let server = try StallingServer(head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
        defer { server.close() }
        let cancellation = CancellationFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel() }
        let start = Date()
        #expect(throws: TransportError(.cancelled, "cancelled")) {
            try CurlTransport().perform(
                HTTPRequest(url: "http://127.0.0.1:\(server.port)/notes", timeouts: .init(idle: 10)),
                receiver: Receiver(acceptsHead: true),
                cancellation: cancellation
            )
        }
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test("The connection's socket is closed on exec: a child the host process starts meanwhile never holds it")
    func socketClosedOnExec() throws {
        let server = try StallingServer(head: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n[")
        defer { server.close() }
        let receiver = Receiver(acceptsHead: true) { [port = server.port] in
            // While the body is open: the descriptors of this process's TCP sockets to the server, with
            // their flags (O_CLOEXEC is 0o2000000 in /proc's octal).
            let inodes = Set(
                try Files.text("/proc/self/net/tcp").split(separator: "\n").dropFirst().compactMap { line in
                    let fields = line.split(separator: " ")
                    return fields[2].hasSuffix(String(format: ":%04X", port)) ? "socket:[\(fields[9])]" : nil
                })
            return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                    inodes.contains(target)
                else { return nil }
                let info = try Files.text("/proc/self/fdinfo/\(name)").split(separator: "\n")
                let flags = info.first { $0.hasPrefix("flags:") }.flatMap { Int($0.dropFirst(6).trimmed, radix: 8) }
                return flags.map { $0 & 0o2000000 != 0 }
            }
        }
        _ = try CurlTransport().perform(
            HTTPRequest(url: "http://127.0.0.1:\(server.port)/notes", timeouts: .init(idle: 10)),
            receiver: receiver,
            cancellation: CancellationFlag()
        )
        #expect(receiver.closedOnExec == [true], "one socket to the server, closed on exec")
    }
}

@Suite("CurlTransport's timeouts, in every phase")
struct CurlTimeoutTests {
    /// The promise is "within S + 1 s": libcurl calls the progress callback about once a second while
    /// no data comes; half a second more for a busy machine's scheduling.
    static let slack = 1.5

    fileprivate func expectTimeout(
        _ server: StallingServer, idle: Double, total: Double, _ message: String, within: Double
    ) {
        let start = Date()
        // A deadline of its own, a second past the promise: a timeout that comes later (or never) fails
        // the test then, as cancelled.
        let deadline = CancellationFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + within + 1) { deadline.cancel() }
        #expect(throws: TransportError(.timeout, message)) {
            try CurlTransport().perform(
                HTTPRequest(url: "http://127.0.0.1:\(server.port)/notes", timeouts: .init(idle: idle, total: total)),
                receiver: Receiver(acceptsHead: true),
                cancellation: deadline
            )
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= min(idle, total) * 0.9 && elapsed < within, "took \(elapsed) s")
    }

    @Test("No head at all: the idle timeout ends the attempt within a second of it")
    func noHead() throws {
        let server = try StallingServer(head: "")
        defer { server.close() }
        expectTimeout(server, idle: 1, total: 600, "no data for 1 s", within: 1 + Self.slack)
    }

    @Test(
        "A head and a few bytes, then nothing: the idle timeout ends it within a second of it (libcurl's low-speed limit took 8 s)"
    )
    func stalledBody() throws {
        let server = try StallingServer(
            head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[1,2,3")
        defer { server.close() }
        expectTimeout(server, idle: 2, total: 600, "no data for 2 s", within: 2 + Self.slack)
    }

    @Test("A body that drips forever: the page timeout ends it, though bytes keep coming")
    func drippingBody() throws {
        let server = try StallingServer(
            head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[",
            drip: String(repeating: "1,", count: 40), every: 0.2)
        defer { server.close() }
        expectTimeout(server, idle: 5, total: 1.5, "the page took longer than 1.5 s", within: 1.5 + Self.slack)
    }
}

private final class Receiver: HTTPResponseReceiver {
    let acceptsHead: Bool
    /// Run at the first chunk of the body, which then ends the exchange.
    let inspect: (() throws -> [Bool])?

    init(acceptsHead: Bool, inspect: (() throws -> [Bool])? = nil) {
        self.acceptsHead = acceptsHead
        self.inspect = inspect
    }

    func receive(head: HTTPResponseHead) -> Bool { acceptsHead }

    private(set) var body: [UInt8] = []
    /// What `inspect` found about each socket to the server: whether it is closed on exec.
    private(set) var closedOnExec: [Bool]?

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        body += chunk
        guard let inspect else { return true }
        closedOnExec = (try? inspect()) ?? []
        return false
    }
}

extension Substring {
    fileprivate var trimmed: Substring { drop { $0 == " " || $0 == "\t" } }
}

/// A loopback server for one connection: it reads the request, writes `head`, then sends nothing more
/// and keeps the connection open until closed.
private final class StallingServer: @unchecked Sendable {
    let port: Int
    private let listener: LoopbackListener
    private let done = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - head: Written at once after the request.
    ///   - drip: Then written a byte at a time, one every `every` seconds.
    init(head: String, drip: String = "", every: Double = 0) throws {
        let loopback = try LoopbackListener(backlog: 1)
        self.listener = loopback
        port = loopback.port
        let done = self.done
        Thread.detachNewThread {
            let connection = loopback.accept()
            guard connection >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                request += buffer[..<count]
            }
            let bytes = Array(head.utf8)
            // MSG_NOSIGNAL: a client that has gone must not end the test process with SIGPIPE.
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            for byte in Array(drip.utf8) {
                if done.wait(timeout: .now() + every) == .success {
                    Glibc.close(connection)
                    return
                }
                _ = withUnsafeBytes(of: byte) { send(connection, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            }
            done.wait()
            Glibc.close(connection)
        }
    }

    func close() {
        done.signal()
        listener.close()
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
