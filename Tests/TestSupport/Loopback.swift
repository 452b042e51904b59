import Foundation

/// A TCP socket listening on 127.0.0.1 at a port the system chose, for the tests' scripted servers.
public struct LoopbackListener: Sendable {
    /// The listening socket: `accept` on it; ``close()`` ends it.
    public let socket: Int32
    public let port: Int

    /// - Parameter backlog: Connections the system queues before they are accepted.
    public init(backlog: Int32 = 8) throws {
        (socket, port) = try boundLoopbackSocket(listening: backlog)
    }

    /// Accepts the next connection (`-1` once closed); like the listener, it is closed on `exec`, so a child
    /// another test starts meanwhile never holds it.
    public func accept() -> Int32 { acceptClosedOnExec(socket, nil, nil, Int32(SOCK_CLOEXEC.rawValue)) }

    /// Stops listening: a thread blocked in `accept` returns.
    public func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
    }
}

/// `accept4(2)`, which Glibc's module leaves out (it is a GNU extension): the connection comes with
/// `SOCK_CLOEXEC` set, with no moment in which a child could be handed it.
private let acceptClosedOnExec = unsafeBitCast(
    dlsym(nil, "accept4"),  // RTLD_DEFAULT: the process's own libc
    to: (@convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32)
        .self)

/// A loopback port that refuses every connection, for as long as this holds it: a TCP socket bound to it
/// and not listening. A port merely closed does not stay so: the system hands it to the next socket that
/// asks for a free one (another test's server), and a walk meant to fail walks that server instead.
public struct RefusingPort: Sendable {
    public let socket: Int32
    public let port: Int

    public init() throws {
        (socket, port) = try boundLoopbackSocket(listening: nil)
    }

    /// `http://127.0.0.1:PORT/`.
    public var baseURL: String { "http://127.0.0.1:\(port)/" }

    public func close() { Glibc.close(socket) }
}

/// A TCP socket bound to 127.0.0.1 at a port the system chose (closed on `exec`), listening with `backlog`
/// unless it is `nil`, and that port.
private func boundLoopbackSocket(listening backlog: Int32?) throws -> (socket: Int32, port: Int) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(socket, generic, length) == 0 && (backlog.map { listen(socket, $0) == 0 } ?? true)
                && getsockname(socket, generic, &length) == 0
        }
    }
    guard bound else {
        Glibc.close(socket)
        throw POSIXError(.EADDRINUSE)
    }
    return (socket, Int(UInt16(bigEndian: address.sin_port)))
}
