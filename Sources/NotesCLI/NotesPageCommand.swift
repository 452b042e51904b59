import ArgumentParsing
import Dispatch
public import NotesFetch
import NotesPage
import NotesStore
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `notes-page` command: dispatches to its subcommands.
public enum NotesPageCommand {
    static let spec = CommandSpec(
        name: "notes-page",
        overview: "Read cursor-paginated JSON APIs safely: every page streamed, bounded and checked.",
        version: packageVersion,
        subcommands: [
            ("fetch", "Fetch notes from an endpoint: one page, or every page with --all."),
            ("decode", "Decode one page from a file or standard input."),
            ("sync", "Walk every resource of a source file, each into a table or a file of its own."),
        ]
    )

    /// The subcommands' specs, as the completion scripts read them: each enumerated option completes with
    /// the words its parser accepts (``Declared/choice(_:value:help:choices:default:group:)``).
    static var subcommandSpecs: [CommandSpec] { [FetchCommand.spec, DecodeCommand.spec, SyncCommand.spec] }

    /// Runs the command line `arguments` (without the program name).
    /// - Parameter urlSession: Makes a URLSession transport, in a program that links one
    ///   (`notes-page-urlsession`, and `notes-page` on Apple platforms). Without it, `fetch --transport
    ///   urlsession` runs `notes-page-urlsession` from beside this program in its place.
    /// - Returns: The exit status.
    public static func main(
        _ arguments: [String], urlSession: (@Sendable () -> any HTTPTransport)? = nil
    ) -> Int32 {
        guard let first = arguments.first else {
            printError(spec.help)
            return ExitStatus.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case _ where first.hasPrefix("-"):
            return runRoot(arguments)
        case "help":
            return main((rest.first.map { [$0] } ?? []) + ["--help"])
        case "decode":
            return run(rest, spec: DecodeCommand.spec) { parsed throws(UsageError) in
                try DecodeCommand(parsed).run()
            }
        case "fetch":
            return run(rest, spec: FetchCommand.spec) { parsed throws(UsageError) in
                let command = try FetchCommand(parsed, environment: ProcessInfo.processInfo.environment)
                if command.transport == .urlsession, urlSession == nil {
                    return ExitStatus(rawValue: runURLSessionBuild(arguments)) ?? .unavailable
                }
                return waitFor { await command.run(urlSession: urlSession) }
            }
        case "sync":
            return run(rest, spec: SyncCommand.spec) { parsed throws(UsageError) in
                let command = try SyncCommand(parsed, environment: ProcessInfo.processInfo.environment)
                return waitFor { await command.run(urlSession: urlSession) }
            }
        default:
            printError(spec.errorText(UsageError("Unknown subcommand '\(first)'")))
            return ExitStatus.usage.rawValue
        }
    }

    /// `notes-page --help`, `--version` or `--generate-completion-script <shell>`: the root command's own
    /// options, printed to standard output (status 0); anything else is a usage error.
    private static func runRoot(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, spec: spec)
        } catch {
            printError(spec.errorText(error))
            return ExitStatus.usage.rawValue
        }
        if parsed.wantsHelp {
            print(spec.help, terminator: "")
        } else if parsed.wantsVersion {
            print(spec.versionText, terminator: "")
        } else if let shell = parsed.completionShell {
            print(spec.completionScript(for: shell, subcommands: subcommandSpecs), terminator: "")
        } else {
            printError(spec.help)  // `--` alone
            return ExitStatus.usage.rawValue
        }
        return ExitStatus.success.rawValue
    }

    /// Replaces this process with `notes-page-urlsession` from the same directory, given `arguments`; says
    /// why and returns 69 when it cannot.
    private static func runURLSessionBuild(_ arguments: [String]) -> Int32 {
        let program = "notes-page-urlsession"
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        if length > 0 {
            let executable = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast()
                .joined(separator: "/")
            let sibling = directory + "/" + program
            let argv = ([sibling] + arguments).map { strdup($0) } + [nil]
            execv(sibling, argv)  // returns only on failure
        }
        printError(
            "Error: --transport urlsession runs \(program), which is not beside this program (swift build --product \(program))"
        )
        return ExitStatus.unavailable.rawValue
    }

    /// Parses `arguments` against `spec`: prints help for `-h`, an error for bad usage, else runs `body`.
    private static func run(
        _ arguments: [String],
        spec: CommandSpec,
        _ body: (ParsedArguments) throws(UsageError) -> ExitStatus
    ) -> Int32 {
        do {
            let parsed = try ParsedArguments(arguments, spec: spec)
            if parsed.wantsHelp {
                print(spec.help, terminator: "")
                return ExitStatus.success.rawValue
            }
            return try body(parsed).rawValue
        } catch {
            printError(spec.errorText(error))
            return ExitStatus.usage.rawValue
        }
    }
}

/// Runs `body` in a task and blocks the calling thread until it is done.
///
/// The program's entry point stays synchronous (no async main): the main thread waits here while the
/// walk runs on the concurrency pool and the transport on its own queue.
private func waitFor<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<Result>()
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Hands a task's result to the thread that waits for it; the semaphore orders the accesses.
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
