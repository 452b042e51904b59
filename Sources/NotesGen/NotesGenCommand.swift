public import ArgumentParsing

/// The `notes-gen` command line: parsing is a pure function (``parse(_:)``); ``run(_:standardOutput:standardError:)``
/// adds the effects; `main.swift` only calls ``main(_:)``.
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
        options: [
            .init("--count", value: "n", help: "Notes to write (required; 0 gives one empty page)."),
            .init("--page-size", value: "n", help: "Notes per page, 1 to 100000 (default: 1000)."),
            .init("--seed", value: "n", help: "Seed, 0 to 2^53-1 (default: 42)."),
            .init("--format", value: "format", help: "dir, ndjson or page (default: dir)."),
            .init("--out", value: "path", help: "DIR for dir (required); else a file, or - for stdout."),
            .init("--faults", value: "list", help: "Faults to plant, KIND@PAGE,... (dir format only)."),
        ]
    )

    /// What a command line asks for.
    public enum Invocation: Sendable, Hashable {
        case help
        case generate(Generator.Configuration)
    }

    /// Parses a command line (without the command's name).
    /// - Throws: ``UsageError`` with the message to print.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let parsed = try ParsedArguments(arguments, spec: spec)
        if parsed.wantsHelp { return .help }
        return .generate(try Generator.Configuration(arguments: parsed))
    }

    /// The exit status and text for a failed run: a `--out` that cannot be created is a usage error
    /// (64, with the help hint); a later write failure is EX_IOERR (74).
    public static func report(_ error: GeneratorError) -> (status: ExitStatus, text: String) {
        switch error.code {
        case .cannotCreate: return (.usage, spec.errorText(UsageError(error.description)))
        case .cannotWrite: return (.ioError, "Error: \(error.description)\n")
        }
    }

    /// Runs a command line: help to `standardOutput`, errors to `standardError`, notes where
    /// `--out` says.
    /// - Returns: 0, 64 for a usage error (unwritable `--out` included), 74 for a write failure.
    public static func run(
        _ arguments: [String],
        standardOutput: (String) -> Void,
        standardError: (String) -> Void
    ) -> ExitStatus {
        let configuration: Generator.Configuration
        do {
            switch try parse(arguments) {
            case .help:
                standardOutput(spec.help)
                return .success
            case .generate(let parsed):
                configuration = parsed
            }
        } catch {
            standardError(spec.errorText(error))
            return .usage
        }
        do {
            try Generator(configuration).run()
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

    /// Runs a command line against the process's standard output and error.
    /// - Returns: The exit status for `exit(3)`.
    public static func main(_ arguments: [String]) -> Int32 {
        run(arguments, standardOutput: { System.writeText($0, to: 1) }, standardError: { System.writeText($0, to: 2) })
            .rawValue
    }
}
