#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file or standard input in fixed-size chunks with `read(2)`: memory stays at one chunk.
package final class ChunkReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer

    /// Opens `path`, or standard input for `-`.
    /// - Throws: ``SystemError`` when the file cannot be opened.
    package init(path: String, chunkSize: Int = 64 << 10) throws(SystemError) {
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
    package func next() throws(SystemError) -> UnsafeRawBufferPointer {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return UnsafeRawBufferPointer(rebasing: buffer[..<count]) }
            if errno != EINTR { throw SystemError(operation: "cannot read input") }
        }
    }
}

/// Buffers output and writes it to a file descriptor with `write(2)`.
package struct OutputWriter: ~Copyable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int

    package init(descriptor: Int32, capacity: Int = 64 << 10) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    // Concrete types only: a generic `write` is not specialized across the module boundary, and paid for
    // the type's metadata on every call (a record and its line feed: two calls a record).
    package mutating func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    package mutating func write(_ bytes: ArraySlice<UInt8>) throws(SystemError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    package mutating func write(byte: UInt8) throws(SystemError) {
        buffer.append(byte)
        if buffer.count >= capacity { try flush() }
    }

    package mutating func write(_ text: String) throws(SystemError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    package mutating func flush() throws(SystemError) {
        let descriptor = descriptor
        let result = buffer.withUnsafeBytes { bytes in
            Result { () throws(SystemError) in try writeAll(descriptor, bytes, what: "output") }
        }
        try result.get()
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A failed system call, with `strerror`'s text.
package struct SystemError: Error, Equatable, CustomStringConvertible {
    package var operation: String
    package var code: Int32

    package init(operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    /// The C library's text for the code (`strerror`), e.g. `No such file or directory`.
    package var message: String { String(cString: strerror(code)) }

    package var description: String { "\(operation): \(message)" }
}

/// Writes `text` to standard error at once.
package func printError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        try? writeAll(STDERR_FILENO, UnsafeRawBufferPointer(bytes), what: "standard error")
    }
}

/// Writes all of `bytes` to `descriptor` with `write(2)`, again after a partial write or `EINTR`.
/// - Throws: ``SystemError`` naming `what` when a write fails.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, what: String) throws(SystemError) {
    var written = 0
    while written < bytes.count {
        let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { throw SystemError(operation: "cannot write \(what)") }
        written += count
    }
}

/// A file opened for writing at a known length, written with `write(2)`.
package final class OutputFile {
    package let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes in the file: where the next write goes.
    package private(set) var length: Int

    /// Standard output.
    package init(standardOutput: Void) {
        descriptor = STDOUT_FILENO
        ownsDescriptor = false
        length = 0
    }

    /// Opens `path`, creating it, and cuts it to `length` bytes (0 for a new run).
    /// - Throws: ``SystemError``; also when the file is shorter than `length` (it lost committed data).
    package init(path: String, length: Int) throws(SystemError) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError(operation: "cannot open '\(path)' for writing") }
        ownsDescriptor = true
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemError(operation: "cannot read '\(path)'") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            // A device or a pipe (/dev/null, /dev/stdout): written as it is, nothing to cut back.
            guard length == 0 else {
                close(descriptor)
                throw SystemError(operation: "cannot resume into '\(path)': not a regular file", code: EINVAL)
            }
            self.length = 0
            return
        }
        guard Int(status.st_size) >= length else {
            close(descriptor)
            throw SystemError(
                operation: "'\(path)' is shorter (\(status.st_size) bytes) than the state says (\(length))",
                code: EINVAL)
        }
        guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) >= 0 else {
            close(descriptor)
            throw SystemError(operation: "cannot cut '\(path)' to \(length) bytes")
        }
        self.length = length
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes all of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try writeAll(descriptor, bytes, what: "output")
        length += bytes.count
    }

    package func write(_ bytes: [UInt8]) throws(SystemError) {
        let result: Result<Void, SystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try write(buffer) }
        }
        try result.get()
    }
}

/// Replaces `path` with `bytes` atomically: a temporary file beside it, `fsync`, `rename`, `fsync` of the
/// directory. A reader (or a crash) sees the old file or the new one, never a mix.
package func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemError) {
    let temporary = path + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw SystemError(operation: "cannot write '\(temporary)'") }
    let written = bytes.withUnsafeBytes { buffer in
        Result { () throws(SystemError) in try writeAll(descriptor, buffer, what: "'\(temporary)'") }
    }
    if case .failure(let error) = written {
        close(descriptor)
        throw error
    }
    guard fsync(descriptor) == 0 else {
        close(descriptor)
        throw SystemError(operation: "cannot sync '\(temporary)'")
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else { throw SystemError(operation: "cannot rename '\(temporary)'") }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let directoryDescriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
    if directoryDescriptor >= 0 {
        fsync(directoryDescriptor)
        close(directoryDescriptor)
    }
}

/// Reads a whole (small) file.
package func readFile(_ path: String, limit: Int = 1 << 30) throws(SystemError) -> [UInt8]? {
    let reader: ChunkReader
    do {
        reader = try ChunkReader(path: path)
    } catch {
        if error.code == ENOENT { return nil }
        throw error
    }
    var bytes: [UInt8] = []
    while true {
        let chunk = try reader.next()
        if chunk.isEmpty { return bytes }
        bytes.append(contentsOf: chunk)
        if bytes.count > limit { throw SystemError(operation: "'\(path)' is larger than \(limit) bytes", code: EFBIG) }
    }
}
