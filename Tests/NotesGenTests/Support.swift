import Foundation
import NotesGen
import NotesPage
import TestSupport
import Testing

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-gen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `notes-gen` in process, as `main` would, capturing its text.
/// - Returns: The exit status as `main` returns it (this target does not import ArgumentParsing).
func notesGen(_ arguments: [String]) -> (status: Int32, output: String, error: String) {
    var output = ""
    var error = ""
    let status = NotesGenCommand.run(arguments, standardOutput: { output += $0 }, standardError: { error += $0 })
    return (status.rawValue, output, error)
}

/// Runs `notes-gen`, expecting success.
func generate(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let (status, _, error) = notesGen(arguments)
    #expect(status == 0, "stderr: \(error)", sourceLocation: sourceLocation)
}

/// The message of the usage error `NotesGenCommand.parse` throws for `arguments`, or `nil`.
func usageError(_ arguments: [String]) -> String? {
    do {
        _ = try NotesGenCommand.parse(arguments)
        return nil
    } catch {
        return error.message
    }
}

/// `manifest.json` of a dir-format run, as Foundation reads it.
struct Manifest {
    struct Page {
        var file: String
        var cursor: String?
        var nextCursor: String?
        var notes: Int
        var bytes: Int
        var items: Range<Int>
    }

    var format: String
    var count: Int
    var pageSize: Int
    var seed: Int
    /// `"int"` for integer ids; absent for string ids.
    var idKind: String?
    var faults: [String]
    var totalBytes: Int
    var idsFNV1a64: String
    var pages: [Page]

    init(directory: String) throws {
        let data = try Files.data(URL(fileURLWithPath: directory).appendingPathComponent("manifest.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        format = try #require(object["format"] as? String)
        count = try #require(object["count"] as? Int)
        pageSize = try #require(object["page_size"] as? Int)
        seed = try #require(object["seed"] as? Int)
        idKind = object["id_kind"] as? String
        faults = try #require(object["faults"] as? [String])
        totalBytes = try #require(object["total_bytes"] as? Int)
        idsFNV1a64 = try #require(object["ids_fnv1a64"] as? String)
        pages = try #require(object["pages"] as? [[String: Any]]).map { page in
            let items = try #require(page["items"] as? [Int])
            try #require(items.count == 2)
            return Page(
                file: try #require(page["file"] as? String),
                cursor: page["cursor"] as? String,
                nextCursor: page["next_cursor"] as? String,
                notes: try #require(page["notes"] as? Int),
                bytes: try #require(page["bytes"] as? Int),
                items: items[0]..<items[1]
            )
        }
    }
}

/// Reads a file's bytes.
func contents(_ path: String) throws -> [UInt8] {
    Array(try Files.data(URL(fileURLWithPath: path)))
}

/// Decodes one page body with the project's decoder against the run's `ids`.
func decodePage(_ body: [UInt8], ids: IDSet) -> Result<(notes: [Note], summary: PageDecoder.Summary), PageError> {
    var decoder = PageDecoder(configuration: PageConfiguration(), ids: ids)
    var notes: [Note] = []
    do {
        try decoder.feed(body, into: &notes)
        let summary = try decoder.finish(into: &notes)
        return .success((notes, summary))
    } catch {
        return .failure(error)
    }
}

/// Every note of a dir-format run, decoded page by page with one `IDSet`; fails the test on any error.
func decodeDirectory(_ directory: String) throws -> [Note] {
    let manifest = try Manifest(directory: directory)
    let ids = IDSet()
    var notes: [Note] = []
    for page in manifest.pages {
        let (pageNotes, _) = try decodePage(try contents(directory + "/" + page.file), ids: ids).get()
        notes += pageNotes
    }
    return notes
}

/// FNV-1a 64 written out independently of NotesGen: every id's bytes, each followed by `\n`, as 16
/// lowercase hex digits.
func checksum(ofIDs ids: [ArraySlice<UInt8>]) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for id in ids {
        for byte in id + [0x0A] {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
