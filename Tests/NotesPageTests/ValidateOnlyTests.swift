import Foundation
import NotesJSON
import NotesPage
import Testing

/// A decoder that keeps no notes (``PageConfiguration/keepsNotes`` `false`, as `decode --format none`)
/// checks exactly what one that keeps them does: the same count, the same ids taken, the same first error
/// at the same byte, on one thread and on two.
@Suite("Validating only: every check, no notes built")
struct ValidateOnlyTests {
    /// The page's whole summary (its count, skipped duplicates, last id, next value, fields), or its
    /// error; and how many ids the id set took.
    struct Answer: Equatable {
        var summary: PageDecoder.Summary?
        var idsTaken = 0
        var error: PageError?
        var count: Int { summary?.noteCount ?? 0 }
        var skipped: Int { summary?.skippedCount ?? 0 }
    }

    func answer(
        _ body: [UInt8], keepsNotes: Bool, threads: JSONPipelineOptions, configure: (inout PageConfiguration) -> Void
    )
        -> (Answer, notes: Int)
    {
        var configuration = PageConfiguration()
        configure(&configuration)
        configuration.keepsNotes = keepsNotes
        let ids = IDSet()
        var decoder = PageDecoder(configuration: configuration, ids: ids, pipeline: threads)
        var notes: [Note] = []
        var answer = Answer()
        do throws(PageError) {
            for chunk in chunks(body, size: 3000) { try decoder.feed(chunk, into: &notes) }
            answer.summary = try decoder.finish(into: &notes)
        } catch {
            answer.error = error
        }
        answer.idsTaken = ids.count
        return (answer, notes.count)
    }

    /// Valid pages, and pages broken in each way the contract names, early, in the middle and at the end.
    static let bodies: [(String, [UInt8])] = {
        let valid = page(count: 2500)
        let text = String(decoding: valid, as: UTF8.self)
        func broken(_ what: String, _ edit: (String) -> String) -> (String, [UInt8]) { (what, Array(edit(text).utf8)) }
        return [
            ("valid", valid),
            ("empty", Array(#"{"notes": [], "next_cursor": null}"#.utf8)),
            broken("a duplicate id late") { $0.replacingOccurrences(of: #""id":"n2400""#, with: #""id":"n7""#) },
            broken("a missing title") { $0.replacingOccurrences(of: #""title":"t1200 "#, with: #""titre":"t1200 "#) },
            broken("an id that is an object") { $0.replacingOccurrences(of: #""id":"n3""#, with: #""id":{"a":1}"#) },
            broken("an empty id") { $0.replacingOccurrences(of: #""id":"n1999""#, with: #""id":"""#) },
            broken("a syntax error") { $0.replacingOccurrences(of: #""id":"n2000""#, with: #""id":"n2000",,"#) },
            broken("cut short") { String($0.prefix($0.utf8.count * 2 / 3)) },
        ]
    }()

    @Test("The same count, ids and first error with or without notes kept", arguments: [false, true])
    func sameChecks(twoThreads: Bool) {
        let threads = twoThreads ? JSONPipelineOptions(threshold: 0) : .singleThreaded
        for (what, body) in Self.bodies {
            for keepsJSON in [false, true] {
                let configure: (inout PageConfiguration) -> Void = { $0.keepsJSON = keepsJSON }
                let (kept, keptNotes) = answer(body, keepsNotes: true, threads: threads, configure: configure)
                let (validated, validatedNotes) = answer(
                    body, keepsNotes: false, threads: threads, configure: configure)
                #expect((kept.error == nil) == ["valid", "empty"].contains(what), "\(what): \(kept)")
                #expect(validated == kept, "\(what), keepsJSON \(keepsJSON)")
                #expect(validatedNotes == 0, "\(what): no note is built")
                if kept.error == nil {
                    #expect(keptNotes == kept.count && kept.count > 0 || what == "empty", "\(what)")
                }
            }
        }
    }

    @Test("Duplicates left out are counted the same without notes", arguments: [false, true])
    func skippedDuplicates(twoThreads: Bool) {
        var text = String(decoding: page(count: 2500), as: UTF8.self)
        for index in [5, 300, 2499] { text = text.replacingOccurrences(of: #""id":"n\#(index)""#, with: #""id":"n1""#) }
        let configure: (inout PageConfiguration) -> Void = { $0.duplicates = .skip }
        let threads = twoThreads ? JSONPipelineOptions(threshold: 0) : .singleThreaded
        let body = Array(text.utf8)
        let (kept, _) = answer(body, keepsNotes: true, threads: threads, configure: configure)
        let (validated, _) = answer(body, keepsNotes: false, threads: threads, configure: configure)
        #expect(kept.skipped == 3 && kept.error == nil)
        #expect(kept.summary?.lastID == Array("n1".utf8), "the last note, a duplicate left out, still the last id")
        #expect(validated == kept)
    }

    @Test("The id found on the first note, when it has no 'id', is the same without notes", arguments: [false, true])
    func detectedID(twoThreads: Bool) {
        let notes = (0..<2500).map { #"{"_id":"k\#($0)","title":"t\#($0)","n":\#($0)}"# }
        let valid = #"{"notes":["# + notes.joined(separator: ",") + #"],"next_cursor":"c"}"#
        let duplicated = valid.replacingOccurrences(of: #""_id":"k2000""#, with: #""_id":"k9""#)
        let threads = twoThreads ? JSONPipelineOptions(threshold: 0) : .singleThreaded
        for text in [valid, duplicated] {
            let configure: (inout PageConfiguration) -> Void = { $0.detects = .id }
            let (kept, _) = answer(Array(text.utf8), keepsNotes: true, threads: threads, configure: configure)
            let (validated, _) = answer(Array(text.utf8), keepsNotes: false, threads: threads, configure: configure)
            #expect(validated == kept)
            if text == valid {
                #expect(kept.idsTaken == 2500 && kept.summary?.detectedIDPath == FieldPath("_id"))
            } else {
                #expect(kept.error?.code == .duplicateID(firstPage: 0), "k9 taken twice: \(kept)")
                #expect(kept.idsTaken == 0, "a page that fails leaves none of its ids")
            }
        }
    }
}
