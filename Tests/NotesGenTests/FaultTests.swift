import Foundation
import NotesGen
import NotesPage
import Testing

@Suite("Planted faults")
struct FaultTests {
    /// What the decoder must report for each kind.
    static let expected: [(Fault.Kind, PageError.Code)] = [
        (.duplicateID, .duplicateID(firstPage: 0)),
        (.missingID, .missingID),
        (.numberID, .invalidID),
        (.invalidJSON, .invalidJSON),
        (.oversizedTitle, .limitExceeded(.stringBytes(1 << 20))),
    ]

    @Test(
        "Each fault is reported on exactly its page, and the other pages still decode, with either id kind",
        arguments: expected, Generator.Configuration.IDKind.allCases)
    func faultOnItsPage(_ expected: (Fault.Kind, PageError.Code), _ idKind: Generator.Configuration.IDKind) throws {
        let (kind, code) = expected
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate([
            "--count", "1000", "--page-size", "250", "--faults", "\(kind.rawValue)@3", "--id-kind", idKind.rawValue,
            "--out", out,
        ])

        let manifest = try Manifest(directory: out)
        #expect(manifest.faults == ["\(kind.rawValue)@3"])
        let ids = IDSet()
        for (number, page) in manifest.pages.enumerated() {
            let body = try contents(out + "/" + page.file)
            #expect(body.count == page.bytes)
            switch decodePage(body, ids: ids) {
            case .success(let (notes, _)):
                #expect(number != 2, "page 3 decoded")
                #expect(notes.count == 250)
            case .failure(let error):
                #expect(number == 2, "page \(number + 1): \(error)")
                #expect(error.code == code)
                if error.kind == .contract { #expect(error.noteIndex == 249, "the page's last note") }
            }
        }
        // Page 3's ids were taken back; the three good pages' stay.
        #expect(ids.count == 750)
        #expect(ids.committedPages == 3)
    }

    @Test("Several faults in one run, including a duplicate on the first page")
    func severalFaults() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate([
            "--count", "500", "--page-size", "100", "--faults", "oversized-title@5,duplicate-id@1,number-id@2", "--out",
            out,
        ])

        let manifest = try Manifest(directory: out)
        #expect(manifest.faults == ["duplicate-id@1", "number-id@2", "oversized-title@5"])
        let ids = IDSet()
        var codes: [PageError.Code?] = []
        for page in manifest.pages {
            switch decodePage(try contents(out + "/" + page.file), ids: ids) {
            case .success: codes.append(nil)
            case .failure(let error): codes.append(error.code)
            }
        }
        #expect(codes == [.duplicateID(firstPage: 0), .invalidID, nil, nil, .limitExceeded(.stringBytes(1 << 20))])
    }

    @Test("The oversized title is 2 MiB, written in full")
    func oversizedTitleLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate(["--count", "3", "--faults", "oversized-title@1", "--out", out])
        var configuration = PageConfiguration()
        configuration.limits.maxTokenBytes = 4 << 20
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        try decoder.feed(try contents(out + "/pages/00000.json"), into: &notes)
        _ = try decoder.finish(into: &notes)
        #expect(notes.map(\.title.utf8.count).last == 2 << 20)
    }

    @Test("KIND@PAGE parses and prints back", arguments: Fault.Kind.allCases)
    func roundTrip(_ kind: Fault.Kind) throws {
        let fault = try Fault(parsing: "\(kind.rawValue)@12")
        #expect(fault == Fault(kind, page: 12))
        #expect(fault.description == "\(kind.rawValue)@12")
    }
}
