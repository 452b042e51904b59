import Foundation
import NotesJSON
import NotesPage
import Testing

/// A decoder that keeps no notes (``PageConfiguration/keepsNotes`` `false`, as `decode --format none`)
/// checks exactly what one that keeps them does: the same count, the same ids taken, the same first error
/// at the same byte, on one thread and on two.
@Suite("Validating only: every check, no notes built")
struct ValidateOnlyTests {
    struct Answer: Equatable {
        var count: Int
        var skipped: Int
        var next: String?
        var idsTaken: Int
        var error: PageError?
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
        var answer = Answer(count: 0, skipped: 0, idsTaken: 0)
        do throws(PageError) {
            for chunk in chunks(body, size: 3000) { try decoder.feed(chunk, into: &notes) }
            let summary = try decoder.finish(into: &notes)
            answer.count = summary.noteCount
            answer.skipped = summary.skippedCount
            answer.next = summary.nextCursor
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

    @Test("Duplicates left out are counted the same without notes")
    func skippedDuplicates() {
        var text = String(decoding: page(count: 600), as: UTF8.self)
        for index in [5, 300, 599] { text = text.replacingOccurrences(of: #""id":"n\#(index)""#, with: #""id":"n1""#) }
        let configure: (inout PageConfiguration) -> Void = { $0.duplicates = .skip }
        let body = Array(text.utf8)
        let (kept, _) = answer(body, keepsNotes: true, threads: .singleThreaded, configure: configure)
        let (validated, _) = answer(body, keepsNotes: false, threads: .singleThreaded, configure: configure)
        #expect(kept.skipped == 3 && kept.error == nil)
        #expect(validated == kept)
    }
}
