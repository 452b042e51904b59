import Foundation
import NotesFetch
import NotesFetchTesting
import TestSupport
import Testing

@testable import NotesStore

/// A child resource's files under `-o DIR`: a walk's lines and state per parent, read back as its
/// children read a table.
@Suite("NDJSON child walks")
struct NDJSONChildWalkTests {
    /// The walk of `api` for `parent` into resource `comments` of `directory`, to its end or `maxPages`.
    @discardableResult
    static func walk(_ api: SyncAPI, parent: String, into directory: String, maxPages: Int? = nil) async throws
        -> MemoryTransport
    {
        let files = try NDJSONResourceFiles(directory: directory, name: "comments").walkFiles(parent: parent)
        let destination = NDJSONDestination(
            outputPath: files.output, statePath: files.state, unit: ChildUnit(parent: parent, parentRun: 1))
        let walk = try SyncAPI.walk(into: destination)
        let transport = api.transport()
        try await walk.run(fetcher: api.fetcher(walk, transport: transport), from: .start, maxPages: maxPages)
        return transport
    }

    @Test("Each parent's walk in files of its own, named by its key: rows keyed under their parent, states apart")
    func twoParents() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("comments"), withIntermediateDirectories: true)
        let api = SyncAPI(count: 5, size: 2)
        try await Self.walk(api, parent: "o'r/1", into: scratch.path(""))
        try await Self.walk(api, parent: "2", into: scratch.path(""), maxPages: 1)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path("comments")).sorted() == [
                "2.ndjson", "2.state", "2.state.journal", "o%27r%2F1.ndjson", "o%27r%2F1.state",
                "o%27r%2F1.state.journal",
            ])
        let table = NDJSONResourceFiles(directory: scratch.path(""), name: "comments")
        let first = try #require(try table.childWalk(parent: "o'r/1"))
        #expect(first.isDone && first.notes == 5 && first.parentRun == 1)
        #expect(try table.childWalk(parent: "2")?.isDone == false)
        #expect(try table.childWalk(parent: "3") == nil)
        var rows: [String] = []
        try table.forEachParentRow(child: true, under: nil) { rows.append($0.key) }
        #expect(rows == ["2/r1", "2/r2", "o'r%2F1/r1", "o'r%2F1/r2", "o'r%2F1/r3", "o'r%2F1/r4", "o'r%2F1/r5"])
        rows = []
        try table.forEachParentRow(child: true, under: "2") { rows.append(String(decoding: $0.json, as: UTF8.self)) }
        #expect(rows == api.records.prefix(2).map(\.json))
    }

    @Test("Lines past what the state file counts (a run killed mid-page) are no parent's")
    func uncommittedTail() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("comments"), withIntermediateDirectories: true)
        let api = SyncAPI(count: 5, size: 2)
        try await Self.walk(api, parent: "p", into: scratch.path(""), maxPages: 2)
        try scratch.append(#"{"id":"r9"}"# + "\n" + #"{"id":"torn","#, to: "comments/p.ndjson")
        var keys: [String] = []
        try NDJSONResourceFiles(directory: scratch.path(""), name: "comments").forEachParentRow(
            child: true, under: "p"
        ) { keys.append($0.key) }
        #expect(keys == ["p/r1", "p/r2", "p/r3", "p/r4"])
    }

    @Test("A key is a file name of safe bytes alone, read back whole; one too long is an error naming the parent")
    func fileNames() throws {
        for key in ["../admin", "a/b?x=1", "%2e%2e", ".", "..", "line\nbreak", "é🙂", "-_az09", "Ab3x"] {
            let name = NDJSONResourceFiles.fileName(for: key)
            #expect(
                name.utf8.allSatisfy {
                    $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                        || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                }, "\(name)")
            #expect(NDJSONResourceFiles.key(fromFileName: name) == key)
        }
        #expect(NDJSONResourceFiles.key(fromFileName: "a%2") == nil)
        #expect(NDJSONResourceFiles.key(fromFileName: "a%2f") == nil)
        #expect(NDJSONResourceFiles.key(fromFileName: "a.b") == nil)
        // Where case is not told apart, two keys never share a file.
        #expect(NDJSONResourceFiles.fileName(for: "Ab3x") == "%41b3x")
        let long = String(repeating: "k", count: 201)
        #expect(
            throws: StoreError(
                "its key '\(long.prefix(80))…' makes a file name of 201 bytes, over the 200 of a walk's files in '/d/comments' (-o DIR): keep this sync with --sqlite FILE or --postgres URL"
            )
        ) {
            try NDJSONResourceFiles(directory: "/d", name: "comments").walkFiles(parent: long)
        }
        #expect(try NDJSONResourceFiles(directory: "/d", name: "comments").childWalk(parent: long) == nil)
        #expect(
            try NDJSONResourceFiles(directory: "/d", name: "c").walkFiles(parent: String(long.dropLast())).state
                == "/d/c/" + String(long.dropLast()) + ".state")
    }
}
