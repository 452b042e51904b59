/// What a command accepts, for parsing and for its help text.
public struct CommandSpec: Sendable {
    /// A positional argument.
    public struct Argument: Sendable {
        public var name: String
        public var help: String
        public var isOptional: Bool
        /// What a shell completes it with; `nil`: see ``CommandSpec/Completion/inferred(from:)``.
        public var completion: Completion?

        public init(_ name: String, help: String, isOptional: Bool = true, completion: Completion? = nil) {
            self.name = name
            self.help = help
            self.isOptional = isOptional
            self.completion = completion
        }
    }

    /// A named option: a flag when `valueName` is `nil`.
    public struct Option: Sendable {
        /// Spellings, short first: `["-o", "--output"]`. The last is the canonical name.
        public var names: [String]
        public var valueName: String?
        public var help: String
        public var isRepeatable: Bool
        /// The section of the help it is listed in, e.g. `PAGINATION`; `nil` for plain OPTIONS.
        public var group: String?
        /// What a shell completes its value with; `nil`: see ``CommandSpec/Completion/inferred(from:)``.
        public var completion: Completion?

        public init(
            _ names: String..., value valueName: String? = nil, help: String, repeatable: Bool = false,
            group: String? = nil, completion: Completion? = nil
        ) {
            self.names = names
            self.valueName = valueName
            self.help = help
            self.isRepeatable = repeatable
            self.group = group
            self.completion = completion
        }

        /// The canonical name, e.g. `--output`.
        public var name: String { names.last! }

        /// How help and errors show the option, e.g. `-o, --output <file>`.
        public var label: String {
            names.joined(separator: ", ") + (valueName.map { " <\($0)>" } ?? "")
        }
    }

    /// What a shell's completion script offers for an option's value or a positional argument.
    public enum Completion: Sendable, Hashable {
        /// One of these words, e.g. an enumerated option's choices.
        case list([String])
        /// A file's path.
        case file
        /// A directory's path.
        case directory
        /// Nothing: free text, e.g. a URL or a number.
        case none

        /// What a value named `valueName` (``Option/valueName``, ``Argument/name``) is completed with when
        /// its spec does not say: a path for `file` and `dir`, else nothing.
        public static func inferred(from valueName: String?) -> Completion {
            switch valueName {
            case "file": return .file
            case "dir", "directory": return .directory
            default: return .none
            }
        }
    }

    /// The command as typed, e.g. `notes-page decode`.
    public var name: String
    public var overview: String
    public var arguments: [Argument]
    public var options: [Option]
    /// Subcommand names and one-line abstracts.
    public var subcommands: [(name: String, abstract: String)]
    /// The root command's name, for `See '<root> --help'`.
    public var root: String
    /// The version `--version` prints, for a root command; `nil`: no `--version`.
    public var version: String?

    public init(
        name: String,
        overview: String,
        version: String? = nil,
        arguments: [Argument] = [],
        options: [Option] = [],
        subcommands: [(name: String, abstract: String)] = []
    ) {
        self.name = name
        self.overview = overview
        self.version = version
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.root = String(name.split(separator: " ").first ?? Substring(name))
    }

    /// Whether this is the root command (its name is one word), which takes
    /// `--generate-completion-script <shell>`, as swift-argument-parser's root commands do (not listed in
    /// the help).
    public var isRoot: Bool { !name.contains(" ") }

    /// The option spelled `name`, by any of its spellings.
    public func option(named name: String) -> Option? {
        options.first { $0.names.contains(name) }
    }

    /// What `--version` prints: the command's name and version, e.g. `notes-page 0.9.0`.
    public var versionText: String { "\(name) \(version ?? "")\n" }

    /// This spec with the completions of the options named (by canonical name) in `completions`: for
    /// options written where their accepted values are not at hand.
    public func completing(_ completions: [String: Completion]) -> CommandSpec {
        var copy = self
        for index in copy.options.indices {
            if let completion = completions[copy.options[index].name] { copy.options[index].completion = completion }
        }
        return copy
    }
}
