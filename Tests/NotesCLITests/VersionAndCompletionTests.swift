import ArgumentParsing
import Foundation
import TestSupport
import Testing

/// `notes-page --version` and the completion scripts of `notes-page --generate-completion-script SHELL`,
/// run by the shells themselves where they are installed.
@Suite("notes-page --version and its completion scripts")
struct VersionAndCompletionTests {
    static let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"

    /// The shell called `name`, if it is installed.
    static func shell(_ name: String) -> URL? { TestSupport.executable(named: name, searchPath: path) }

    @Test("--version prints the name and the version, and exits 0; --help lists it")
    func version() async throws {
        let run = try await Run(["--version"])
        #expect(run.status == 0 && run.stderr.isEmpty)
        #expect(run.stdout == "notes-page \(packageVersion)\n")
        #expect(packageVersion == "0.9.0")
        let help = try await Run(["--help"])
        #expect(help.stdout.contains("\n  --version     Show the version.\n"))
        let unknown = try await Run(["--verbose"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "Error: Unknown option '--verbose'\nSee 'notes-page --help' for more information.\n")
    }

    @Test("The script of every shell, and an unknown shell refused")
    func scripts() async throws {
        for shell in Shell.allCases {
            let run = try await Run(["--generate-completion-script", shell.rawValue])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(shell)")
            #expect(run.stdout.contains("notes-page"), "\(shell)")
        }
        let bad = try await Run(["--generate-completion-script", "tcsh"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: Invalid value 'tcsh' for '--generate-completion-script': expected one of"))
    }

    /// What the bash script completes for the command line `words` (the last one being completed), in
    /// `directory`.
    static func bashCompletes(_ words: [String], in directory: Scratch) throws -> [String] {
        guard let bash = shell("bash") else { return [] }
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let command = """
            source \(directory.path("notes-page.bash")) || exit 3
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _notes_page
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let finished = try Finished(bash, ["--norc", "--noprofile", "-c", command], directory: directory.url)
        #expect(finished.status == 0, "\(finished.stderr)")
        return finished.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test(
        "bash: the script is valid, and `notes-page fetch --pag` completes --paginate",
        .enabled(
            if: VersionAndCompletionTests.shell("bash") != nil,
            "bash is not installed: its completion script is not checked"))
    func bash() async throws {
        let directory = try Scratch()
        defer { directory.remove() }
        let script = try await Run(["--generate-completion-script", "bash"]).stdout
        try Files.write(script, to: directory.path("notes-page.bash"))
        try Files.write("{}", to: directory.path("page.json"))
        let syntax = try Finished(Self.shell("bash")!, ["-n", directory.path("notes-page.bash")])
        #expect(syntax.status == 0, "\(syntax.stderr)")

        let paginate = try Self.bashCompletes(["notes-page", "fetch", "--pag"], in: directory)
        #expect(paginate.contains("--paginate"))
        #expect(paginate.allSatisfy { $0.hasPrefix("--pag") })
        #expect(try Self.bashCompletes(["notes-page", ""], in: directory) == ["decode", "fetch", "help", "sync"])
        #expect(try Self.bashCompletes(["notes-page", "help", "f"], in: directory) == ["fetch"])
        #expect(try Self.bashCompletes(["notes-page", "--v"], in: directory) == ["--version"])
        let styles = try Self.bashCompletes(["notes-page", "fetch", "--paginate", ""], in: directory)
        #expect(styles == ["auto", "body", "graphql", "header", "keyset", "link", "next", "offset", "page"])
        // --name=value: bash hands over `--format`, `=` and what follows.
        #expect(
            try Self.bashCompletes(["notes-page", "fetch", "--format", "=", "n"], in: directory) == ["ndjson", "none"])
        #expect(try Self.bashCompletes(["notes-page", "fetch", "--output", "pa"], in: directory) == ["page.json"])
        #expect(try Self.bashCompletes(["notes-page", "decode", "--no-title", "pa"], in: directory) == ["page.json"])
        #expect(try Self.bashCompletes(["notes-page", "fetch", "--max-pages", ""], in: directory).isEmpty)
    }

    @Test(
        "zsh: the script is valid",
        .enabled(
            if: VersionAndCompletionTests.shell("zsh") != nil,
            "zsh is not installed (apt-get install zsh): its completion script is not checked"))
    func zsh() async throws {
        let script = try await Run(["--generate-completion-script", "zsh"]).stdout
        try Self.checkSyntax("zsh", script: script)
    }

    @Test(
        "fish: the script is valid, and fish completes `notes-page fetch --pag` with --paginate",
        .enabled(
            if: VersionAndCompletionTests.shell("fish") != nil,
            "fish is not installed (apt-get install fish): its completion script is not checked"))
    func fish() async throws {
        let directory = try Scratch()
        defer { directory.remove() }
        let script = try await Run(["--generate-completion-script", "fish"]).stdout
        try Self.checkSyntax("fish", script: script)
        try Files.write(script, to: directory.path("notes-page.fish"))
        let command = "source \(directory.path("notes-page.fish")); complete -C 'notes-page fetch --pag'"
        let finished = try Finished(Self.shell("fish")!, ["--no-config", "-c", command], directory: directory.url)
        let completed = finished.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(completed.contains("--paginate"), "\(finished.stdout)\(finished.stderr)")
    }

    /// `shell -n` on the script: the shell reads it without an error.
    static func checkSyntax(_ shell: String, script: String) throws {
        let directory = try Scratch()
        defer { directory.remove() }
        try Files.write(script, to: directory.path("script"))
        let finished = try Finished(Self.shell(shell)!, ["-n", directory.path("script")])
        #expect(finished.status == 0 && finished.stderr.isEmpty, "\(shell): \(finished.stderr)")
    }
}
