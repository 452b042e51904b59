import NotesSystem

/// Bytes on their way to a file descriptor through one fixed-size buffer, so memory stays at
/// ``capacity`` however much is written.
///
/// Write errors are sticky: the first is kept and every byte after it is dropped, so rendering code
/// needs no `try`; ``finishFile()`` reports it. One owner: the buffer is freed in `deinit`.
struct ByteSink: ~Copyable {
    let capacity: Int
    private let buffer: UnsafeMutableRawPointer
    private var count = 0
    private var descriptor: Int32 = -1
    /// Bytes handed to `write(2)` for the current descriptor.
    private var flushed = 0
    private var failure: SystemError?

    /// - Parameter capacity: The buffer's size in bytes; defaults to 256 KiB.
    init(capacity: Int = 256 << 10) {
        precondition(capacity >= 64, "a sink needs room for the longest number")
        self.capacity = capacity
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Bytes accepted since ``attach(_:)``, flushed or not: the offset in the current file.
    var position: Int { flushed + count }

    /// Starts a new file: the bytes still buffered go to the previous descriptor first.
    mutating func attach(_ descriptor: Int32) {
        flush()
        self.descriptor = descriptor
        flushed = 0
        failure = nil
    }

    /// Writes out what is buffered and reports the first write error since ``attach(_:)``.
    /// - Returns: The file's size in bytes.
    mutating func finishFile() throws(SystemError) -> Int {
        flush()
        if let failure { throw failure }
        return flushed
    }

    /// Hands the buffered bytes to `write(2)`.
    mutating func flush() {
        guard count > 0 else { return }
        if failure == nil {
            do {
                try System.writeAll(descriptor, UnsafeRawBufferPointer(start: buffer, count: count))
            } catch {
                failure = error
            }
        }
        flushed += count
        count = 0
    }

    // MARK: - Appending

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard length > 0 else { return }
        if length > capacity - count {
            flush()
            if length > capacity {  // too big to buffer: straight through
                if failure == nil {
                    do { try System.writeAll(descriptor, bytes) } catch { failure = error }
                }
                flushed += length
                return
            }
        }
        (buffer + count).copyMemory(from: bytes.baseAddress!, byteCount: length)
        count += length
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        if count == capacity { flush() }
        buffer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends an ASCII literal such as a key with its quotes: `"title":`.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        precondition(text.hasPointerRepresentation, "a literal of more than one character")
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends `value` in decimal.
    @inline(__always)
    mutating func append(decimal value: UInt64) {
        if capacity - count < 20 { flush() }
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        var index = count + digits
        rest = value
        repeat {
            index -= 1
            buffer.storeBytes(of: UInt8(truncatingIfNeeded: 48 + rest % 10), toByteOffset: index, as: UInt8.self)
            rest /= 10
        } while rest > 0
        count += digits
    }

    /// Appends `value` in decimal, with a `-` when negative.
    @inline(__always)
    mutating func append(decimal value: Int) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        append(decimal: UInt64(value.magnitude))
    }

    /// Appends `value` (0 to 99) as two digits.
    @inline(__always)
    mutating func append(twoDigits value: Int) {
        append(byte: UInt8(truncatingIfNeeded: 48 + value / 10))
        append(byte: UInt8(truncatingIfNeeded: 48 + value % 10))
    }

    /// Appends everything `descriptor` holds from its current position to its end.
    mutating func append(contentsOf descriptor: Int32) throws(SystemError) {
        while true {
            if count == capacity { flush() }
            let room = UnsafeMutableRawBufferPointer(start: buffer + count, count: capacity - count)
            let read = try System.readSome(descriptor, into: room)
            if read == 0 { return }
            count += read
        }
    }
}
