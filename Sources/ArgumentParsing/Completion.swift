/// The shells `--generate-completion-script` writes a completion script for.
public enum Shell: String, CaseIterable, Sendable, Hashable {
    case bash, zsh, fish
}

extension CommandSpec {
    /// `--generate-completion-script <shell>`, which every root command takes and its help does not list
    /// (as swift-argument-parser's).
    static let completionScriptOption = Option(
        "--generate-completion-script", value: "shell", help: "Print a completion script for bash, zsh or fish.",
        completion: .list(Shell.allCases.map(\.rawValue)))

    /// The completion script of this root command for `shell`, generated from its spec and its
    /// subcommands' (`subcommands`, e.g. the specs of `notes-page fetch` and `notes-page decode`): the
    /// subcommands and `help`, every option in each of its spellings, `--version` and `-h, --help`, the
    /// values an option's ``Completion`` names (its choices, a file, a directory), and the positional
    /// arguments'.
    ///
    /// Installed as `share/bash-completion/completions/NAME`, `share/zsh/site-functions/_NAME` and
    /// `share/fish/vendor_completions.d/NAME.fish`, or loaded into a running shell, e.g.
    /// `source <(notes-page --generate-completion-script bash)`.
    public func completionScript(for shell: Shell, subcommands: [CommandSpec] = []) -> String {
        let command = CompletedCommand(root: self, subcommands: subcommands)
        switch shell {
        case .bash: return BashCompletion(command).script
        case .zsh: return ZshCompletion(command).script
        case .fish: return FishCompletion(command).script
        }
    }
}

/// A command as its completion script sees it: the words that lead to it, what it takes, its subcommands.
struct CompletedCommand {
    /// `["notes-page", "fetch"]`.
    var path: [String]
    var abstract: String
    /// The spec's options, then `--version` (a command with a version) and `-h, --help`.
    var options: [CommandSpec.Option]
    var arguments: [CommandSpec.Argument]
    var subcommands: [CompletedCommand]

    static let helpAbstract = "Show subcommand help information."

    init(root: CommandSpec, subcommands specs: [CommandSpec]) {
        self.init(root, path: [root.name], abstract: root.overview)
        subcommands = root.subcommands.map { subcommand in
            let spec = specs.first { $0.name.split(separator: " ").last.map(String.init) == subcommand.name }
            return CompletedCommand(
                spec ?? CommandSpec(name: "\(root.name) \(subcommand.name)", overview: subcommand.abstract),
                path: [root.name, subcommand.name], abstract: subcommand.abstract)
        }
    }

    private init(_ spec: CommandSpec, path: [String], abstract: String) {
        self.path = path
        self.abstract = abstract
        options = spec.options + (spec.version == nil ? [] : [CommandSpec.versionOption]) + [CommandSpec.helpOption]
        arguments = spec.arguments
        subcommands = []
    }

    /// The subcommands' names, `help` last when there are any (`notes-page help fetch`).
    var subcommandNames: [String] { subcommands.isEmpty ? [] : subcommands.map(\.name) + ["help"] }

    var name: String { path.last! }

    /// Every spelling of every option.
    var optionNames: [String] { options.flatMap(\.names) }

    /// The options that take a value, and the root's `--generate-completion-script`.
    var valueOptions: [CommandSpec.Option] {
        options.filter { $0.valueName != nil } + (path.count == 1 ? [CommandSpec.completionScriptOption] : [])
    }

    /// A shell function's name for the command: `prefix` and the path, made of letters, digits and `_`.
    func functionName(_ prefix: String, keeping extra: Set<Character> = []) -> String {
        prefix + path.joined(separator: "_").map { $0.isLetter || $0.isNumber || extra.contains($0) ? $0 : "_" }
    }
}

extension CommandSpec.Option {
    /// What its value is completed with; `nil` for a flag.
    var valueCompletion: CommandSpec.Completion? {
        valueName == nil ? nil : completion ?? .inferred(from: valueName)
    }
}

extension CommandSpec.Argument {
    var valueCompletion: CommandSpec.Completion { completion ?? .inferred(from: name) }
}

extension String {
    /// Every occurrence of `target` replaced, without Foundation.
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
