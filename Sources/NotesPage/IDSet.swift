import CJSONBlocks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The set of note ids seen in a run, compact enough for millions of ids, with page-level undo.
///
/// Not a `Set<String>`: ids are copied once into an append-only arena of 1 MiB segments as
/// `[32-bit hash][varint length][bytes]` entries, and an open-addressing table (linear probing, load at
/// most 3/4) holds two arrays: a byte a slot, 0 for an empty slot or else a tag of 8 bits of the id's hash,
/// and the id's arena position. A probe reads the tags alone, a fifth of the table, small enough to stay
/// in the processor's cache where a table of whole slots would miss it on nearly every insert; the arena
/// is read only where a tag matches, and then its stored hash is compared before the bytes. Growing frees
/// the table and builds the one twice its size from the arena's entries, in order, by the hashes stored
/// there, so it never holds an old table and a new one together and never hashes an id again: the set's
/// peak memory is its final size (``peakMemoryFootprint``). The hash is SipHash-1-3 (the standard
/// library's `Hasher`'s) under a key drawn at random once a process (`SipHash13`), so a hostile server
/// cannot choose ids that collide; computed here over the id's bytes, at half `Hasher`'s cost.
///
/// Cost per id: `5 + length` bytes in the arena (6 + length from 128 bytes, 7 + length from 16 KiB) plus
/// 5 bytes per slot at a load between 3/8 and 3/4, i.e. 6.7 to 13.3 bytes: about 32 to 38 bytes for a
/// 20-byte id, so a million 20-byte ids take about 34 MiB (measured: ``memoryFootprint``). A page rolled
/// back after the table grew leaves the table its grown size. Ids may be at most ``maxIDBytes`` long; the
/// arena holds at most 4 GiB.
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
        table.initialize(to: Table(capacity: capacity, key: .process))
    }

    /// A set hashing under `key`: tests choose it, to see the clusters that many keys make.
    init(capacity: Int, key: SipHash13) {
        table = .allocate(capacity: 1)
        table.initialize(to: Table(capacity: capacity, key: key))
    }

    deinit {
        table.pointee.deallocate()
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Ids in the set.
    public var count: Int { table.pointee.count }

    /// Pages committed so far.
    public var committedPages: Int { table.pointee.pageEnds.count }

    /// Bytes this set holds on the heap: arena segments and the table.
    public var memoryFootprint: Int { table.pointee.memoryFootprint }

    /// The most bytes this set has held at once.
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

    /// The hash of `id` that ``insert(_:hash:)`` takes, its slot's cache lines fetched meanwhile: a page
    /// prepares a record's id when it reads it and inserts it at the record's end, by when they have
    /// arrived.
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
    /// A byte a slot: 0 when the slot is empty, else the tag of the id's hash (``tag(_:)``).
    private var tags: UnsafeMutablePointer<UInt8>
    /// The arena position of each full slot's id.
    private var positions: UnsafeMutablePointer<UInt32>
    private var mask: Int
    /// Bytes of the table allocated and not yet freed.
    private var slotBytesHeld = 0
    private let key: SipHash13
    var count = 0
    private(set) var peakMemoryFootprint = 0

    /// Arena position where each committed page ends.
    var pageEnds: [UInt32] = []
    /// Slots filled since the last commit, for ``rollbackPage()``; `nil` after the table grew.
    private var openSlots: [Int]? = []
    private var countAtCommit = 0

    init(capacity: Int, key: SipHash13) {
        var size = 16
        while size * 3 / 4 < capacity { size <<= 1 }
        (tags, positions) = Self.allocateSlots(size)
        slotBytesHeld = size * Self.slotBytes
        mask = size - 1
        self.key = key
        notePeak()
    }

    func deallocate() {
        for segment in segments { segment.deallocate() }
        tags.deallocate()
        positions.deallocate()
    }

    var memoryFootprint: Int {
        segments.count * Self.segmentSize + slotBytesHeld
    }

    private mutating func notePeak() {
        peakMemoryFootprint = max(peakMemoryFootprint, memoryFootprint)
    }

    func contains(_ id: UnsafeRawBufferPointer) -> Bool {
        find(id, hash: hash(id)).found
    }

    mutating func insert(_ id: UnsafeRawBufferPointer) -> IDSet.InsertResult {
        insert(id, hash: hash(id))
    }

    /// Mutating only so that a call through the set's pointer reads the table in place; it changes
    /// nothing. A non-mutating call copies the table, retaining and releasing its four arrays each time.
    @inline(__always)
    mutating func prepare(_ id: UnsafeRawBufferPointer) -> UInt32 {
        let hash = hash(id)
        prefetchSlot(of: hash)
        return hash
    }

    @inline(__always)
    mutating func insert(_ id: UnsafeRawBufferPointer, hash: UInt32) -> IDSet.InsertResult {
        let (found, slot) = find(id, hash: hash)
        if found { return .duplicate(page: page(of: positions[slot])) }
        tags[slot] = Self.tag(hash)
        positions[slot] = append(id, hash: hash)
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
            for slot in open.reversed() { tags[slot] = 0 }
        } else {
            // The table grew during the page: build it again from the committed entries.
            tags.update(repeating: 0, count: mask + 1)
            placeEntries(upTo: committedEnd)
        }
        count = countAtCommit
        openSlots = []
        let keepSegments = Int(committedEnd >> UInt32(Self.segmentShift)) + 1
        while segments.count > keepSegments { segments.removeLast().deallocate() }
        segmentEnds.removeSubrange(min(segmentEnds.count, keepSegments - 1)...)
        end = committedEnd
    }

    // MARK: - Table

    /// Bytes a slot takes: its tag and its arena position.
    private static let slotBytes = MemoryLayout<UInt8>.size + MemoryLayout<UInt32>.size

    /// 32 bits of SipHash-1-3 under the set's key (the process's). The slot, the tag and the hash the
    /// arena keeps all come from these bits.
    @inline(__always)
    private func hash(_ id: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: key.hash(id))
    }

    /// The slot's byte for an id of hash `hash`, never 0: the top byte of the product of the hash and an
    /// odd constant, which depends on every bit of the hash, so ids whose slots are neighbours (the same
    /// low bits) still differ in their tags.
    @inline(__always)
    private static func tag(_ hash: UInt32) -> UInt8 {
        max(1, UInt8(truncatingIfNeeded: (hash &* 0x9E37_79B1) >> 24))
    }

    /// The slot holding `id`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ id: UnsafeRawBufferPointer, hash: UInt32) -> (found: Bool, slot: Int) {
        let tag = Self.tag(hash)
        var slot = Int(hash) & mask
        while true {
            let byte = tags[slot]
            if byte == 0 { return (false, slot) }
            if byte == tag && entryEquals(positions[slot], hash: hash, id) { return (true, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// Starts loading the cache lines of the home slot of `hash`, its tag's and its position's, for a write
    /// soon.
    @inline(__always)
    private func prefetchSlot(of hash: UInt32) {
        let slot = Int(hash) & mask
        notes_prefetch_for_write(tags + slot)
        notes_prefetch_for_write(positions + slot)
    }

    /// Puts the entry at `position`, of hash `hash`, in the first empty slot from its hash's.
    @inline(__always)
    private func place(hash: UInt32, position: UInt32) {
        var slot = Int(hash) & mask
        while tags[slot] != 0 { slot = (slot + 1) & mask }
        tags[slot] = Self.tag(hash)
        positions[slot] = position
    }

    /// Places every entry before `limit`, in arena order, by the hash the arena keeps. The arena is read
    /// in order but the slots land anywhere: each entry's slot is fetched `lookahead` entries before it is
    /// placed, so that many misses are on their way at once rather than one after another.
    private func placeEntries(upTo limit: UInt32) {
        let lookahead = 16
        let pending = UnsafeMutablePointer<(hash: UInt32, position: UInt32)>.allocate(capacity: lookahead)
        defer { pending.deallocate() }
        var read = 0
        forEachEntry(upTo: limit) { position, hash, _ in
            let index = read & (lookahead - 1)
            if read >= lookahead { place(hash: pending[index].hash, position: pending[index].position) }
            prefetchSlot(of: hash)
            pending[index] = (hash, position)
            read += 1
        }
        for index in max(0, read - lookahead)..<read {
            let entry = pending[index & (lookahead - 1)]
            place(hash: entry.hash, position: entry.position)
        }
    }

    /// Doubles the table: frees it, then builds the new one from the arena, so the two are never held
    /// together.
    private mutating func grow() {
        let size = (mask + 1) * 2
        tags.deallocate()
        positions.deallocate()
        slotBytesHeld -= (mask + 1) * Self.slotBytes
        (tags, positions) = Self.allocateSlots(size)
        slotBytesHeld += size * Self.slotBytes
        mask = size - 1
        notePeak()
        placeEntries(upTo: end)
        openSlots = nil
    }

    /// The tags (all 0) and positions of a table of `size` slots. An array of 2 MiB or more is aligned
    /// to 2 MiB and, on Linux, asks for huge pages: a probe lands anywhere in it, and with 4 KiB pages
    /// nearly every probe of a large table would also miss the TLB.
    private static func allocateSlots(_ size: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt32>) {
        func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
            let huge = 2 << 20
            let raw = UnsafeMutableRawPointer.allocate(
                byteCount: bytes, alignment: bytes >= huge ? huge : MemoryLayout<UInt32>.alignment)
            #if os(Linux)
                if bytes >= huge { _ = madvise(raw, bytes, MADV_HUGEPAGE) }
            #endif
            return raw
        }
        let tags = allocate(size).bindMemory(to: UInt8.self, capacity: size)
        tags.initialize(repeating: 0, count: size)
        // A position is read only where its tag is set, so the array needs no filling.
        let positions = allocate(size * MemoryLayout<UInt32>.stride).bindMemory(to: UInt32.self, capacity: size)
        return (tags, positions)
    }

    // MARK: - Arena

    /// Bytes of the entry of an id of `count` bytes: its hash, 1 to 3 of length, then the id.
    @inline(__always)
    private static func entrySize(_ count: Int) -> Int {
        MemoryLayout<UInt32>.size + (count < 0x80 ? 1 : count < 0x4000 ? 2 : 3) + count
    }

    private mutating func append(_ id: UnsafeRawBufferPointer, hash: UInt32) -> UInt32 {
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
        base.storeBytes(of: hash.littleEndian, as: UInt32.self)
        var length = id.count
        var cursor = MemoryLayout<UInt32>.size
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

    /// The hash and the id of the entry at `position`.
    @inline(__always)
    private func entry(at position: UInt32) -> (hash: UInt32, id: UnsafeRawBufferPointer) {
        let base =
            UnsafeRawPointer(segments[Int(position >> UInt32(Self.segmentShift))])
            + Int(position & UInt32(Self.segmentSize - 1))
        let hash = UInt32(littleEndian: base.loadUnaligned(as: UInt32.self))
        var length = 0
        var shift = 0
        var cursor = MemoryLayout<UInt32>.size
        while true {
            let byte = base.load(fromByteOffset: cursor, as: UInt8.self)
            length |= Int(byte & 0x7F) << shift
            cursor += 1
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return (hash, UnsafeRawBufferPointer(start: base + cursor, count: length))
    }

    @inline(__always)
    private func entryEquals(_ position: UInt32, hash: UInt32, _ id: UnsafeRawBufferPointer) -> Bool {
        let stored = entry(at: position)
        guard stored.hash == hash, stored.id.count == id.count else { return false }
        return id.count == 0 || memcmp(stored.id.baseAddress!, id.baseAddress!, id.count) == 0
    }

    /// Calls `body` with the position, the hash and the id of every entry before `limit`, in arena order.
    private func forEachEntry(upTo limit: UInt32, _ body: (UInt32, UInt32, UnsafeRawBufferPointer) -> Void) {
        var position = 0
        while position < Int(limit) {
            let segment = position >> Self.segmentShift
            // An entry never crosses a segment: after the last entry of a full segment, go to the next.
            if segment < segmentEnds.count && position & (Self.segmentSize - 1) == segmentEnds[segment] {
                position = (segment + 1) << Self.segmentShift
                continue
            }
            let (hash, id) = entry(at: UInt32(position))
            body(UInt32(position), hash, id)
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
        // The last 0 to 7 bytes, and the length's low byte on top. They are read in two loads at most,
        // which may overlap: a byte read twice lands in the same place both times.
        var last = UInt64(truncatingIfNeeded: count) << 56
        let rest = count - index
        if rest >= 4 {
            let low = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
            let high = UInt64(
                UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            last |= low | high << UInt64((rest - 4) * 8)
        } else if rest > 0 {
            last |= UInt64(bytes[index])
            last |= UInt64(bytes[index + rest / 2]) << UInt64(rest / 2 * 8)
            last |= UInt64(bytes[count - 1]) << UInt64((rest - 1) * 8)
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
