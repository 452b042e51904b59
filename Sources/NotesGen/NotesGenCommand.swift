public import ArgumentParsing
import NotesSystem

/// The `notes-gen` command line: parsing is a pure function (``parse(_:)``);
/// ``run(_:context:standardOutput:standardError:)`` adds the effects; `main.swift` only calls ``main(_:)``.
public enum NotesGenCommand {
    public static let spec = CommandSpec(
        name: "notes-gen",
        overview: """
            Write deterministic pages of notes for the fixture server, tests and
            benchmarks: the same options give the same bytes on every machine.

              dir     DIR/pages/00000.json, ... and DIR/manifest.json (Fixtures/README.md)
              ndjson  one note per line
              page    one page holding every note, for decoder benchmarks

            Fault kinds: duplicate-id, missing-id, number-id, invalid-json,
            oversized-title; each changes the last note of its page (1-based).
            """,
        version: packageVersion,
        options: [
            .init("--count", value: "n", help: "Notes to write (required; 0 gives one empty page)."),
            .init("--page-size", value: "n", help: "Notes per page, 1 to 100000 (default: 1000)."),
            .init("--seed", value: "n", help: "Seed, 0 to 2^53-1 (default: 42)."),
            .init(
                "--format", value: "format", help: "dir, ndjson or page (default: dir).",
                completion: .list(Generator.Configuration.Format.allCases.map(\.rawValue))),
            .init(
                "--id-kind", value: "kind",
                help: "string, or int: integers rising from 1 with gaps (default: string).",
                completion: .list(Generator.Configuration.IDKind.allCases.map(\.rawValue))),
            .init(
                "--out", value: "path",
                help: "DIR for dir (default: notes-<count>/); else a file, or - for stdout (the default).",
                completion: .file),
            .init("--force", help: "Write into the default notes-<count>/ even if it exists."),
            .init("--faults", value: "list", help: "Faults to plant, KIND@PAGE,... (dir format only)."),
        ]
    )

    /// What a command line asks for.
    public enum Invocation: Sendable, Hashable {
        case help
        /// `--version`: ``CommandSpec/versionText``.
        case version
        /// `--generate-completion-script <shell>`: the shell's completion script.
        case completionScript(Shell)
        /// `--out` given: written where it says (into a directory already there, too).
        case generate(Generator.Configuration)
        /// The dir format without `--out`: ``Generator/Configuration/defaultDirectory(count:)`` in the working
        /// directory, refused when something is already there unless `force`.
        case generateIntoDefaultDirectory(Generator.Configuration, force: Bool)
        /// The ndjson or page format without `--out`: standard output, refused when it is a terminal.
        case generateToStandardOutput(Generator.Configuration)
    }

    /// Where a run happens: what `main` reads from the process, and tests set at will.
    public struct Context: Sendable {
        /// The directory the default `notes-<count>/` goes in (explicit `--out` paths are the process's
        /// to resolve).
        public var workingDirectory: String
        /// Whether standard output is a terminal: JSON goes there only when `--out -` asks for it.
        public var standardOutputIsTerminal: Bool

        /// - Parameters:
        ///   - workingDirectory: Defaults to `.`, the process's working directory.
        ///   - standardOutputIsTerminal: Defaults to `false`.
        public init(workingDirectory: String = ".", standardOutputIsTerminal: Bool = false) {
            self.workingDirectory = workingDirectory
            self.standardOutputIsTerminal = standardOutputIsTerminal
        }
    }

    /// Parses a command line (without the command's name).
    /// - Throws: ``UsageError`` with the message to print.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let parsed = try ParsedArguments(arguments, spec: spec)
        if parsed.wantsHelp { return .help }
        if parsed.wantsVersion { return .version }
        if let shell = parsed.completionShell { return .completionScript(shell) }
        let configuration = try Generator.Configuration(arguments: parsed)
        if parsed.has("--out") { return .generate(configuration) }
        if configuration.format == .dir {
            return .generateIntoDefaultDirectory(configuration, force: parsed.has("--force"))
        }
        return .generateToStandardOutput(configuration)
    }

    /// The exit status and text for a failed run: a `--out` that cannot be created is a usage error
    /// (64, with the help hint); a later write failure is EX_IOERR (74).
    public static func report(_ error: GeneratorError) -> (status: ExitStatus, text: String) {
        switch error.code {
        case .cannotCreate: return (.usage, spec.errorText(UsageError(error.description)))
        case .cannotWrite: return (.ioError, "Error: \(error.description)\n")
        }
    }

    /// Runs a command line: help to `standardOutput`, errors and the default directory's whereabouts to
    /// `standardError`, notes where `--out` says.
    /// - Parameters:
    ///   - context: Where the run happens; defaults to the working directory, standard output not a terminal.
    /// - Returns: 0; 64 for a usage error (unwritable `--out` and JSON to a terminal included); 73 when the
    ///   default directory exists and `--force` was not given; 74 for a write failure.
    public static func run(
        _ arguments: [String],
        context: Context = Context(),
        standardOutput: (String) -> Void,
        standardError: (String) -> Void
    ) -> ExitStatus {
        var configuration: Generator.Configuration
        var defaultDirectory: String?
        do {
            switch try parse(arguments) {
            case .help:
                standardOutput(spec.help)
                return .success
            case .version:
                standardOutput(spec.versionText)
                return .success
            case .completionScript(let shell):
                standardOutput(spec.completionScript(for: shell))
                return .success
            case .generate(let parsed):
                configuration = parsed
            case .generateToStandardOutput(let parsed):
                if context.standardOutputIsTerminal {
                    throw UsageError(
                        "Standard output is a terminal: the \(parsed.format.rawValue) format goes there only with "
                            + "'--out -'; pipe it, or pass '--out <file>'")
                }
                configuration = parsed
            case .generateIntoDefaultDirectory(let parsed, let force):
                let name = Generator.Configuration.defaultDirectory(count: parsed.count)
                let path = context.workingDirectory == "." ? name : context.workingDirectory + "/" + name
                if !force {
                    let made: Bool
                    do { made = try System.makeNewDirectory(path) } catch {
                        throw GeneratorError(.cannotCreate, path: name, error)
                    }
                    if !made {
                        standardError(
                            "Error: \(name)/ already exists: pass --force to write into it, or --out <dir> to write "
                                + "elsewhere\n")
                        return .cannotCreate
                    }
                }
                configuration = parsed
                configuration.output = .path(path)
                defaultDirectory = name
            }
            let summary = try Generator(configuration).run()
            if let defaultDirectory {
                standardError(
                    "Wrote \(summary.noteCount) notes in \(configuration.pageCount) page"
                        + "\(configuration.pageCount == 1 ? "" : "s") (\(megabytes(summary.totalBytes))) to "
                        + "\(defaultDirectory)/\nServe them: node Tools/fixture-server/notes-server.mjs --dir "
                        + "\(defaultDirectory)/\n")
            }
            return .success
        } catch let error as GeneratorError {
            let (status, text) = report(error)
            standardError(text)
            return status
        } catch {
            standardError(spec.errorText(error as! UsageError))
            return .usage
        }
    }

    /// `bytes` in decimal megabytes with one decimal, e.g. `177.2 MB`; under 0.1 MB, in bytes.
    static func megabytes(_ bytes: Int) -> String {
        if bytes < 100_000 { return "\(bytes) bytes" }
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// Runs a command line against the process's standard output and error.
    /// - Returns: The exit status for `exit(3)`.
    public static func main(_ arguments: [String]) -> Int32 {
        run(
            arguments,
            context: Context(standardOutputIsTerminal: System.isTerminal(System.standardOutput)),
            standardOutput: { System.writeText($0, to: 1) },
            standardError: { System.writeText($0, to: 2) }
        ).rawValue
    }
}
