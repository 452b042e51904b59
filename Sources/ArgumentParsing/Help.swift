extension CommandSpec {
    /// `-h, --help`, which every command takes.
    static let helpOption = Option("-h", "--help", help: "Show help information.")
    /// `--version`, which a command with a ``version`` takes.
    static let versionOption = Option("--version", help: "Show the version.")

    /// The help text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS and SUBCOMMANDS, as swift-argument-parser
    /// lays them out (`--version` among the options when the command has a ``version``).
    public var help: String {
        // `--version` before `-h, --help`, as swift-argument-parser lists them.
        let options = self.options + (version == nil ? [] : [Self.versionOption])
        var lines = ["OVERVIEW: \(overview)", ""]
        var usage = name
        if !subcommands.isEmpty { usage += " <subcommand>" }
        for argument in arguments { usage += argument.isOptional ? " [<\(argument.name)>]" : " <\(argument.name)>" }
        if !self.options.isEmpty { usage += " [<options>]" }  // as swift-argument-parser, --version aside
        lines += ["USAGE: \(usage)", ""]

        let helpOption = Self.helpOption
        let labels = arguments.map { "<\($0.name)>" } + (options + [helpOption]).map(\.label) + subcommands.map(\.name)
        let column = min(28, (labels.map(\.count).max() ?? 0) + 4)

        func entry(_ label: String, _ help: String) -> [String] {
            let pad = "  " + label
            if pad.count + 2 > column + 2 {
                return [pad, String(repeating: " ", count: column + 2) + help]
            }
            return [pad + String(repeating: " ", count: column + 2 - pad.count) + help]
        }

        if !arguments.isEmpty {
            lines.append("ARGUMENTS:")
            for argument in arguments { lines += entry("<\(argument.name)>", argument.help) }
            lines.append("")
        }
        // Titled groups first, in the order they appear, as swift-argument-parser lists its option groups.
        var groups: [String] = []
        for case let group? in options.map(\.group) where !groups.contains(group) { groups.append(group) }
        for group in groups {
            lines.append("\(group) OPTIONS:")
            for option in options where option.group == group { lines += entry(option.label, option.help) }
            lines.append("")
        }
        lines.append("OPTIONS:")
        for option in options + [helpOption] where option.group == nil { lines += entry(option.label, option.help) }
        if !subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"]
            for subcommand in subcommands { lines += entry(subcommand.name, subcommand.abstract) }
            lines += ["", "  See '\(root) help <subcommand>' for detailed help."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The two lines printed for a usage error.
    public func errorText(_ error: UsageError) -> String {
        "Error: \(error.message)\nSee '\(name) --help' for more information.\n"
    }
}

/// Exit statuses, from BSD's sysexits.h where one fits.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// A general failure with no better code.
    case failure = 1
    /// EX_USAGE: the command was used wrongly.
    case usage = 64
    /// EX_DATAERR: the input broke the contract or a limit.
    case dataError = 65
    /// EX_NOINPUT: an input file could not be opened.
    case noInput = 66
    /// EX_UNAVAILABLE: the service stayed unavailable.
    case unavailable = 69
    /// EX_CANTCREAT: an output file could not be created.
    case cannotCreate = 73
    /// EX_IOERR: reading or writing failed.
    case ioError = 74
    /// EX_NOPERM: permission denied, e.g. an expired session.
    case noPermission = 77
    /// Interrupted by SIGINT or SIGTERM (128 + 2).
    case interrupted = 130
}
