/// A fixed list of byte strings in one allocation, read in the render loop without bounds checks,
/// copies or reference counting per use.
final class FragmentTable {
    let count: Int
    private let storage: UnsafeMutableRawPointer
    /// `count + 1` offsets into `storage`: fragment `i` is `starts[i]..<starts[i + 1]`.
    private let starts: UnsafeMutablePointer<Int>

    /// - Parameter fragments: The byte strings, each taken as its UTF-8 bytes; at least one.
    init(_ fragments: [String]) {
        precondition(!fragments.isEmpty, "a table needs a fragment")
        count = fragments.count
        let total = fragments.reduce(0) { $0 + $1.utf8.count }
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 1)
        starts = UnsafeMutablePointer<Int>.allocate(capacity: count + 1)
        var offset = 0
        for (index, fragment) in fragments.enumerated() {
            starts[index] = offset
            for byte in fragment.utf8 {
                storage.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
        starts[count] = offset
    }

    deinit {
        storage.deallocate()
        starts.deallocate()
    }

    /// The fragment at `index`, valid while the table lives.
    @inline(__always)
    subscript(index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + starts[index], count: starts[index + 1] - starts[index])
    }

    /// The longest fragment's length in bytes.
    var maxLength: Int {
        (0..<count).map { starts[$0 + 1] - starts[$0] }.max()!
    }
}
