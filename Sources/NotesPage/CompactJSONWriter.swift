import NotesJSON

/// Writes JSON events back out as compact JSON text, strings re-escaped, numbers as written.
///
/// It writes into a buffer of its own rather than an `Array`: a note is a few dozen small appends, and an
/// array pays a uniqueness and capacity check on each (measured: a fifth of a pass-through decode).
struct CompactJSONWriter: ~Copyable {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    /// Whether the current container already holds a member, for each open container.
    private var hasMember: [Bool] = []
    private var current = false
    private var afterKey = false

    init(capacity: Int = 1024) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit {
        storage.deallocate()
    }

    /// The text written since the last ``reset()``; valid until the next change.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage, count: count)
    }

    mutating func reset() {
        count = 0
        hasMember.removeAll(keepingCapacity: true)
        current = false
        afterKey = false
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Copies `text` into room ``reserve(_:)`` made.
    @inline(__always)
    private mutating func copy(_ text: UnsafeRawBufferPointer) {
        guard let base = text.baseAddress else { return }
        (storage + count).copyMemory(from: base, byteCount: text.count)
        count += text.count
    }

    @inline(__always)
    private mutating func append(_ text: UnsafeRawBufferPointer) {
        guard let base = text.baseAddress, !text.isEmpty else { return }
        if count + text.count > capacity { grow(to: count + text.count) }
        (storage + count).copyMemory(from: base, byteCount: text.count)
        count += text.count
    }

    /// Room for `extra` more bytes, so that the stores after it need no check of their own.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    /// Stores `byte` in room ``reserve(_:)`` made.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStorage = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newStorage.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    mutating func open(_ bracket: UInt8) {
        separate()
        append(bracket)
        hasMember.append(current)
        current = false
    }

    mutating func close(_ bracket: UInt8) {
        append(bracket)
        current = hasMember.removeLast()
    }

    /// - Parameter plain: The key holds no byte a JSON string must escape: it is copied as it is.
    mutating func key(_ key: UnsafeRawBufferPointer, plain: Bool = false) {
        if plain {
            // `,"key":` with one check for room.
            reserve(key.count + 4)
            if current { put(UInt8(ascii: ",")) }
            put(UInt8(ascii: "\""))
            copy(key)
            put(UInt8(ascii: "\""))
            put(UInt8(ascii: ":"))
        } else {
            if current { append(UInt8(ascii: ",")) }
            string(key, plain: false)
            append(UInt8(ascii: ":"))
        }
        current = true
        afterKey = true
    }

    /// - Parameter plain: The string holds no byte a JSON string must escape: it is copied as it is.
    mutating func value(string: UnsafeRawBufferPointer, plain: Bool = false) {
        separate()
        self.string(string, plain: plain)
    }

    mutating func value(raw: UnsafeRawBufferPointer) {
        separate()
        append(raw)
    }

    mutating func value(literal: StaticString) {
        separate()
        literal.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else {
            if current { append(UInt8(ascii: ",")) }
            current = true
        }
    }

    /// Appends `text` as a JSON string: `"` and `\\` escaped, control characters as `\\n`, `\\t`, … or `\\u00XX`.
    private mutating func string(_ text: UnsafeRawBufferPointer, plain: Bool) {
        if plain {
            reserve(text.count + 2)
            put(UInt8(ascii: "\""))
            copy(text)
            put(UInt8(ascii: "\""))
            return
        }
        append(UInt8(ascii: "\""))
        var start = 0
        while start < text.count {
            let end = ASCII.plainRun(text, from: start, nonASCII: false)
            if start < end { append(UnsafeRawBufferPointer(rebasing: text[start..<end])) }
            guard end < text.count else { break }
            let byte = text[end]
            append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
            case 0x08: append(UInt8(ascii: "b"))
            case 0x09: append(UInt8(ascii: "t"))
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0C: append(UInt8(ascii: "f"))
            case 0x0D: append(UInt8(ascii: "r"))
            default:
                let digits: StaticString = "0123456789abcdef"
                append(UInt8(ascii: "u"))
                append(UInt8(ascii: "0"))
                append(UInt8(ascii: "0"))
                append(digits.utf8Start[Int(byte >> 4)])
                append(digits.utf8Start[Int(byte & 0xF)])
            }
            start = end + 1
        }
        append(UInt8(ascii: "\""))
    }
}
