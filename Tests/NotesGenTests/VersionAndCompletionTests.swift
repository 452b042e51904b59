import Foundation
import NotesGen
import TestSupport
import Testing

/// `notes-gen --version` and `notes-gen --generate-completion-script SHELL`, the scripts run by the shells
/// where they are installed.
@Suite("notes-gen --version and its completion scripts")
struct VersionAndCompletionTests {
    static func shell(_ name: String) -> URL? {
        TestSupport.executable(named: name, searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    @Test("--version prints the name and the version and exits 0, whatever else is missing; --help lists it")
    func version() throws {
        #expect(try NotesGenCommand.parse(["--version"]) == .version)
        let (status, output, error) = notesGen(["--version"])
        #expect(status == 0 && error.isEmpty)
        #expect(output == "notes-gen 0.9.0\n")
        #expect(notesGen(["--help"]).output.contains("\n  --version            Show the version.\n"))
    }

    @Test("--generate-completion-script writes each shell's script; another shell is a usage error")
    func scripts() throws {
        for name in ["bash", "zsh", "fish"] {
            let (status, output, error) = notesGen(["--generate-completion-script", name])
            #expect(status == 0 && error.isEmpty, "\(name)")
            #expect(output.contains("page-size"), "\(name)")
        }
        #expect(try NotesGenCommand.parse(["--generate-completion-script=zsh"]) == .completionScript(.zsh))
        let (status, _, error) = notesGen(["--generate-completion-script", "csh"])
        #expect(status == 64)
        #expect(error.hasPrefix("Error: Invalid value 'csh' for '--generate-completion-script'"))
    }

    /// What the bash script completes for `words`, the last one being completed, in `directory`.
    static func bashCompletes(_ words: [String], in directory: TemporaryDirectory) throws -> [String] {
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let command = """
            source \(directory.path("notes-gen.bash")) || exit 3
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _notes_gen
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let finished = try Finished(shell("bash")!, ["--norc", "--noprofile", "-c", command], directory: directory.url)
        #expect(finished.status == 0, "\(finished.stderr)")
        return finished.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test(
        "bash: the script is valid and completes options, --format's and --id-kind's values, and --out's files",
        .enabled(if: VersionAndCompletionTests.shell("bash") != nil, "bash is not installed: its script is not checked")
    )
    func bash() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let script = notesGen(["--generate-completion-script", "bash"]).output
        try Files.write(script, to: directory.path("notes-gen.bash"))
        try Files.write("", to: directory.path("out.ndjson"))
        let syntax = try Finished(Self.shell("bash")!, ["-n", directory.path("notes-gen.bash")])
        #expect(syntax.status == 0, "\(syntax.stderr)")
        func completes(_ words: [String]) throws -> [String] {
            try Self.bashCompletes(["notes-gen"] + words, in: directory)
        }
        #expect(try completes(["--form"]) == ["--format"])
        #expect(try completes(["--format", ""]) == ["dir", "ndjson", "page"])
        #expect(try completes(["--count", "5", "--id-kind", ""]) == ["int", "string"])
        #expect(try completes(["--out", "ou"]) == ["out.ndjson"])
        #expect(try completes(["--count", ""]).isEmpty)
    }

    @Test(
        "zsh: the script is valid",
        .enabled(
            if: VersionAndCompletionTests.shell("zsh") != nil, "zsh is not installed (apt-get install zsh): not checked"
        ))
    func zsh() throws {
        try Self.checkSyntax("zsh")
    }

    @Test(
        "fish: the script is valid",
        .enabled(
            if: VersionAndCompletionTests.shell("fish") != nil,
            "fish is not installed (apt-get install fish): not checked"))
    func fish() throws {
        try Self.checkSyntax("fish")
    }

    /// `shell -n` on the shell's script: the shell reads it without an error.
    static func checkSyntax(_ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Files.write(notesGen(["--generate-completion-script", name]).output, to: directory.path("script"))
        let finished = try Finished(shell(name)!, ["-n", directory.path("script")])
        #expect(finished.status == 0 && finished.stderr.isEmpty, "\(name): \(finished.stderr)")
    }
}
