/// What a command accepts, for parsing and for its help text.
public struct CommandSpec: Sendable {
    /// A positional argument.
    public struct Argument: Sendable {
        public var name: String
        public var help: String
        public var isOptional: Bool

        public init(_ name: String, help: String, isOptional: Bool = true) {
            self.name = name
            self.help = help
            self.isOptional = isOptional
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

        public init(
            _ names: String..., value valueName: String? = nil, help: String, repeatable: Bool = false,
            group: String? = nil
        ) {
            self.names = names
            self.valueName = valueName
            self.help = help
            self.isRepeatable = repeatable
            self.group = group
        }

        /// The canonical name, e.g. `--output`.
        public var name: String { names.last! }

        /// How help and errors show the option, e.g. `-o, --output <file>`.
        public var label: String {
            names.joined(separator: ", ") + (valueName.map { " <\($0)>" } ?? "")
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

    public init(
        name: String,
        overview: String,
        arguments: [Argument] = [],
        options: [Option] = [],
        subcommands: [(name: String, abstract: String)] = []
    ) {
        self.name = name
        self.overview = overview
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.root = String(name.split(separator: " ").first ?? Substring(name))
    }

    /// The option spelled `name`, by any of its spellings.
    public func option(named name: String) -> Option? {
        options.first { $0.names.contains(name) }
    }
}
