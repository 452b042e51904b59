import CJSONBlocks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The set of note ids seen in a run, compact enough for millions of ids, with page-level undo.
///
/// Not a `Set<String>`: ids are copied once into an append-only arena of 1 MiB segments as
/// `[varint length][bytes]` entries, and an open-addressing table (linear probing, load at most 3/4) holds
/// 8 bytes per slot: the id's 32-bit hash and its arena position. An insert touches one slot's cache line
/// (and the arena only where the whole hash matches); growing moves slots by the hashes they hold and never
/// reads the arena. A table of 2 MiB or more is held in chunks of 2 MiB and doubles by adding chunks and
/// moving its slots within them, so it never holds an old table and a new one together: the set's peak
/// memory is its final size (``peakMemoryFootprint``). The hash is SipHash-1-3 (the standard library's
/// `Hasher`'s) under a key drawn at random once a process (`SipHash13`), so a hostile server cannot choose
/// ids that collide; computed here over the id's bytes, at half `Hasher`'s cost.
///
/// Cost per id: `1 + length` bytes in the arena (2 for ids of 128 bytes or more) plus 8 bytes per slot at
/// a load between 3/8 and 3/4, i.e. 10.7 to 21.3 bytes: about 32 to 43 bytes for a 20-byte id, so a
/// million 20-byte ids take about 37 MiB (measured: ``memoryFootprint``). Ids may be at most
/// ``maxIDBytes`` long; the arena holds at most 4 GiB.
///
/// Pages: ids inserted since the last ``commitPage()`` form the open page; ``rollbackPage()`` removes
/// them, so a page that fails or is retried leaves no trace. A duplicate reports the page that holds the
/// first copy. One instance per run; not for concurrent use.
public final class IDSet {
    /// The longest id the set stores.
    public static let maxIDBytes = 65_535

    /// The outcome of an insert (``insert(_:)-(String)``, ``insert(_:)-(UnsafeRawBufferPointer)``).
    public enum InsertResult: Equatable, Sendable {
        case inserted
        /// The id was already there, first inserted on page `page` (0-based, counting committed pages).
        case duplicate(page: Int)
    }

    /// The table lives behind a pointer the set owns, not in stored properties: a class's stored
    /// property costs a dynamic exclusivity check on every access, and an insert touches several.
    private let table: UnsafeMutablePointer<Table>

    /// - Parameter capacity: Ids to make room for up front; defaults to 1,024.
    public init(capacity: Int = 1024) {
        table = .allocate(capacity: 1)
        table.initialize(to: Table(capacity: capacity, key: .process, chunkShift: SlotChunks.defaultChunkShift))
    }

    /// A set hashing under `key`, its table in chunks of `1 << chunkShift` slots: tests choose both, to
    /// grow tables in place from a few slots and to see the clusters that many keys make.
    init(capacity: Int, key: SipHash13, chunkShift: Int) {
        table = .allocate(capacity: 1)
        table.initialize(to: Table(capacity: capacity, key: key, chunkShift: chunkShift))
    }

    deinit {
        table.pointee.deallocateSegments()
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Ids in the set.
    public var count: Int { table.pointee.count }

    /// Pages committed so far.
    public var committedPages: Int { table.pointee.pageEnds.count }

    /// Bytes this set holds on the heap: arena segments and the table.
    public var memoryFootprint: Int { table.pointee.memoryFootprint }

    /// The most bytes this set has held at once, counting a table being replaced and its replacement
    /// together.
    public var peakMemoryFootprint: Int { table.pointee.peakMemoryFootprint }

    /// Whether `id` is in the set.
    public func contains(_ id: UnsafeRawBufferPointer) -> Bool {
        table.pointee.contains(id)
    }

    /// Inserts `id` into the open page.
    /// - Returns: ``InsertResult/inserted``, or where the id was seen first.
    /// - Precondition: `id.count <= maxIDBytes`, and the arena has room (4 GiB).
    @discardableResult
    public func insert(_ id: UnsafeRawBufferPointer) -> InsertResult {
        precondition(id.count <= Self.maxIDBytes, "ids are at most \(Self.maxIDBytes) bytes")
        return table.pointee.insert(id)
    }

    /// The hash of `id` that ``insert(_:hash:)`` takes, its slot's cache line fetched meanwhile: a page
    /// prepares a record's id when it reads it and inserts it at the record's end, by when the line, most
    /// often a miss in a large table, has arrived.
    @inline(__always)
    func prepare(_ id: UnsafeRawBufferPointer) -> UInt32 {
        table.pointee.prepare(id)
    }

    /// Inserts `id`, whose hash ``prepare(_:)`` gave, into the open page.
    /// - Precondition: as ``insert(_:)-(UnsafeRawBufferPointer)``.
    @inline(__always)
    func insert(_ id: UnsafeRawBufferPointer, hash: UInt32) -> InsertResult {
        precondition(id.count <= Self.maxIDBytes, "ids are at most \(Self.maxIDBytes) bytes")
        return table.pointee.insert(id, hash: hash)
    }

    /// Inserts the UTF-8 bytes of `id`.
    @discardableResult
    public func insert(_ id: String) -> InsertResult {
        var id = id
        return id.withUTF8 { insert(UnsafeRawBufferPointer($0)) }
    }

    /// Whether the UTF-8 bytes of `id` are in the set.
    public func contains(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { contains(UnsafeRawBufferPointer($0)) }
    }

    /// Makes the ids of the open page permanent and opens the next page.
    public func commitPage() {
        table.pointee.commitPage()
    }

    /// Removes every id inserted since the last commit.
    public func rollbackPage() {
        table.pointee.rollbackPage()
    }
}

/// The storage of an ``IDSet``: arena, table and page marks.
private struct Table {
    private static let segmentShift = 20
    private static let segmentSize = 1 << segmentShift
    private static let maxSegments = 1 << (32 - segmentShift)

    private var segments: [UnsafeMutableRawPointer] = []
    /// Bytes used in each full segment (all but the last).
    private var segmentEnds: [Int] = []
    /// Arena position of the next entry: segment index << 20 | offset in the segment.
    private var end: UInt32 = 0
    /// 0 for an empty slot, else the id's 32-bit hash << 32 | its arena position + 1: a probe compares
    /// hashes without touching the arena, and growing moves slots without reading it.
    private var slots: SlotChunks
    private var mask: Int
    private let key: SipHash13
    var count = 0
    private(set) var peakMemoryFootprint = 0

    /// Arena position where each committed page ends.
    var pageEnds: [UInt32] = []
    /// Slots filled since the last commit, for ``rollbackPage()``; `nil` after the table grew.
    private var openSlots: [Int]? = []
    private var countAtCommit = 0

    init(capacity: Int, key: SipHash13, chunkShift: Int) {
        var size = 16
        while size * 3 / 4 < capacity { size <<= 1 }
        slots = SlotChunks(count: size, chunkShift: chunkShift)
        mask = size - 1
        self.key = key
        notePeak()
    }

    func deallocateSegments() {
        for segment in segments { segment.deallocate() }
        slots.deallocate()
    }

    var memoryFootprint: Int {
        segments.count * Self.segmentSize + slots.count * MemoryLayout<UInt64>.size
    }

    private mutating func notePeak(extra: Int = 0) {
        peakMemoryFootprint = max(peakMemoryFootprint, memoryFootprint + extra)
    }

    func contains(_ id: UnsafeRawBufferPointer) -> Bool {
        find(id, hash: hash(id)).found
    }

    mutating func insert(_ id: UnsafeRawBufferPointer) -> IDSet.InsertResult {
        insert(id, hash: hash(id))
    }

    @inline(__always)
    func prepare(_ id: UnsafeRawBufferPointer) -> UInt32 {
        let hash = hash(id)
        slots.prefetch(Int(hash) & mask)
        return hash
    }

    @inline(__always)
    mutating func insert(_ id: UnsafeRawBufferPointer, hash: UInt32) -> IDSet.InsertResult {
        let (found, slot) = find(id, hash: hash)
        if found { return .duplicate(page: page(of: Self.position(slots[slot]))) }
        slots[slot] = Self.slot(hash: hash, position: append(id))
        openSlots?.append(slot)
        count += 1
        if count > (mask + 1) / 4 * 3 { grow() }
        return .inserted
    }

    mutating func commitPage() {
        pageEnds.append(end)
        openSlots = []
        countAtCommit = count
    }

    mutating func rollbackPage() {
        guard count != countAtCommit else { return }
        let committedEnd = pageEnds.last ?? 0
        if let open = openSlots {
            // Linear probing: undoing inserts newest first restores the table exactly.
            for slot in open.reversed() { slots[slot] = 0 }
        } else {
            // The table grew during the page: rebuild it from the committed entries, hashed again.
            slots.clear()
            forEachEntry(upTo: committedEnd) { position, id in place(Self.slot(hash: hash(id), position: position)) }
        }
        count = countAtCommit
        openSlots = []
        let keepSegments = Int(committedEnd >> UInt32(Self.segmentShift)) + 1
        while segments.count > keepSegments { segments.removeLast().deallocate() }
        segmentEnds.removeSubrange(min(segmentEnds.count, keepSegments - 1)...)
        end = committedEnd
    }

    // MARK: - Table

    /// 32 bits of SipHash-1-3 under the set's key (the process's). The slot and the stored hash both come
    /// from these bits.
    @inline(__always)
    private func hash(_ id: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: key.hash(id))
    }

    @inline(__always)
    private static func slot(hash: UInt32, position: UInt32) -> UInt64 {
        UInt64(hash) << 32 | UInt64(position + 1)
    }

    @inline(__always)
    private static func position(_ slot: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: slot) - 1
    }

    /// The slot holding `id`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ id: UnsafeRawBufferPointer, hash: UInt32) -> (found: Bool, slot: Int) {
        var slot = Int(hash) & mask
        while true {
            let value = slots[slot]
            if value == 0 { return (false, slot) }
            if UInt32(truncatingIfNeeded: value >> 32) == hash && entryEquals(Self.position(value), id) {
                return (true, slot)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Puts `value` in the first empty slot from its hash's.
    @inline(__always)
    private func place(_ value: UInt64) {
        var slot = Int(truncatingIfNeeded: value >> 32) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = value
    }

    /// Doubles the table, moving each slot by the hash it holds: the arena is not read. A table of whole
    /// chunks doubles in place; a smaller one is copied into its replacement.
    private mutating func grow() {
        let oldCount = slots.count
        if slots.canDoubleInPlace {
            slots.doubleInPlace()
            mask = slots.count - 1
            notePeak()
            rehashInPlace(oldCount: oldCount)
        } else {
            let old = slots
            slots = SlotChunks(count: oldCount * 2, chunkShift: old.chunkShift)
            mask = slots.count - 1
            notePeak(extra: oldCount * MemoryLayout<UInt64>.size)
            for index in 0..<oldCount where old[index] != 0 { place(old[index]) }
            old.deallocate()
        }
        openSlots = nil
    }

    /// Moves the slots of the lower half, just doubled in place (the upper half empty), to where the
    /// doubled table's probes look for them.
    ///
    /// A slot's home in the doubled table is its old home or that plus the old size. The cluster at the
    /// start of the lower half, whose ids may have homes at its end, is set aside; then, from the empty
    /// slot after it, each slot is taken out and placed again, in order. A probe then crosses only slots
    /// already moved (or set aside) and stops at the slot just emptied at the latest: from the old home,
    /// that slot is ahead within its cluster; from the new home, the probe runs through the upper half and
    /// wraps to the start of the lower half. So no slot is placed past one not yet moved, which would lose
    /// it when that one moves. The slots set aside are placed last.
    private mutating func rehashInPlace(oldCount: Int) {
        var firstEmpty = 0
        while slots[firstEmpty] != 0 { firstEmpty += 1 }  // there is one: the load was at most 3/4
        var setAside: [UInt64] = []
        for index in 0..<firstEmpty {
            setAside.append(slots[index])
            slots[index] = 0
        }
        for index in firstEmpty + 1..<oldCount {
            let value = slots[index]
            if value == 0 { continue }
            slots[index] = 0
            place(value)
        }
        for value in setAside { place(value) }
    }

    // MARK: - Arena

    /// Bytes of the entry of an id of `count` bytes: 1 to 3 of length, then the id.
    @inline(__always)
    private static func entrySize(_ count: Int) -> Int {
        (count < 0x80 ? 1 : count < 0x4000 ? 2 : 3) + count
    }

    private mutating func append(_ id: UnsafeRawBufferPointer) -> UInt32 {
        let entrySize = Self.entrySize(id.count)
        var segment = Int(end >> UInt32(Self.segmentShift))
        var offset = Int(end) & (Self.segmentSize - 1)
        if segment == segments.count || offset + entrySize > Self.segmentSize {
            if segment < segments.count {
                segmentEnds.append(offset)
                segment += 1
                offset = 0
            } else if segment > 0 {
                segmentEnds.append(Self.segmentSize)  // the previous entry ended the segment exactly
            }
            precondition(segment < Self.maxSegments, "IDSet holds at most 4 GiB of ids")
            segments.append(UnsafeMutableRawPointer.allocate(byteCount: Self.segmentSize, alignment: 16))
            notePeak()
        }
        let base = segments[segment] + offset
        var length = id.count
        var cursor = 0
        repeat {
            let more = length >= 0x80
            base.storeBytes(
                of: UInt8(truncatingIfNeeded: length & 0x7F) | (more ? 0x80 : 0), toByteOffset: cursor, as: UInt8.self)
            length >>= 7
            cursor += 1
        } while length > 0
        if id.count > 0 { (base + cursor).copyMemory(from: id.baseAddress!, byteCount: id.count) }
        let position = UInt32(segment << Self.segmentShift | offset)
        let next = segment << Self.segmentShift + offset + entrySize
        end = next >= Self.maxSegments << Self.segmentShift ? UInt32.max : UInt32(next)
        return position
    }

    /// The id of the entry at `position`.
    @inline(__always)
    private func entry(at position: UInt32) -> UnsafeRawBufferPointer {
        let base =
            UnsafeRawPointer(segments[Int(position >> UInt32(Self.segmentShift))])
            + Int(position & UInt32(Self.segmentSize - 1))
        var length = 0
        var shift = 0
        var cursor = 0
        while true {
            let byte = base.load(fromByteOffset: cursor, as: UInt8.self)
            length |= Int(byte & 0x7F) << shift
            cursor += 1
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return UnsafeRawBufferPointer(start: base + cursor, count: length)
    }

    @inline(__always)
    private func entryEquals(_ position: UInt32, _ id: UnsafeRawBufferPointer) -> Bool {
        let stored = entry(at: position)
        guard stored.count == id.count else { return false }
        return id.count == 0 || memcmp(stored.baseAddress!, id.baseAddress!, id.count) == 0
    }

    /// Calls `body` with the position and the id of every entry before `limit`, in arena order.
    private func forEachEntry(upTo limit: UInt32, _ body: (UInt32, UnsafeRawBufferPointer) -> Void) {
        var position = 0
        while position < Int(limit) {
            let segment = position >> Self.segmentShift
            // An entry never crosses a segment: after the last entry of a full segment, go to the next.
            if segment < segmentEnds.count && position & (Self.segmentSize - 1) == segmentEnds[segment] {
                position = (segment + 1) << Self.segmentShift
                continue
            }
            let id = entry(at: UInt32(position))
            body(UInt32(position), id)
            position += Self.entrySize(id.count)
        }
    }

    /// The 0-based committed page that holds the entry at `position` (the open page is `committedPages`).
    private func page(of position: UInt32) -> Int {
        var low = 0
        var high = pageEnds.count
        while low < high {
            let middle = (low + high) / 2
            if pageEnds[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The slots of an ``IDSet``'s table, in chunks of `1 << chunkShift` slots (2 MiB of them by default).
///
/// A table of whole chunks doubles by adding as many chunks again, empty, so the set can move its slots
/// in place (``doubleInPlace()``); a table smaller than a chunk is one chunk of its own size, replaced
/// when it doubles. A chunk of 2 MiB is aligned to 2 MiB and, on Linux, asks for huge pages: a probe lands
/// anywhere in the table, and with 4 KiB pages nearly every probe of a large table also misses the TLB.
private struct SlotChunks {
    static let defaultChunkShift = 18

    let chunkShift: Int
    private let chunkMask: Int
    private(set) var count: Int
    private var chunks: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>>
    private var chunkCount: Int

    /// A table of `count` empty slots, a power of two.
    init(count: Int, chunkShift: Int) {
        self.chunkShift = chunkShift
        chunkMask = 1 << chunkShift - 1
        self.count = count
        chunkCount = max(1, count >> chunkShift)
        chunks = .allocate(capacity: chunkCount)
        for index in 0..<chunkCount { chunks[index] = Self.emptyChunk(min(count, 1 << chunkShift)) }
    }

    func deallocate() {
        for index in 0..<chunkCount { chunks[index].deallocate() }
        chunks.deallocate()
    }

    subscript(slot: Int) -> UInt64 {
        @inline(__always) get { chunks[slot &>> chunkShift][slot & chunkMask] }
        @inline(__always) nonmutating set { chunks[slot &>> chunkShift][slot & chunkMask] = newValue }
    }

    /// Starts loading the cache line of `slot`.
    @inline(__always)
    func prefetch(_ slot: Int) {
        notes_prefetch_for_write(chunks[slot &>> chunkShift] + (slot & chunkMask))
    }

    /// Whether the table is whole chunks, which ``doubleInPlace()`` can add to.
    var canDoubleInPlace: Bool { count >= 1 << chunkShift }

    /// Doubles the table by adding empty chunks after the ones it has; every slot keeps its place.
    mutating func doubleInPlace() {
        precondition(canDoubleInPlace, "only a table of whole chunks doubles in place")
        let grown = UnsafeMutablePointer<UnsafeMutablePointer<UInt64>>.allocate(capacity: chunkCount * 2)
        grown.moveInitialize(from: chunks, count: chunkCount)
        for index in chunkCount..<chunkCount * 2 { grown[index] = Self.emptyChunk(1 << chunkShift) }
        chunks.deallocate()
        chunks = grown
        chunkCount *= 2
        count *= 2
    }

    /// Empties every slot.
    func clear() {
        for index in 0..<chunkCount { chunks[index].update(repeating: 0, count: min(count, 1 << chunkShift)) }
    }

    private static func emptyChunk(_ size: Int) -> UnsafeMutablePointer<UInt64> {
        let bytes = size * MemoryLayout<UInt64>.stride
        let huge = 2 << 20
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: bytes, alignment: bytes >= huge ? huge : MemoryLayout<UInt64>.alignment)
        #if os(Linux)
            if bytes >= huge { _ = madvise(raw, bytes, MADV_HUGEPAGE) }
        #endif
        let chunk = raw.bindMemory(to: UInt64.self, capacity: size)
        chunk.initialize(repeating: 0, count: size)
        return chunk
    }
}

/// SipHash-1-3 (Aumasson and Bernstein's SipHash with one compression round and three finalization rounds,
/// as the standard library's `Hasher`): a keyed hash whose outputs an attacker who does not know the key
/// cannot steer into collisions.
struct SipHash13: Sendable {
    var k0: UInt64
    var k1: UInt64

    /// The key of this process, drawn from the system's random source once.
    static let process: SipHash13 = {
        var random = SystemRandomNumberGenerator()
        return SipHash13(k0: random.next(), k1: random.next())
    }()

    /// The hash of `bytes`.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        hash(bytes, compressionRounds: 1, finalizationRounds: 3)
    }

    /// SipHash-c-d of `bytes`: SipHash-2-4 with `(2, 4)`, whose published test vectors check this code.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer, compressionRounds: Int, finalizationRounds: Int) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        @inline(__always) func rounds(_ count: Int) {
            for _ in 0..<count {
                v0 = v0 &+ v1
                v1 = v1.rotatedLeft(13) ^ v0
                v0 = v0.rotatedLeft(32)
                v2 = v2 &+ v3
                v3 = v3.rotatedLeft(16) ^ v2
                v0 = v0 &+ v3
                v3 = v3.rotatedLeft(21) ^ v0
                v2 = v2 &+ v1
                v1 = v1.rotatedLeft(17) ^ v2
                v2 = v2.rotatedLeft(32)
            }
        }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            v3 ^= word
            rounds(compressionRounds)
            v0 ^= word
            index += 8
        }
        // The last 0 to 7 bytes, and the length's low byte on top.
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while index < count {
            last |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        v3 ^= last
        rounds(compressionRounds)
        v0 ^= last
        v2 ^= 0xff
        rounds(finalizationRounds)
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        self << count | self >> (64 - count)
    }
}
