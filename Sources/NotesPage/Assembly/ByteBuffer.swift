/// Bytes kept from one note to the next (its id, its title) in one allocation that grows and is never
/// shared: setting them is a copy, with none of an array's uniqueness checks or generic replacement.
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
        if text.count > capacity { grow(to: text.count) }
        if let start = text.baseAddress { base.copyMemory(from: start, byteCount: text.count) }
        count = text.count
    }

    private mutating func grow(to needed: Int) {
        var size = capacity * 2
        while size < needed { size *= 2 }
        base.deallocate()
        base = .allocate(byteCount: size, alignment: 8)
        capacity = size
    }
}
