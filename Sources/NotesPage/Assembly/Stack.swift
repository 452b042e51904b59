/// A stack of at most `capacity` elements in one allocation: no copy-on-write or uniqueness checks on the
/// hot path, as an array would have.
struct Stack<Element>: ~Copyable {
    let base: UnsafeMutablePointer<Element>
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var last: Element? { count > 0 ? base[count - 1] : nil }

    mutating func replaceLast(with element: Element) {
        precondition(count > 0)
        base[count - 1] = element
    }

    mutating func append(_ element: Element) {
        precondition(count < capacity, "nesting deeper than the depth limit")
        (base + count).initialize(to: element)
        count += 1
    }

    mutating func removeLast() {
        precondition(count > 0)
        count -= 1
        (base + count).deinitialize(count: 1)
    }
}
