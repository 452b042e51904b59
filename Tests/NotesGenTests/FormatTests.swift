import Foundation
import NotesGen
import NotesPage
import Testing

@Suite("Determinism and the ndjson and page formats")
struct FormatTests {
    /// Every file under `directory`, by relative path.
    private func files(_ directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        for case let name as String in enumerator where !name.hasSuffix("pages") {
            files[name] = try contents(directory + "/" + name)
        }
        return files
    }

    @Test("The same seed gives byte-identical output; another seed does not")
    func sameSeedSameBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["--count", "1200", "--page-size", "250", "--faults", "missing-id@2"]
        generate(arguments + ["--out", directory.path("a")])
        generate(arguments + ["--out", directory.path("b")])
        generate(arguments + ["--seed", "43", "--out", directory.path("c")])

        let first = try files(directory.path("a"))
        #expect(first.keys.sorted() == ["manifest.json"] + (0..<5).map { "pages/0000\($0).json" })
        #expect(try files(directory.path("b")) == first)
        let other = try files(directory.path("c"))
        #expect(other.keys.sorted() == first.keys.sorted())
        for (name, bytes) in other { #expect(bytes != first[name], "\(name) did not change with the seed") }

        let cursorsA = try Manifest(directory: directory.path("a")).pages.compactMap(\.nextCursor)
        let cursorsC = try Manifest(directory: directory.path("c")).pages.compactMap(\.nextCursor)
        #expect(Set(cursorsA).isDisjoint(with: cursorsC))
    }

    @Test("The page and ndjson formats carry the dir format's notes in the same order")
    func formatsAgree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let common = ["--count", "1500", "--seed", "3"]
        generate(common + ["--page-size", "400", "--out", directory.path("dir")])
        generate(common + ["--format", "page", "--out", directory.path("page.json")])
        generate(common + ["--format", "ndjson", "--out", directory.path("notes.ndjson")])

        let fromDirectory = try decodeDirectory(directory.path("dir"))
        #expect(fromDirectory.count == 1500)

        let (fromPage, summary) = try decodePage(try contents(directory.path("page.json")), ids: IDSet()).get()
        #expect(summary.nextCursor == nil && !summary.isBareArray)
        #expect(fromPage == fromDirectory)

        let ndjson = try contents(directory.path("notes.ndjson"))
        #expect(ndjson.last == UInt8(ascii: "\n"))
        let lines = ndjson.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1500)
        let ids = IDSet()
        var fromLines: [Note] = []
        for line in lines {
            let (notes, _) = try decodePage([UInt8(ascii: "[")] + line + [UInt8(ascii: "]")], ids: ids).get()
            #expect(notes.count == 1)
            fromLines += notes
        }
        #expect(fromLines == fromDirectory)
        #expect(try Manifest(directory: directory.path("dir")).idsFNV1a64 == checksum(ofIDs: fromLines.map(\.idBytes)))
    }

    @Test("The page size changes the pages, not the notes")
    func pageSizeKeepsNotes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        generate(["--count", "600", "--page-size", "1", "--out", directory.path("one")])
        generate(["--count", "600", "--page-size", "599", "--out", directory.path("many")])
        let one = try decodeDirectory(directory.path("one"))
        #expect(try Manifest(directory: directory.path("one")).pages.count == 600)
        #expect(one == (try decodeDirectory(directory.path("many"))))
    }

    @Test("Generator.run reports what the manifest says")
    func summaryMatchesManifest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        let summary = try Generator(Generator.Configuration(count: 900, pageSize: 200, output: .path(out))).run()
        let manifest = try Manifest(directory: out)
        #expect(summary.noteCount == 900)
        #expect(summary.totalBytes == manifest.totalBytes)
        #expect(summary.idsChecksum.hexDigits == manifest.idsFNV1a64)
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json.tmp"))
        #expect(!FileManager.default.fileExists(atPath: out + "/.manifest-pages.tmp"))

        let page = try Generator(Generator.Configuration(count: 900, format: .page, output: .path(directory.path("p"))))
            .run()
        #expect(page.idsChecksum == summary.idsChecksum)
        #expect(page.totalBytes == (try contents(directory.path("p"))).count)
    }
}
