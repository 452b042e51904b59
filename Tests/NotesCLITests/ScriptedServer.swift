import Dispatch
import Foundation
import Synchronization
import TestSupport

/// A loopback HTTP server that answers each request by a script, for what the fixture server cannot do: a
/// redirect to its own origin, a reset in the middle of a body, a head over the transports' limit.
///
/// Each connection runs on a thread of its own and may carry several requests (keep-alive) until an
/// action ends it. Requests are recorded as their heads arrive.
final class ScriptedServer: @unchecked Sendable {
    enum Action {
        /// Writes these bytes.
        case send(String)
        /// Writes these bytes, which need not be text.
        case sendBytes([UInt8])
        /// Closes the connection with a TCP reset (SO_LINGER 0).
        case reset
        /// Closes the connection normally (FIN).
        case close
        /// Keeps the connection open, silent, until the server is closed.
        case hold
        /// Waits (up to 5 s) until the condition holds, given the request heads so far and how many
        /// requests have been answered whole.
        case waitUntil(@Sendable (_ requests: [String], _ answered: Int) -> Bool)
    }

    let port: Int
    var origin: String { "http://127.0.0.1:\(port)" }
    private let listener: LoopbackListener
    private let closed = DispatchSemaphore(value: 0)
    private let heads = Mutex<[String]>([])
    private let answered = Mutex(0)

    /// Every request head the server read, in order (request line and fields, without the blank line).
    var requests: [String] { heads.withLock { $0 } }
    /// Requests answered whole so far.
    var answeredCount: Int { answered.withLock { $0 } }

    /// - Parameter script: The actions answering a request, given its head.
    init(_ script: @escaping @Sendable (String) -> [Action]) throws {
        let loopback = try LoopbackListener(backlog: 8)
        self.listener = loopback
        port = loopback.port
        Thread.detachNewThread { [self] in
            while true {
                let connection = loopback.accept()
                guard connection >= 0 else { return }
                Thread.detachNewThread { [self] in serve(connection, script) }
            }
        }
    }

    private func serve(_ connection: Int32, _ script: (String) -> [Action]) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let blank = Array("\r\n\r\n".utf8)
        while true {
            while pending.firstRange(of: blank) == nil {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 {
                    Glibc.close(connection)
                    return
                }
                pending += buffer[..<count]
            }
            let end = pending.firstRange(of: blank)!
            let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
            pending.removeSubrange(..<end.upperBound)
            heads.withLock { $0.append(head) }
            for action in script(head) {
                switch action {
                case .send(let text):
                    write(Array(text.utf8), to: connection)
                case .sendBytes(let bytes):
                    write(bytes, to: connection)
                case .reset:
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                    setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                    Glibc.close(connection)
                    return
                case .close:
                    Glibc.close(connection)
                    return
                case .hold:
                    closed.wait()
                    closed.signal()
                    Glibc.close(connection)
                    return
                case .waitUntil(let condition):
                    let deadline = DispatchTime.now() + 5
                    while !condition(requests, answered.withLock { $0 }), DispatchTime.now() < deadline {
                        usleep(1_000)
                    }
                }
            }
            answered.withLock { $0 += 1 }
        }
    }

    private func write(_ bytes: [UInt8], to connection: Int32) {
        var written = 0
        while written < bytes.count {
            // MSG_NOSIGNAL: a client that has gone (a walk that failed while its next page was answered)
            // must not end the test process with SIGPIPE.
            let count = bytes[written...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { break }
            written += count
        }
    }

    /// Stops listening and ends held connections.
    func close() {
        closed.signal()
        listener.close()
    }

    /// A response with a JSON body and its Content-Length.
    static func json(_ body: String, status: String = "200 OK", headers: [String] = []) -> String {
        let fields = ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] + headers
        return "HTTP/1.1 \(status)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" + body
    }
}
