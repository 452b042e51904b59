import NotesJSON

/// Writes JSON events back out as compact JSON text, strings re-escaped, numbers as written.
///
/// It writes into a buffer of its own rather than an `Array`: a note is a few dozen small appends, and an
/// array pays a uniqueness and capacity check on each (measured: a fifth of a pass-through decode).
struct CompactJSONWriter: ~Copyable {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0
    /// Whether each open container but the innermost already holds a member, a bit each, the innermost
    /// lowest: a stack that costs a shift to push or pop, where an array paid a uniqueness check each time.
    private var outer: UInt64 = 0
    /// The bits pushed out of ``outer`` past its 64 (a note nested deeper than 64, allowed by `--max-depth`).
    private var spilled: [Bool] = []
    /// The containers open.
    private var depth = 0
    /// Whether the innermost open container already holds a member.
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
        outer = 0
        depth = 0
        if !spilled.isEmpty { spilled.removeAll(keepingCapacity: true) }
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
        Self.copy(text, to: storage + count)
        count += text.count
    }

    /// Copies `text` to `target`.
    ///
    /// Most keys and strings of a record are short: up to 16 bytes go as two loads and two stores that may
    /// overlap, where a call to `memcpy` cost more than the copy.
    @inline(__always)
    private static func copy(_ text: UnsafeRawBufferPointer, to target: UnsafeMutableRawPointer) {
        guard let base = text.baseAddress else { return }
        let length = text.count
        if length >= 8 && length <= 16 {
            let head = base.loadUnaligned(as: UInt64.self)
            let tail = base.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: length - 8, as: UInt64.self)
        } else if length >= 4 && length < 8 {
            let head = base.loadUnaligned(as: UInt32.self)
            let tail = base.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: length - 4, as: UInt32.self)
        } else if length < 4 {
            for index in 0..<length {
                target.storeBytes(
                    of: base.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
            }
        } else {
            target.copyMemory(from: base, byteCount: length)
        }
    }

    /// Writes `"text"` (`text` needing no escape), a comma before it when `comma` and a colon after it
    /// when `colon`, into room ``reserve(_:)`` made. The count is kept in a local: a store through the
    /// buffer's pointer could be the count itself as far as the compiler knows, so a count in `self` is
    /// read again after every byte.
    @inline(__always)
    private mutating func quoted(_ text: UnsafeRawBufferPointer, comma: Bool, colon: Bool) {
        let target = storage
        var at = count
        if comma {
            target.storeBytes(of: UInt8(ascii: ","), toByteOffset: at, as: UInt8.self)
            at += 1
        }
        target.storeBytes(of: UInt8(ascii: "\""), toByteOffset: at, as: UInt8.self)
        Self.copy(text, to: target + at + 1)
        at += text.count + 1
        target.storeBytes(of: UInt8(ascii: "\""), toByteOffset: at, as: UInt8.self)
        at += 1
        if colon {
            target.storeBytes(of: UInt8(ascii: ":"), toByteOffset: at, as: UInt8.self)
            at += 1
        }
        count = at
    }

    @inline(__always)
    private mutating func append(_ text: UnsafeRawBufferPointer) {
        reserve(text.count)
        copy(text)
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
        if depth >= UInt64.bitWidth { spilled.append(outer >> 63 != 0) }
        outer = outer << 1 | (current ? 1 : 0)
        depth += 1
        current = false
    }

    mutating func close(_ bracket: UInt8) {
        assert(depth > 0, "a container closed that was not open")
        append(bracket)
        depth -= 1
        current = outer & 1 != 0
        outer >>= 1
        if depth >= UInt64.bitWidth, spilled.removeLast() { outer |= 1 << 63 }
    }

    /// - Parameter plain: The key holds no byte a JSON string must escape: it is copied as it is.
    mutating func key(_ key: UnsafeRawBufferPointer, plain: Bool = false) {
        if plain {
            // `,"key":` with one check for room.
            reserve(key.count + 4)
            quoted(key, comma: current, colon: true)
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
        if plain {
            // `,"string"` (or `"string"` after a key) with one check for room.
            reserve(string.count + 3)
            let comma = !afterKey && current
            if !afterKey { current = true }
            afterKey = false
            quoted(string, comma: comma, colon: false)
            return
        }
        separate()
        self.string(string, plain: false)
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
