import Foundation
import NotesGen
import TestSupport
import Testing

@Suite("The notes-gen command line")
struct CommandLineTests {
    static let kinds = "duplicate-id, missing-id, number-id, invalid-json, oversized-title"

    @Test("Defaults: page size 1000, seed 42, dir format")
    func defaults() throws {
        let invocation = try NotesGenCommand.parse(["--count", "1000000", "--out", "fixture"])
        #expect(invocation == .generate(Generator.Configuration(count: 1_000_000, output: .path("fixture"))))
        let ndjson = try NotesGenCommand.parse(["--count", "5", "--format", "ndjson"])
        #expect(ndjson == .generateToStandardOutput(Generator.Configuration(count: 5, format: .ndjson)))
        let page = try NotesGenCommand.parse([
            "--count=5", "--format=page", "--out", "-", "--seed", "0", "--page-size", "7",
        ])
        #expect(page == .generate(Generator.Configuration(count: 5, pageSize: 7, seed: 0, format: .page)))
        let faults = try NotesGenCommand.parse([
            "--count", "50", "--page-size", "10", "--out", "d", "--faults", "missing-id@5,duplicate-id@2",
        ])
        var expected = Generator.Configuration(count: 50, pageSize: 10, output: .path("d"))
        expected.faults = [Fault(.duplicateID, page: 2), Fault(.missingID, page: 5)]
        #expect(faults == .generate(expected))
    }

    @Test("-h and --help print OVERVIEW, USAGE and OPTIONS", arguments: ["-h", "--help"])
    func help(_ flag: String) throws {
        #expect(try NotesGenCommand.parse([flag]) == .help)
        let (status, output, error) = notesGen(["--count", "-5", flag])
        #expect(status == 0 && error.isEmpty)
        #expect(output == NotesGenCommand.spec.help)
        let sections = ["OVERVIEW:", "USAGE: notes-gen [<options>]", "OPTIONS:"].map {
            output.range(of: $0)?.lowerBound
        }
        #expect(sections.allSatisfy { $0 != nil } && sections == sections.sorted { $0! < $1! })
        for option in [
            "--count <n>", "--page-size <n>", "--seed <n>", "--format <format>", "--id-kind <kind>", "--out <path>",
            "--force", "--faults <list>",
        ] {
            #expect(output.contains("\n  \(option)  "), "\(option)")
        }
        #expect(output.hasSuffix("  -h, --help           Show help information.\n"))
    }

    static let errors: [([String], String)] = [
        (["--count", "-5", "--out", "d"], "Invalid value '-5' for '--count': expected an integer of at least 0"),
        (["--count", "many", "--out", "d"], "Invalid value 'many' for '--count': expected an integer of at least 0"),
        (["--out", "d"], "Missing expected argument '--count <n>'"),
        (["--count"], "Missing value for '--count <n>'"),
        (
            ["--count", "5", "--page-size", "0", "--out", "d"],
            "Invalid value '0' for '--page-size': expected an integer from 1 to 100000"
        ),
        (
            ["--count", "5", "--page-size", "100001", "--out", "d"],
            "Invalid value '100001' for '--page-size': expected an integer from 1 to 100000"
        ),
        (
            ["--count", "5", "--seed", "-1", "--out", "d"],
            "Invalid value '-1' for '--seed': expected an integer from 0 to 9007199254740991"
        ),
        (["--count", "5", "--format", "xml"], "Invalid value 'xml' for '--format': expected one of dir, ndjson, page"),
        (
            ["--count", "5", "--id-kind", "uuid", "--out", "d"],
            "Invalid value 'uuid' for '--id-kind': expected one of string, int"
        ),
        (["--count", "5", "--out", "d", "--id-kind"], "Missing value for '--id-kind <kind>'"),
        (
            ["--count", "5", "--out", "-"],
            "Invalid value '-' for '--out': the dir format writes a directory, not standard output"
        ),
        (
            ["--count", "5", "--format", "page", "--out", ""],
            "Invalid value '' for '--out': expected a path, or '-' for standard output"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "bogus@2"],
            "Invalid fault 'bogus@2' in '--faults': unknown kind 'bogus'; expected one of \(kinds)"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "missing-id"],
            "Invalid fault 'missing-id' in '--faults': expected KIND@PAGE, e.g. missing-id@3"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "missing-id@0"],
            "Invalid fault 'missing-id@0' in '--faults': expected a page number of at least 1 after '@'"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "missing-id@x"],
            "Invalid fault 'missing-id@x' in '--faults': expected a page number of at least 1 after '@'"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "missing-id@1,"],
            "Invalid fault '' in '--faults': expected KIND@PAGE, e.g. missing-id@3"
        ),
        (
            ["--count", "5", "--out", "d", "--faults", "missing-id@2"],
            "Invalid fault 'missing-id@2' in '--faults': the run has 1 page"
        ),
        (
            ["--count", "25", "--page-size", "10", "--out", "d", "--faults", "invalid-json@4"],
            "Invalid fault 'invalid-json@4' in '--faults': the run has 3 pages"
        ),
        (
            ["--count", "25", "--page-size", "10", "--out", "d", "--faults", "missing-id@2,number-id@2"],
            "Invalid fault 'number-id@2' in '--faults': page 2 already has a fault"
        ),
        (
            ["--count", "0", "--out", "d", "--faults", "invalid-json@1"],
            "Invalid fault 'invalid-json@1' in '--faults': page 1 has no notes"
        ),
        (
            ["--count", "1", "--out", "d", "--faults", "duplicate-id@1"],
            "Invalid fault 'duplicate-id@1' in '--faults': page 1 holds only the run's first note"
        ),
        (
            ["--count", "5", "--format", "ndjson", "--faults", "missing-id@1"],
            "'--faults' needs '--format dir': faults are planted on pages"
        ),
        (["--count", "5", "--out", "d", "--verbose"], "Unknown option '--verbose'"),
        (["--count", "5", "--out", "d", "extra"], "Unexpected argument 'extra'"),
        (["--count", "5", "--count", "6", "--out", "d"], "'--count' given more than once"),
    ]

    @Test("Bad arguments give exact messages", arguments: errors)
    func errorMessage(_ arguments: [String], _ message: String) {
        #expect(usageError(arguments) == message)
    }

    @Test("Bad arguments print Error and the help hint on stderr and exit 64", arguments: errors.prefix(5))
    func errorExit(_ arguments: [String], _ message: String) {
        let (status, output, error) = notesGen(arguments)
        #expect(status == 64)
        #expect(output.isEmpty)
        #expect(error == "Error: \(message)\nSee 'notes-gen --help' for more information.\n")
    }

    @Test(
        "A --out that cannot be created is a usage error",
        arguments: [
            (["--count", "3", "--out", "/dev/null/fixture"], "Cannot write to '/dev/null/fixture': Not a directory"),
            (
                ["--count", "3", "--format", "page", "--out", "/nonexistent-notes-gen/page.json"],
                "Cannot write to '/nonexistent-notes-gen/page.json': No such file or directory"
            ),
            (
                ["--count", "3", "--format", "ndjson", "--out", "/dev/null/notes.ndjson"],
                "Cannot write to '/dev/null/notes.ndjson': Not a directory"
            ),
        ])
    func unwritableOutput(_ arguments: [String], _ message: String) throws {
        let (status, _, error) = notesGen(arguments)
        #expect(status == 64)
        #expect(error == "Error: \(message)\nSee 'notes-gen --help' for more information.\n")
    }

    @Test("A file where the directory should be is refused before anything is written")
    func fileInTheWay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("taken")
        try Files.write("x", to: path)
        let (status, _, error) = notesGen(["--count", "3", "--out", path])
        #expect(status == 64)
        #expect(error.hasPrefix("Error: Cannot write to '\(path)': Not a directory\n"))
    }

    static let hasDevFull = FileManager.default.isWritableFile(atPath: "/dev/full")
    /// In CI (`.ci/run` exports `CI=true`) nothing may skip for want of a device: the test runs, and fails.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(
        "A write that fails later is an I/O error, exit 74",
        .enabled(if: hasDevFull || isCI, "/dev/full is missing or not writable: the failing-write test is skipped")
    )
    func writeFailure() throws {
        try #require(
            Self.hasDevFull, "CI=true but /dev/full is missing or not writable: a failing write cannot be tested")
        let (status, _, error) = notesGen(["--count", "10", "--format", "ndjson", "--out", "/dev/full"])
        #expect(status == 74)
        #expect(error == "Error: Cannot write '/dev/full': No space left on device\n")
    }
}
