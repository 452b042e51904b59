import Foundation
import NotesGen
import NotesPage
import TestSupport
import Testing

/// Runs `notes-gen` in process with `context`, capturing its text.
private func notesGen(
    _ arguments: [String], in directory: TemporaryDirectory, terminal: Bool = false
) -> (status: Int32, output: String, error: String) {
    var output = ""
    var error = ""
    let context = NotesGenCommand.Context(
        workingDirectory: directory.url.path, standardOutputIsTerminal: terminal)
    let status = NotesGenCommand.run(
        arguments, context: context, standardOutput: { output += $0 }, standardError: { error += $0 })
    return (status.rawValue, output, error)
}

/// What `notes-gen` says on standard error after writing the default directory `name` of `manifest`.
private func whereabouts(_ name: String, _ manifest: Manifest) -> String {
    let tenths = (manifest.totalBytes + 50_000) / 100_000
    let size = manifest.totalBytes < 100_000 ? "\(manifest.totalBytes) bytes" : "\(tenths / 10).\(tenths % 10) MB"
    let pages = manifest.pages.count
    return """
        Wrote \(manifest.count) notes in \(pages) page\(pages == 1 ? "" : "s") (\(size)) to \(name)/
        Serve them: node Tools/fixture-server/notes-server.mjs --dir \(name)/

        """
}

@Suite("notes-gen without --out")
struct DefaultOutputTests {
    @Test("The dir format defaults to notes-<count>; the others to standard output")
    func parsing() throws {
        let directory = Generator.Configuration(count: 1_000_000, output: .path("notes-1000000"))
        #expect(
            try NotesGenCommand.parse(["--count", "1000000"]) == .generateIntoDefaultDirectory(directory, force: false))
        #expect(
            try NotesGenCommand.parse(["--count", "1000000", "--force"])
                == .generateIntoDefaultDirectory(directory, force: true))
        #expect(
            try NotesGenCommand.parse(["--count", "4", "--format", "page"])
                == .generateToStandardOutput(Generator.Configuration(count: 4, format: .page)))
        #expect(
            try NotesGenCommand.parse(["--count", "4", "--format", "ndjson", "--out", "-"])
                == .generate(Generator.Configuration(count: 4, format: .ndjson)))
        #expect(
            try NotesGenCommand.parse(["--count", "4", "--out", "d", "--force"])
                == .generate(Generator.Configuration(count: 4, output: .path("d"))))
    }

    @Test("--count N writes notes-N/ in the working directory and says where and how to serve it")
    func writesTheDefaultDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A terminal on standard output changes nothing for the dir format: no JSON goes there.
        let (status, output, error) = notesGen(
            ["--count", "2500", "--page-size", "700"], in: directory, terminal: true)
        #expect(status == 0)
        #expect(output.isEmpty)
        let manifest = try Manifest(directory: directory.path("notes-2500"))
        #expect(manifest.count == 2500 && manifest.pages.map(\.notes) == [700, 700, 700, 400])
        #expect(try decodeDirectory(directory.path("notes-2500")).count == 2500)
        #expect(error == whereabouts("notes-2500", manifest))
        #expect(error.hasPrefix("Wrote 2500 notes in 4 pages (0.4 MB) to notes-2500/\n"))
    }

    @Test("An existing notes-N/ is left alone without --force (exit 73) and written into with it")
    func existingDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manifestPath = directory.path("notes-30") + "/manifest.json"
        #expect(notesGen(["--count", "30"], in: directory).status == 0)
        let generated = try contents(manifestPath)
        try Files.write("kept", to: manifestPath)

        let (status, output, error) = notesGen(["--count", "30", "--seed", "9"], in: directory)
        #expect(status == 73)
        #expect(output.isEmpty)
        #expect(
            error
                == "Error: notes-30/ already exists: pass --force to write into it, or --out <dir> to write elsewhere\n"
        )
        #expect(try contents(manifestPath) == Array("kept".utf8))

        let forced = notesGen(["--count", "30", "--force"], in: directory)
        #expect(forced.status == 0)
        #expect(try contents(manifestPath) == generated)
        #expect(forced.error == whereabouts("notes-30", try Manifest(directory: directory.path("notes-30"))))
    }

    @Test("A file named notes-N is refused (exit 73) and left as it was")
    func fileInTheWay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Files.write("x", to: directory.path("notes-5"))
        let (status, _, error) = notesGen(["--count", "5"], in: directory)
        #expect(status == 73)
        #expect(error.hasPrefix("Error: notes-5/ already exists: "))
        #expect(try contents(directory.path("notes-5")) == Array("x".utf8))
        let forced = notesGen(["--count", "5", "--force"], in: directory)
        #expect(forced.status == 64)
        #expect(forced.error.hasPrefix("Error: Cannot write to '\(directory.path("notes-5"))': Not a directory\n"))
    }

    @Test("JSON goes to a terminal only when --out - asks for it", arguments: ["ndjson", "page"])
    func terminal(_ format: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, output, error) = notesGen(["--count", "0", "--format", format], in: directory, terminal: true)
        #expect(status == 64)
        #expect(output.isEmpty)
        #expect(
            error == """
                Error: Standard output is a terminal: the \(format) format goes there only with '--out -'; pipe it, \
                or pass '--out <file>'
                See 'notes-gen --help' for more information.

                """)
        // Zero notes as ndjson are zero bytes: the run is allowed without writing to the test's output.
        if format == "ndjson" {
            #expect(
                notesGen(["--count", "0", "--format", format, "--out", "-"], in: directory, terminal: true) == (
                    0, "", ""
                ))
        }
    }

    /// The built `notes-gen`, beside the test bundle.
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("notes-gen")

    /// Runs the built `notes-gen` in `directory`, standard output a pipe.
    private func runBinary(_ arguments: [String], in directory: TemporaryDirectory) throws -> (Int32, String, String) {
        let run = try Finished(Self.binary, arguments, directory: directory.url)
        return (run.status, run.stdout, run.stderr)
    }

    @Test("The built notes-gen, as typed: --count N makes ./notes-N/; --format ndjson still pipes notes")
    func asTyped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, output, error) = try runBinary(["--count", "1200"], in: directory)
        #expect(status == 0 && output.isEmpty)
        let manifest = try Manifest(directory: directory.path("notes-1200"))
        #expect(manifest.count == 1200)
        #expect(error == whereabouts("notes-1200", manifest))
        #expect(try runBinary(["--count", "1200"], in: directory).0 == 73)

        let (ndjsonStatus, notes, _) = try runBinary(["--count", "3", "--format", "ndjson"], in: directory)
        #expect(ndjsonStatus == 0)
        #expect(notes.split(separator: "\n").count == 3 && notes.hasPrefix("{\"id\":"))
    }
}
