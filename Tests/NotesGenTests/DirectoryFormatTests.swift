import Foundation
import NotesGen
import NotesPage
import Testing

@Suite("The dir format")
struct DirectoryFormatTests {
    @Test("Several pages and a partial last one decode with one IDSet, and the manifest describes them")
    func manifestDescribesThePages() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate(["--count", "2500", "--page-size", "700", "--seed", "7", "--out", out])

        let manifest = try Manifest(directory: out)
        #expect(manifest.format == "notes-gen/1")
        #expect(manifest.count == 2500)
        #expect(manifest.pageSize == 700)
        #expect(manifest.seed == 7)
        #expect(manifest.faults.isEmpty)
        #expect(manifest.pages.map(\.file) == (0..<4).map { "pages/0000\($0).json" })
        #expect(manifest.pages.map(\.notes) == [700, 700, 700, 400])

        let ids = IDSet()
        var decodedIDs: [ArraySlice<UInt8>] = []
        var totalBytes = 0
        for (number, page) in manifest.pages.enumerated() {
            let body = try contents(out + "/" + page.file)
            #expect(body.count == page.bytes)
            totalBytes += body.count
            #expect(page.items.lowerBound == 9 && body[page.items.lowerBound] == UInt8(ascii: "["))
            #expect(body[page.items.upperBound - 1] == UInt8(ascii: "]"))

            let (notes, summary) = try decodePage(body, ids: ids).get()
            #expect(notes.count == page.notes)
            #expect(summary.nextCursor == page.nextCursor)
            #expect(page.cursor == (number == 0 ? nil : manifest.pages[number - 1].nextCursor))
            decodedIDs += notes.map(\.idBytes)

            // A server re-wraps the items range without parsing: as a bare array it gives the same notes.
            let (rewrapped, _) = try decodePage(Array(body[page.items]), ids: IDSet()).get()
            #expect(rewrapped == notes)
        }
        #expect(manifest.pages.first?.cursor == nil)
        #expect(manifest.pages.last?.nextCursor == nil)
        let cursors = manifest.pages.compactMap(\.nextCursor)
        #expect(Set(cursors).count == 3)
        #expect(totalBytes == manifest.totalBytes)
        #expect(ids.count == 2500)
        #expect(Set(decodedIDs).count == 2500)
        #expect(checksum(ofIDs: decodedIDs) == manifest.idsFNV1a64)
    }

    @Test("--count 0 gives one empty page")
    func emptyRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("empty")
        generate(["--count", "0", "--out", out])

        let manifest = try Manifest(directory: out)
        #expect(manifest.pages.count == 1)
        let page = try #require(manifest.pages.first)
        #expect(page.notes == 0 && page.cursor == nil && page.nextCursor == nil && page.items == 9..<11)
        let body = try contents(out + "/" + page.file)
        #expect(String(decoding: body, as: UTF8.self) == #"{"notes":[],"next_cursor":null}"#)
        #expect(manifest.totalBytes == body.count)
        #expect(manifest.idsFNV1a64 == checksum(ofIDs: []))
    }

    @Test("An exact multiple of the page size leaves no empty last page")
    func exactMultiple() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("exact")
        generate(["--count", "300", "--page-size", "100", "--out", out])
        let manifest = try Manifest(directory: out)
        #expect(manifest.pages.map(\.notes) == [100, 100, 100])
        #expect(try decodeDirectory(out).count == 300)
    }

    @Test("The notes use every JSON feature a decoder must handle")
    func adversarialContent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("content")
        generate(["--count", "3000", "--page-size", "3000", "--out", out])
        let text = String(decoding: try contents(out + "/pages/00000.json"), as: UTF8.self)
        for feature in [
            #"\ud83d\ude"#, #"\u00e9"#, #"\""#, #"\\"#, #"\/"#, #"\n"#, #"\t"#, #"\u0001"#, #"\u0000"#, "😀", "日本",
            #"{"title":"#, #"{"id":"#, #""tags":[]"#, #":null"#, #":true"#, #":false"#, #"":-"#, "E-", "e+",
            #"{"author":{"#, "-9223372036854775808", #""na\u00efve":"#,
        ] {
            #expect(text.contains(feature), "no \(feature)")
        }
        let notes = try decodeDirectory(out)
        let lengths = notes.map { $0.json!.count }
        let mean = lengths.reduce(0, +) / lengths.count
        #expect((150...200).contains(mean), "mean note length \(mean)")
        #expect(Set(notes.map(\.idBytes.count)).count > 20, "ids of varied length")
        #expect(
            notes.contains { $0.id.contains("/") } && notes.contains { $0.id.unicodeScalars.contains { !$0.isASCII } })
    }
}
