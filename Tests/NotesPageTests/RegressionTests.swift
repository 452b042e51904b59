import Foundation
import NotesJSON
import NotesPage
import TestSupport
import Testing

/// The inputs in `Fixtures/regressions/`: what the fuzzer (`make fuzz`, `Tools/reliability/fuzz/FuzzPage.swift`)
/// once crashed on or found inconsistent, kept so that the fix stays fixed.
///
/// Each is decoded with the configuration the fuzz target derives from it (small limits; the paths and
/// whether notes keep their JSON chosen by FNV-1a of the bytes), in one chunk, split at every point, cut
/// into the chunks the fuzz target cut it into, and one byte at a time: every way must give the same
/// notes, next cursor and error, and the same invariants the target checks must hold.
@Suite("Fuzzer regressions")
struct RegressionTests {
    static let directory = repositoryRoot.appendingPathComponent("Fixtures/regressions")

    /// The fixture files, without the README.
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasSuffix(".md") && !$0.hasPrefix(".") }.sorted()
    }()

    /// What each fixture decodes to in one chunk (every other chunking must agree). Every file of the
    /// directory needs an entry: a new regression without one fails ``everyFileHasAnExpectation()``.
    enum Expected: Equatable, CustomStringConvertible {
        case page(notes: Int, next: String?)
        case failure(PageError.Code, offset: Int)

        var description: String {
            switch self {
            case .page(let notes, let next): return "page(\(notes) notes, next: \(next ?? "nil"))"
            case .failure(let code, let offset): return "failure(\(code.name) at byte \(offset))"
            }
        }
    }

    static let expected: [String: Expected] = [
        // `1\x95`: the scalar is complete (and not a page) at the byte after it, before yajl lexes that byte.
        "fuzz-crash-1cc660ee7d04.json": .failure(.notAPage, offset: 1),
        "fuzz-crash-66a113e809be.json": .failure(.limitExceeded(.stringBytes(256)), offset: 257),
        "fuzz-crash-95e8897790df.json": .failure(.invalidJSON, offset: 5),
        "fuzz-crash-9da510921bd9.json": .failure(.limitExceeded(.stringBytes(256)), offset: 256),
        "mutant-string-cap-across-chunks.json": .failure(.limitExceeded(.stringBytes(256)), offset: 257),
        "trailing-unterminated-string.json": .failure(.invalidJSON, offset: 26),
    ]

    /// The fuzz target's limits.
    static let limits = JSONLimits(maxDocumentBytes: 4096, maxTokenBytes: 256, maxDepth: 16)
    static let maxPageNotes = 50

    /// FNV-1a (64-bit), as the fuzz target hashes its input.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The configuration the fuzz target uses for an input with this hash.
    static func configuration(hash: UInt64) -> PageConfiguration {
        var configuration = PageConfiguration(limits: limits, maxPageNotes: maxPageNotes)
        switch hash % 8 {
        case 6:
            configuration.itemsPath = FieldPath("results")
            configuration.nextPath = FieldPath("next")
        case 7:
            configuration.itemsPath = FieldPath("data.items")
            configuration.nextPath = FieldPath("meta.next_page")
        default:
            break
        }
        configuration.keepsJSON = (hash >> 8) % 8 != 0
        return configuration
    }

    /// The fuzz target's chunkings of a body of `count` bytes besides the single chunk.
    static func fuzzChunkings(_ body: [UInt8], hash: UInt64) -> [(String, [ArraySlice<UInt8>])] {
        let split = Int(hash % UInt64(body.count + 1))
        var result = [("two chunks at \(split)", [body[..<split], body[split...]])]
        var random = SeededRandom(seed: hash)
        let maxChunk = 1 + Int((hash >> 16) % 64)
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        while start < body.count {
            let end = min(body.count, start + Int(random.next() % UInt64(maxChunk + 1)))
            chunks.append(body[start..<end])
            start = end
        }
        result.append(("random chunks of up to \(maxChunk) bytes", chunks))
        result.append(("one byte at a time", body.indices.map { body[$0..<$0 + 1] }))
        return result
    }

    @Test("The regressions directory holds only readable fixtures and a README")
    func directoryIsReadable() throws {
        for file in Self.files {
            let data = try Files.data(Self.directory.appendingPathComponent(file))
            #expect(data.count <= 8192, "\(file): the fuzz target never feeds more than 8192 bytes")
        }
    }

    @Test("Every regression file has an expected outcome, and every expected outcome a file")
    func everyFileHasAnExpectation() {
        #expect(!Self.files.isEmpty, "no fixtures found in \(Self.directory.path)")
        let unlisted = Set(Self.files).subtracting(Self.expected.keys).sorted()
        let missing = Set(Self.expected.keys).subtracting(Self.files).sorted()
        #expect(unlisted.isEmpty, "files without an entry in RegressionTests.expected: \(unlisted)")
        #expect(missing.isEmpty, "entries in RegressionTests.expected without a file: \(missing)")
    }

    @Test("Every regression input decodes alike however it is chunked, and keeps the invariants")
    func agreement() throws {
        for file in Self.files {
            let body = Array(try Files.data(Self.directory.appendingPathComponent(file)))
            let hash = Self.fnv1a(body)
            let configuration = Self.configuration(hash: hash)

            let ids = IDSet(capacity: 1)
            let whole = decode([body[...]], configuration: configuration, ids: ids)
            guard let expected = Self.expected[file] else {
                Issue.record("\(file): no entry in RegressionTests.expected; it decodes to \(whole)")
                continue
            }
            switch whole {
            case .page(let notes, let next):
                #expect(expected == .page(notes: notes.count, next: next), "\(file): \(whole)")
                #expect(notes.count <= Self.maxPageNotes, "\(file)")
                #expect(ids.count == notes.count && ids.committedPages == 1, "\(file): the page's ids are committed")
                // Each note's JSON (or, without `keepsJSON`, its id, unescaped) is no longer than its text in the body.
                #expect(notes.reduce(0) { $0 + $1.utf8.count } <= body.count, "\(file): notes longer than the body")
            case .failure(let error, let before):
                #expect(expected == .failure(error.code, offset: error.offset), "\(file): \(whole)")
                #expect(before <= Self.maxPageNotes, "\(file)")
                #expect(error.offset >= 0 && error.offset <= min(body.count, Self.limits.maxDocumentBytes), "\(file)")
                #expect(!error.message.isEmpty && error.message.utf8.count <= 256, "\(file)")
                #expect(ids.count == 0 && ids.committedPages == 0, "\(file): a failed page's ids are rolled back")
            }

            // Every split point of every file: a file is at most 8192 bytes (`directoryIsReadable`), and decoding
            // stops at the 4096-byte page limit anyway.
            var ways = Self.fuzzChunkings(body, hash: hash)
            for split in 0...body.count { ways.append(("split at \(split)", [body[..<split], body[split...]])) }
            for (name, chunks) in ways {
                let outcome = decode(chunks, configuration: configuration, ids: IDSet(capacity: 1))
                #expect(outcome == whole, "\(file), \(name): \(outcome); one chunk: \(whole)")
                if outcome != whole { break }
            }
        }
    }

    /// Found by the fuzz target's strict-JSON check (Fixtures/regressions/trailing-unterminated-string.json):
    /// yajl's trailing-garbage check only lexes what follows a complete value, and an unfinished string lexes
    /// as "need more input", so these pages were accepted until 38d0571.
    @Test(
        "A page followed by an unterminated string is refused as invalid JSON",
        arguments: [#"{"notes":[]}""#, #"{"notes":[]} "abc"#, #"[{"id":"a","title":"t"}] ""#]
    )
    func trailingUnterminatedString(_ text: String) {
        let body = Array(text.utf8)
        for outcome in [decode(body), decode(body.map { [$0][...] })] {
            guard case .failure(let error, _) = outcome else {
                Issue.record("accepted: \(outcome)")
                continue
            }
            // The page is complete; what follows it is not JSON. Not `truncated`: that is a page cut short.
            #expect(error.code == .invalidJSON, "\(outcome)")
            #expect(error.offset == body.count, "\(outcome)")
            #expect(error.message == "invalid JSON: an unterminated string after the document", "\(outcome)")
        }
    }

    @Test(
        "Trailing garbage that is a whole token is refused",
        arguments: [#"{"notes":[]}"x""#, #"{"notes":[]} 1"#, #"{"notes":[]} tr"#, #"{"notes":[]}{}"#]
    )
    func trailingToken(_ text: String) {
        let body = Array(text.utf8)
        let whole = decode(body)
        guard case .failure(let error, _) = whole else {
            Issue.record("accepted: \(whole)")
            return
        }
        #expect(error.code == .invalidJSON)
        #expect(decode(body.map { [$0][...] }) == whole)
    }
}
