/// Bytes kept from one note to the next (its id, its title, the notes finished) in one allocation that
/// grows and is never shared: setting or adding them is a copy, with none of an array's uniqueness checks
/// or generic replacement.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes held.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes the buffer hold `text`'s bytes and nothing else.
    @inline(__always)
    mutating func set(_ text: UnsafeRawBufferPointer) {
        if text.count > capacity {
            count = 0  // nothing held is kept
            grow(to: text.count)
        }
        if let start = text.baseAddress { base.copyMemory(from: start, byteCount: text.count) }
        count = text.count
    }

    /// Adds `text`'s bytes after those held.
    @inline(__always)
    mutating func append(_ text: UnsafeRawBufferPointer) {
        if text.count > capacity - count { grow(to: count + text.count) }
        if let start = text.baseAddress { (base + count).copyMemory(from: start, byteCount: text.count) }
        count += text.count
    }

    /// Empties the buffer, giving back its memory past `limit` bytes.
    mutating func removeAll(keepingCapacityUpTo limit: Int) {
        count = 0
        guard capacity > limit else { return }
        base.deallocate()
        base = .allocate(byteCount: limit, alignment: 8)
        capacity = limit
    }

    /// Grows the allocation to hold at least `needed` bytes, keeping those held.
    private mutating func grow(to needed: Int) {
        var size = max(capacity * 2, 64)
        while size < needed { size *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = size
    }
}
