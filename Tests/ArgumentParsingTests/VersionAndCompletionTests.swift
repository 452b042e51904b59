import ArgumentParsing
import Testing

@Suite("--version and the completion scripts")
struct VersionAndCompletionTests {
    static let root = CommandSpec(
        name: "tool", overview: "Do things.", version: "1.2.3",
        subcommands: [("run", "Run things."), ("list", "List things.")])
    static let run = CommandSpec(
        name: "tool run",
        overview: "Run things.",
        arguments: [.init("file", help: "The input.", isOptional: false)],
        options: [
            .init("-o", "--output", value: "file", help: "Where to write."),
            .init("--style", value: "name", help: "How: fast or careful.", completion: .list(["fast", "careful"])),
            .init("--into", value: "dir", help: "Where to work."),
            .init("--header", value: "line", help: "A header [repeatable].", repeatable: true),
            .init("--note", value: "text", help: "It's free text."),
            .init("--quiet", help: "Say less."),
        ]
    )
    static let list = CommandSpec(name: "tool list", overview: "List things.")

    @Test("--version is an option of a command with a version, listed before -h; it needs no argument")
    func version() throws {
        #expect(try ParsedArguments(["--version"], spec: Self.root).wantsVersion)
        #expect(!(try ParsedArguments([], spec: Self.root).wantsVersion))
        #expect(throws: UsageError("Unknown option '--version'")) { try ParsedArguments(["--version"], spec: Self.run) }
        var versioned = Self.run
        versioned.version = "2.0"
        #expect(try ParsedArguments(["--version"], spec: versioned).wantsVersion)  // <file> not required then
        #expect(Self.root.versionText == "tool 1.2.3\n")
        #expect(
            Self.root.help == """
                OVERVIEW: Do things.

                USAGE: tool <subcommand>

                OPTIONS:
                  --version     Show the version.
                  -h, --help    Show help information.

                SUBCOMMANDS:
                  run           Run things.
                  list          List things.

                  See 'tool help <subcommand>' for detailed help.

                """
        )
        #expect(!Self.run.help.contains("--version"))
    }

    @Test("A root command takes --generate-completion-script SHELL, which its help does not list")
    func generateOption() throws {
        #expect(try ParsedArguments(["--generate-completion-script", "zsh"], spec: Self.root).completionShell == .zsh)
        #expect(try ParsedArguments(["--generate-completion-script=fish"], spec: Self.root).completionShell == .fish)
        #expect(try ParsedArguments([], spec: Self.root).completionShell == nil)
        #expect(
            throws: UsageError(
                "Invalid value 'tcsh' for '--generate-completion-script': expected one of bash, zsh, fish")
        ) {
            try ParsedArguments(["--generate-completion-script", "tcsh"], spec: Self.root)
        }
        #expect(throws: UsageError("Unknown option '--generate-completion-script'")) {
            try ParsedArguments(["--generate-completion-script", "bash"], spec: Self.run)
        }
        #expect(!Self.root.help.contains("completion"))
    }

    @Test("A value is completed as its spec says, else by its name: file and dir are paths")
    func completionKinds() {
        #expect(CommandSpec.Completion.inferred(from: "file") == .file)
        #expect(CommandSpec.Completion.inferred(from: "dir") == .directory)
        #expect(CommandSpec.Completion.inferred(from: "n") == CommandSpec.Completion.none)
        #expect(CommandSpec.Completion.inferred(from: nil) == CommandSpec.Completion.none)
        let completed = Self.run.completing(["--note": .list(["a", "b"]), "--absent": .file])
        #expect(completed.option(named: "--note")?.completion == .list(["a", "b"]))
        #expect(completed.option(named: "--output")?.completion == nil)
        #expect(completed.options.count == Self.run.options.count)
    }

    static func script(_ shell: Shell) -> String {
        Self.root.completionScript(for: shell, subcommands: [Self.run, Self.list])
    }

    @Test("bash: a function per command, each option's value by its kind, subcommands and help")
    func bash() {
        let script = Self.script(.bash)
        for line in [
            "complete -F _tool tool",
            "__tool_run() {",
            "            run) __tool_run $((i + 1)); return ;;",
            "            help) COMPREPLY=($(compgen -W 'run list' -- \"$cur\")); return ;;",
            "    COMPREPLY=($(compgen -W 'run list help' -- \"$cur\"))",
            "        COMPREPLY=($(compgen -W '--version -h --help' -- \"$cur\"))",
            "        --style) COMPREPLY=($(compgen -W 'fast careful' -- \"$cur\")); return ;;",
            "        -o|--output) compopt -o filenames 2>/dev/null; __tool_reply < <(compgen -f -- \"$cur\"); return ;;",
            "        --into) compopt -o filenames 2>/dev/null; __tool_reply < <(compgen -d -- \"$cur\"); return ;;",
            "        --header|--note) return ;;",
            "        0) compopt -o filenames 2>/dev/null; __tool_reply < <(compgen -f -- \"$cur\"); return ;;",
        ] {
            #expect(script.contains(line + "\n"), "\(line)")
        }
        #expect(script.contains("'-o --output --style --into --header --note --quiet -h --help'"))
    }

    @Test("zsh: _arguments specs with each spelling, repeatable options, escaped help, the subcommands")
    func zsh() {
        let script = Self.script(.zsh)
        for line in [
            "#compdef tool",
            "        '(-o --output)'{-o,--output=}'[Where to write.]:file:_files' \\",
            "        --style='[How\\: fast or careful.]:name:(fast careful)' \\",
            "        --into='[Where to work.]:dir:_files -/' \\",
            "        '*'--header='[A header \\[repeatable\\].]:line:' \\",
            "        --note='[It'\\''s free text.]:text:' \\",
            "        --quiet'[Say less.]' \\",
            "        '(- *)'{-h,--help}'[Show help information.]' \\",
            "        '1:file:_files'",
            "        --version'[Show the version.]' \\",
            "        'run:Run things.'",
            "                run) _tool_run && ret=0 ;;",
            "    compdef _tool tool",
        ] {
            #expect(script.contains(line + "\n"), "\(line)")
        }
    }

    @Test("fish: a complete line per subcommand and option, on the subcommand's condition")
    func fish() {
        let script = Self.script(.fish)
        let run = "complete -c tool -n '__fish_seen_subcommand_from run'"
        for line in [
            "complete -c tool -f",
            "complete -c tool -n __fish_use_subcommand -a run -d 'Run things.'",
            "complete -c tool -n __fish_use_subcommand -a help -d 'Show subcommand help information.'",
            "complete -c tool -n __fish_use_subcommand -l version -d 'Show the version.'",
            "complete -c tool -n '__fish_seen_subcommand_from help' -a 'run list'",
            "\(run) -s o -l output -r -F -d 'Where to write.'",
            "\(run) -l style -x -a 'fast careful' -d 'How: fast or careful.'",
            "\(run) -l note -x -d 'It\\'s free text.'",
            "\(run) -l quiet -d 'Say less.'",
            "\(run) -F",
        ] {
            #expect(script.contains(line + "\n"), "\(line)")
        }
    }

    @Test("A command without subcommands completes its options only")
    func leaf() {
        var spec = Self.run
        spec.name = "runner"
        spec.root = "runner"
        let bash = spec.completionScript(for: .bash)
        #expect(bash.contains("complete -F _runner runner\n") && !bash.contains("help)"))
        #expect(!spec.completionScript(for: .zsh).contains("->subcommand"))
        #expect(!spec.completionScript(for: .fish).contains("__fish_use_subcommand"))
    }
}
