#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file or standard input in fixed-size chunks with `read(2)`: memory stays at one chunk.
final class ChunkReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer

    /// Opens `path`, or standard input for `-`.
    /// - Throws: ``SystemError`` when the file cannot be opened.
    init(path: String, chunkSize: Int = 64 << 10) throws(SystemError) {
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw SystemError(operation: "cannot open '\(path)'") }
            ownsDescriptor = true
        }
        buffer = .allocate(byteCount: chunkSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// The next chunk, valid until the next call; empty at the end of the input.
    func next() throws(SystemError) -> UnsafeRawBufferPointer {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return UnsafeRawBufferPointer(rebasing: buffer[..<count]) }
            if errno != EINTR { throw SystemError(operation: "cannot read input") }
        }
    }
}

/// Buffers output and writes it to a file descriptor with `write(2)`.
struct OutputWriter: ~Copyable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int

    init(descriptor: Int32, capacity: Int = 64 << 10) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    mutating func write(_ bytes: some Collection<UInt8>) throws(SystemError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    mutating func write(_ text: String) throws(SystemError) {
        try write(text.utf8)
    }

    mutating func flush() throws(SystemError) {
        var written = 0
        while written < buffer.count {
            let count = buffer.withUnsafeBytes {
                systemWrite(descriptor, $0.baseAddress! + written, $0.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "cannot write output")
            }
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A failed system call, with `strerror`'s text.
struct SystemError: Error, CustomStringConvertible {
    var operation: String
    var code: Int32

    init(operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// Writes `text` to standard error at once.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var written = 0
        while written < bytes.count {
            let count = systemWrite(STDERR_FILENO, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            written += count
        }
    }
}

/// `write(2)`, under a name the writer's own `write` methods do not hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
