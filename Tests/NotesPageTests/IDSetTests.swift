import Testing

@testable import NotesPage

@Suite("The compact id set")
struct IDSetTests {
    @Test("Inserts, finds, and reports a duplicate with the page of its first copy")
    func basics() {
        let ids = IDSet()
        #expect(ids.insert("a") == .inserted)
        #expect(ids.insert("") == .inserted)
        #expect(ids.contains("a") && ids.contains("") && !ids.contains("b"))
        ids.commitPage()
        #expect(ids.insert("b") == .inserted)
        #expect(ids.insert("a") == .duplicate(page: 0))
        #expect(ids.insert("b") == .duplicate(page: 1))
        #expect(ids.count == 3)
    }

    @Test("100,000 ids with a shared prefix: every one found once, none invented")
    func many() {
        let ids = IDSet(capacity: 16)
        for index in 0..<100_000 { #expect(ids.insert("note-\(index)") == .inserted) }
        #expect(ids.count == 100_000)
        for index in stride(from: 0, to: 100_000, by: 7) { #expect(ids.insert("note-\(index)") == .duplicate(page: 0)) }
        for index in 100_000..<101_000 { #expect(!ids.contains("note-\(index)")) }
    }

    @Test("Rolling back a page removes its ids, whether or not the table grew meanwhile", arguments: [10, 5_000])
    func rollback(pageSize: Int) {
        let ids = IDSet(capacity: 16)
        for index in 0..<1_000 { ids.insert("kept-\(index)") }
        ids.commitPage()
        for index in 0..<pageSize { ids.insert("dropped-\(index)") }
        ids.rollbackPage()
        #expect(ids.count == 1_000)
        for index in 0..<1_000 { #expect(ids.contains("kept-\(index)")) }
        for index in 0..<pageSize { #expect(!ids.contains("dropped-\(index)")) }
        // The page can be read again: its ids are new once more.
        for index in 0..<pageSize { #expect(ids.insert("dropped-\(index)") == .inserted) }
        ids.commitPage()
        #expect(ids.insert("dropped-0") == .duplicate(page: 1))
        #expect(ids.insert("kept-999") == .duplicate(page: 0))
    }

    /// Tables grow from 16 slots, so a few thousand ids go through many doublings, each built again from
    /// the arena, and 64 keys give as many different layouts of clusters, those that wrap past the end of
    /// the table among them.
    @Test("A growing table keeps every id and every page, under 64 keys; rollback rebuilds it")
    func grows() {
        for seed in 0..<64 as Range<UInt64> {
            let key = SipHash13(k0: seed &* 0x9E37_79B9_7F4A_7C15, k1: ~seed)
            let ids = IDSet(capacity: 16, key: key)
            for page in 0..<8 {
                for index in page * 300..<(page + 1) * 300 { #expect(ids.insert("id-\(index)") == .inserted) }
                ids.commitPage()
            }
            func expectEveryID() {
                for index in 0..<2_400 {
                    #expect(ids.insert("id-\(index)") == .duplicate(page: index / 300), "key \(seed), id-\(index)")
                }
                for index in 2_400..<2_600 { #expect(!ids.contains("id-\(index)"), "key \(seed)") }
            }
            expectEveryID()
            // A page that grows the table again, then is rolled back: the table is rebuilt from the arena.
            for index in 0..<3_000 { ids.insert("dropped-\(index)") }
            ids.rollbackPage()
            #expect(ids.count == 2_400)
            for index in 0..<3_000 { #expect(!ids.contains("dropped-\(index)"), "key \(seed)") }
            expectEveryID()
        }
    }

    /// From 16 slots the open page's ids grow the table, so the rollback builds it again from the arena,
    /// across the end of a full segment; from 1,024 it clears the page's slots.
    @Test(
        "Long ids fill several 1 MiB segments; rollback across a segment boundary keeps the rest",
        arguments: [16, 1_024])
    func segments(capacity: Int) {
        let ids = IDSet(capacity: capacity, key: .process)
        let long = String(repeating: "x", count: 60_000)
        for index in 0..<20 { #expect(ids.insert("\(index)-\(long)") == .inserted) }  // 1.2 MB: two segments
        ids.commitPage()
        for index in 20..<60 { ids.insert("\(index)-\(long)") }
        ids.insert(String(repeating: "y", count: IDSet.maxIDBytes))
        ids.rollbackPage()
        #expect(ids.count == 20)
        for index in 0..<20 { #expect(ids.contains("\(index)-\(long)")) }
        for index in 20..<60 { #expect(!ids.contains("\(index)-\(long)")) }
        for index in 20..<40 { #expect(ids.insert("\(index)-\(long)") == .inserted) }
        #expect(ids.insert("5-\(long)") == .duplicate(page: 0))
    }

    @Test("A million 20-byte ids take under 36 MiB, and that is the peak: never an old table beside a new one")
    func footprint() {
        let ids = IDSet()
        var id = Array("id-0000000000000000x".utf8)
        for index in 0..<1_000_000 {
            var value = index
            for position in stride(from: 18, through: 3, by: -1) {
                id[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            id.withUnsafeBytes { _ = ids.insert($0) }
        }
        #expect(ids.count == 1_000_000)
        #expect(ids.memoryFootprint < 36 << 20, "\(ids.memoryFootprint) bytes")
        #expect(ids.peakMemoryFootprint == ids.memoryFootprint, "peak \(ids.peakMemoryFootprint) bytes")
    }

    /// Two ids of the same 32-bit hash share their home slot and, so, their tag: only their bytes tell
    /// them apart. Under a fixed key, a pair is found among a few hundred thousand ids (the birthday bound).
    @Test("Ids whose hashes are equal are told apart by their bytes")
    func equalHashes() throws {
        let key = SipHash13(k0: 0x0123_4567_89AB_CDEF, k1: 0xFEDC_BA98_7654_3210)
        var seen: [UInt32: Int] = [:]
        var pair: (Int, Int)?
        for index in 0..<1_000_000 {
            let hash = UInt32(truncatingIfNeeded: Array("id-\(index)".utf8).withUnsafeBytes { key.hash($0) })
            if let first = seen.updateValue(index, forKey: hash) {
                pair = (first, index)
                break
            }
        }
        let (first, second) = try #require(pair)
        let ids = IDSet(capacity: 16, key: key)
        #expect(ids.insert("id-\(first)") == .inserted)
        ids.commitPage()
        #expect(ids.insert("id-\(second)") == .inserted)
        #expect(ids.contains("id-\(first)") && ids.contains("id-\(second)"))
        #expect(ids.insert("id-\(first)") == .duplicate(page: 0))
        #expect(ids.insert("id-\(second)") == .duplicate(page: 1))
    }

    @Test("The hash is SipHash: the published SipHash-2-4 vectors, from the empty message to two words, every tail")
    func sipHashVectors() {
        // Key 00 01 … 0f; message 00 01 … of each length.
        let key = SipHash13(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)
        let message = (0..<16).map { UInt8($0) }
        for (length, expected) in [
            (0, 0x726f_db47_dd0e_0e31), (1, 0x74f8_39c5_93dc_67fd), (2, 0x0d6c_8009_d9a9_4f5a),
            (3, 0x8567_6696_d7fb_7e2d), (4, 0xcf27_94e0_2771_87b7), (5, 0x1876_5564_cd99_a68d),
            (6, 0xcbc9_466e_58fe_e3ce), (7, 0xab02_00f5_8b01_d137), (8, 0x93f5_f579_9a93_2462),
            (12, 0x751e_8fbc_860e_e5fb), (15, 0xa129_ca61_49be_45e5), (16, 0x3f2a_cc7f_57c2_9bdb),
        ] as [(Int, UInt64)] {
            let hash = message.prefix(length).withUnsafeBytes {
                key.hash($0, compressionRounds: 2, finalizationRounds: 4)
            }
            #expect(hash == expected, "\(length) bytes")
        }
    }
}
