import Foundation
import NotesGen
import Testing

@Suite("PRNG, checksum and cursors")
struct PrimitiveTests {
    @Test("FNV-1a 64 matches the published test vectors")
    func fnvVectors() {
        for (text, hash) in [("", "cbf29ce484222325"), ("a", "af63dc4c8601ec8c"), ("foobar", "85944171f73967e8")] {
            var fnv = FNV1a64()
            fnv.update(Array(text.utf8))
            #expect(fnv.hexDigits == hash, "\(text)")
        }
        var ids = FNV1a64()
        ids.update(id: Array("n1".utf8))
        ids.update(id: Array("é".utf8))
        #expect(ids.hexDigits == checksum(ofIDs: [Array("n1".utf8)[...], Array("é".utf8)[...]]))
    }

    @Test("SplitMix64 gives the reference sequence for seed 0")
    func splitMixVectors() {
        var random = SplitMix64(seed: 0)
        #expect(
            [random.next(), random.next(), random.next()] == [
                0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F,
            ])
        var bounded = SplitMix64(seed: 1)
        #expect((0..<1000).allSatisfy { _ in (0..<7).contains(bounded.next(below: 7)) })
    }

    @Test("Cursors are opaque base64 of 16 bytes, distinct per page and per seed")
    func cursors() throws {
        var seen = Set<String>()
        for page in 1...5000 {
            let cursor = PageCursor.make(seed: 42, page: page)
            #expect(cursor.count == 24 && cursor.hasPrefix("+/") && cursor.hasSuffix("=="))
            #expect(Data(base64Encoded: cursor)?.count == 16)
            seen.insert(cursor)
        }
        #expect(seen.count == 5000)
        #expect(PageCursor.make(seed: 42, page: 1) == PageCursor.make(seed: 42, page: 1))
        #expect(PageCursor.make(seed: 43, page: 1) != PageCursor.make(seed: 42, page: 1))
    }

    /// Pinned outputs: a change to the generator that alters its bytes must be deliberate (and bump the
    /// manifest's `format`), since other tools compare runs across machines.
    @Test("Known answers for seed 42")
    func knownAnswers() throws {
        #expect(PageCursor.make(seed: 42, page: 1) == "+/8hiQFQNCqk6agFx5NgTQ==")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        generate(["--count", "25", "--page-size", "10", "--out", directory.path("run")])
        let manifest = try Manifest(directory: directory.path("run"))
        #expect(manifest.idsFNV1a64 == "49d260c4b5957488")
        #expect(manifest.totalBytes == 3991)
    }
}
