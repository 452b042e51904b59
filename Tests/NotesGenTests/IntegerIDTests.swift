import Foundation
import NotesGen
import NotesPage
import TestSupport
import Testing

/// The notes of a page body, as Foundation reads them.
private func noteObjects(_ body: [UInt8]) throws -> [[String: Any]] {
    let page = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    return try #require(page["notes"] as? [[String: Any]])
}

/// The `id` of every note of a page body, as Foundation reads it: `nil` where it is not a JSON integer.
private func rawIDs(_ body: [UInt8]) throws -> [Int?] {
    try noteObjects(body).map { $0["id"] as? Int }
}

/// The decoded ids as numbers; fails the test for an id that is not decimal digits without a leading zero.
private func numbers(_ notes: [Note], sourceLocation: SourceLocation = #_sourceLocation) -> [UInt64] {
    notes.map { note in
        let digits = note.idBytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        #expect(digits && note.idBytes.first != UInt8(ascii: "0"), "id \(note.id)", sourceLocation: sourceLocation)
        return UInt64(note.id) ?? 0
    }
}

/// `IntegerIDs.id(seed:note:)` for notes `0..<count`.
private func expectedIDs(seed: UInt64, count: Int) -> [UInt64] {
    (0..<count).map { IntegerIDs.id(seed: seed, note: $0) }
}

@Suite("Integer ids (--id-kind int)")
struct IntegerIDTests {
    static let node = TestSupport.executable(
        named: "node", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")
    /// In CI (`.ci/run` exports `CI=true`) nothing may skip for want of a program: the test runs, and fails.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("--id-kind takes string or int; string is the default")
    func parsing() throws {
        #expect(Generator.Configuration(count: 5).idKind == .string)
        let int = try NotesGenCommand.parse(["--count", "5", "--format", "page", "--id-kind", "int"])
        #expect(int == .generateToStandardOutput(Generator.Configuration(count: 5, format: .page, idKind: .int)))
        let string = try NotesGenCommand.parse(["--count", "5", "--out", "d", "--id-kind=string"])
        #expect(string == .generate(Generator.Configuration(count: 5, output: .path("d"))))
    }

    @Test("A bad --id-kind is a usage error: exit 64, nothing written", arguments: ["uuid", "Int", "integer", ""])
    func badValue(_ value: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        let (status, output, error) = notesGen(["--count", "5", "--id-kind", value, "--out", out])
        #expect(status == 64)
        #expect(output.isEmpty)
        #expect(
            error == "Error: Invalid value '\(value)' for '--id-kind': expected one of string, int\n"
                + "See 'notes-gen --help' for more information.\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("Every id is a JSON integer, strictly increasing from 1 with gaps: each 8 notes take the next 10 ids")
    func integersWithGaps() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate(["--count", "2003", "--page-size", "300", "--seed", "9", "--id-kind", "int", "--out", out])

        let manifest = try Manifest(directory: out)
        #expect(manifest.idKind == "int")
        var raw: [Int?] = []
        for page in manifest.pages {
            let body = try contents(out + "/" + page.file)
            #expect(!String(decoding: body, as: UTF8.self).contains(#""id":""#), "a string id in \(page.file)")
            raw += try rawIDs(body)
        }
        let notes = try decodeDirectory(out)
        let ids = numbers(notes)
        #expect(raw == ids.map { Int($0) })
        #expect(ids == expectedIDs(seed: 9, count: 2003))
        #expect(ids.first == 1)

        let steps = zip(ids, ids.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { (1...3).contains($0) }, "strictly increasing, at most two missing in a row")
        #expect(steps.filter { $0 > 1 }.count > 300, "gaps")
        for group in stride(from: 0, to: ids.count, by: 8) {
            let first = UInt64(group / 8 * 10)
            let members = ids[group..<min(ids.count, group + 8)]
            #expect(members.first == first + 1 && members.allSatisfy { $0 <= first + 10 }, "group \(group / 8)")
        }
        // The checksum hashes each id's digits, as a client decodes it.
        #expect(manifest.idsFNV1a64 == checksum(ofIDs: notes.map(\.idBytes)))
    }

    @Test("Only the ids change; --id-kind string is the default's bytes, and its manifest has no id_kind")
    func onlyTheIDsChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let common = ["--count", "3000", "--seed", "5", "--format", "page"]
        generate(common + ["--out", directory.path("string.json")])
        generate(common + ["--id-kind", "string", "--out", directory.path("explicit.json")])
        generate(common + ["--id-kind", "int", "--out", directory.path("int.json")])
        let string = try contents(directory.path("string.json"))
        #expect(try contents(directory.path("explicit.json")) == string)

        func withoutIDs(_ bytes: [UInt8]) throws -> [NSDictionary] {
            let page = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            return try #require(page["notes"] as? [[String: Any]]).map { note in
                var note = note
                note["id"] = nil
                return note as NSDictionary
            }
        }
        let int = try contents(directory.path("int.json"))
        #expect(try withoutIDs(int) == (try withoutIDs(string)))
        #expect(int.count < string.count)

        generate(["--count", "20", "--page-size", "10", "--out", directory.path("dir")])
        let manifest = try Files.text(directory.path("dir") + "/manifest.json")
        #expect(!manifest.contains("id_kind"))
    }

    @Test("The same seed gives the same ids in every format and page size; another seed, other gaps")
    func deterministic() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let common = ["--count", "1500", "--seed", "11", "--id-kind", "int"]
        generate(common + ["--page-size", "400", "--out", directory.path("a")])
        generate(common + ["--page-size", "400", "--out", directory.path("b")])
        generate(common + ["--page-size", "7", "--out", directory.path("small")])
        generate(common + ["--format", "page", "--out", directory.path("page.json")])
        generate(common + ["--format", "ndjson", "--out", directory.path("notes.ndjson")])
        generate(["--count", "1500", "--seed", "12", "--id-kind", "int", "--out", directory.path("other")])

        for page in try Manifest(directory: directory.path("a")).pages {
            #expect(try contents(directory.path("a/" + page.file)) == (try contents(directory.path("b/" + page.file))))
        }
        let ids = numbers(try decodeDirectory(directory.path("a")))
        #expect(ids == expectedIDs(seed: 11, count: 1500))
        #expect(numbers(try decodeDirectory(directory.path("small"))) == ids)
        let (page, _) = try decodePage(try contents(directory.path("page.json")), ids: IDSet()).get()
        #expect(numbers(page) == ids)
        let lines = try contents(directory.path("notes.ndjson")).split(separator: UInt8(ascii: "\n"))
        #expect(
            try lines.map { try #require(try rawIDs(Array(#"{"notes":["#.utf8) + $0 + Array("]}".utf8)).first) }
                == ids.map { Int($0) })

        let other = numbers(try decodeDirectory(directory.path("other")))
        #expect(other != ids)
        #expect(other.first == 1 && zip(other, other.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test(
        "The ids are the fixture server's: noteId(seed, i, 'int') of Tools/fixture-server/notes/generated.mjs",
        .enabled(if: node != nil || isCI, "node is not installed: the comparison with the fixture server is skipped")
    )
    func sameAsTheFixtureServer() throws {
        let node = try #require(Self.node, "CI=true but node is not on PATH")
        let seeds: [UInt64] = [0, 1, 7, 42, 0x1D5E_1D5E, 0xFFFF_FFFF, 1 << 32, (1 << 53) - 1]
        let indexes = Array(0..<500) + [999_999, 1_000_000, 123_456_789, 4_294_967_296 * 8 + 5]
        let script = """
            const { noteId } = await import(process.argv[1]);
            const seeds = JSON.parse(process.argv[2]), indexes = JSON.parse(process.argv[3]);
            console.log(JSON.stringify(seeds.map((seed) => indexes.map((i) => noteId(seed, i, 'int')))));
            """
        let library = Self.repository.appendingPathComponent("Tools/fixture-server/notes/generated.mjs").path
        let run = try Finished(
            node,
            [
                "--input-type=module", "-e", script, library, "[\(seeds.map(String.init).joined(separator: ","))]",
                "[\(indexes.map(String.init).joined(separator: ","))]",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let server = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Int]])
        try #require(server.count == seeds.count && server.allSatisfy { $0.count == indexes.count })
        for (seed, theirs) in zip(seeds, server) {
            let ours = indexes.map { Int(IntegerIDs.id(seed: seed, note: $0)) }
            let differ = indexes.indices.first { ours[$0] != theirs[$0] }
            #expect(differ == nil, "seed \(seed), note \(differ.map { indexes[$0] } ?? 0)")
        }

        // And notes-gen writes them.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        generate([
            "--count", "500", "--seed", "42", "--id-kind", "int", "--format", "page", "--out", directory.path("p"),
        ])
        let (notes, _) = try decodePage(try contents(directory.path("p")), ids: IDSet()).get()
        let written = numbers(notes).map { Int($0) }
        #expect(written.count == 500 && written.indices.allSatisfy { written[$0] == server[3][$0] })
    }

    @Test("Faults with integer ids: a fractional number-id, duplicate-id 1, and a checksum that counts them")
    func faults() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.path("run")
        generate([
            "--count", "100", "--page-size", "25", "--seed", "3", "--id-kind", "int", "--faults",
            "number-id@1,duplicate-id@2,missing-id@3", "--out", out,
        ])
        let manifest = try Manifest(directory: out)
        let ids = expectedIDs(seed: 3, count: 100)
        let raw = try manifest.pages.map { try rawIDs(try contents(out + "/" + $0.file)) }
        #expect(raw[0].last == .some(nil), "not an integer")
        #expect(raw[0].dropLast() == ids[..<24].map { Int($0) })
        let first = String(decoding: try contents(out + "/" + manifest.pages[0].file), as: UTF8.self)
        #expect(first.contains(#""id":\#(ids[24]).5"#))
        #expect(raw[1].last == 1)
        let third = try noteObjects(try contents(out + "/" + manifest.pages[2].file))
        #expect(third.count == 25 && third.last?["id"] == nil && third.dropLast().allSatisfy { $0["id"] is Int })
        #expect(raw[3] == ids[75...].map { Int($0) })

        // Faulty ids hash as written: duplicate-id's 1 is counted, the other two add nothing.
        var hashed = ids.map { Array(String($0).utf8)[...] }
        hashed[49] = Array("1".utf8)[...]
        hashed.remove(at: 74)
        hashed.remove(at: 24)
        #expect(manifest.idsFNV1a64 == checksum(ofIDs: hashed))
    }

    /// Pinned outputs, as for string ids: a change to the bytes must be deliberate.
    @Test("Known answers for seed 42")
    func knownAnswers() throws {
        #expect(expectedIDs(seed: 42, count: 12) == [1, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        generate(["--count", "25", "--page-size", "10", "--id-kind", "int", "--out", directory.path("run")])
        let manifest = try Manifest(directory: directory.path("run"))
        #expect(manifest.idsFNV1a64 == "1d206dd883a72dda")
        #expect(manifest.totalBytes == 3742)
    }
}
