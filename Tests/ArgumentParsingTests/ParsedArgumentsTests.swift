import ArgumentParsing
import Testing

@Suite("Parsing a command line")
struct ParsedArgumentsTests {
    static let spec = CommandSpec(
        name: "tool run",
        overview: "Run things.",
        arguments: [.init("file", help: "The input.")],
        options: [
            .init("-o", "--output", value: "file", help: "Where to write."),
            .init("--quiet", help: "Say less."),
            .init("--header", value: "line", help: "A header.", repeatable: true),
            .init("--size", value: "bytes", help: "A size."),
        ]
    )

    @Test("Options in every spelling, flags, repeatable options, - and --")
    func spellings() throws {
        let parsed = try ParsedArguments(
            ["-o", "out", "--quiet", "--header=A: 1", "--header", "B: 2", "--", "-"],
            spec: Self.spec
        )
        #expect(parsed.value("--output") == "out")
        #expect(parsed.has("--quiet"))
        #expect(parsed.all("--header") == ["A: 1", "B: 2"])
        #expect(parsed.positionals == ["-"])
        #expect(!parsed.wantsHelp)
        #expect(try ParsedArguments(["-"], spec: Self.spec).positionals == ["-"])
        #expect(try ParsedArguments(["x", "--help"], spec: Self.spec).wantsHelp)
    }

    @Test(
        "Usage errors say what is wrong",
        arguments: [
            (["--nope"], "Unknown option '--nope'"),
            (["--output"], "Missing value for '-o, --output <file>'"),
            (["--quiet=yes"], "'--quiet' takes no value"),
            (["-o", "a", "-o", "b"], "'--output' given more than once"),
            (["a", "b"], "Unexpected argument 'b'"),
        ]
    )
    func errors(_ arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try ParsedArguments(arguments, spec: Self.spec) }
    }

    @Test("Integers, byte counts with suffixes, and choices are checked")
    func values() throws {
        let parsed = try ParsedArguments(["--size", "64MiB", "-o", "-5"], spec: Self.spec)
        #expect(try parsed.byteCount("--size", default: 1, in: 1...Int.max) == 64 << 20)
        #expect(try parsed.byteCount("--missing", default: 7, in: 1...Int.max) == 7)
        #expect(throws: UsageError("Invalid value '-5' for '--output': expected an integer of at least 0")) {
            try parsed.integer("--output", default: 0, in: 0...Int.max)
        }
        for (text, bytes) in [("1K", 1024), ("2M", 2 << 20), ("3G", 3 << 30), ("10", 10), ("1KiB", 1024)] {
            let sized = try ParsedArguments(["--size", text], spec: Self.spec)
            #expect(try sized.byteCount("--size", default: 0, in: 0...Int.max) == bytes)
        }
        let bad = try ParsedArguments(["--size", "1X"], spec: Self.spec)
        #expect(throws: UsageError.self) { try bad.byteCount("--size", default: 0, in: 0...Int.max) }
        let choice = try ParsedArguments(["-o", "xml"], spec: Self.spec)
        #expect(throws: UsageError("Invalid value 'xml' for '--output': expected one of json, ids")) {
            try choice.choice("--output", default: "json", from: ["json", "ids"])
        }
    }

    @Test("Help has OVERVIEW, USAGE, ARGUMENTS and OPTIONS, -h last")
    func help() {
        #expect(
            Self.spec.help == """
                OVERVIEW: Run things.

                USAGE: tool run [<file>] [<options>]

                ARGUMENTS:
                  <file>                 The input.

                OPTIONS:
                  -o, --output <file>    Where to write.
                  --quiet                Say less.
                  --header <line>        A header.
                  --size <bytes>         A size.
                  -h, --help             Show help information.

                """
        )
        #expect(
            Self.spec.errorText(UsageError("Unknown option '--x'"))
                == "Error: Unknown option '--x'\nSee 'tool run --help' for more information.\n"
        )
    }

    @Test("Grouped options get a titled section of their own, before OPTIONS, in the order they appear")
    func groups() {
        let spec = CommandSpec(
            name: "tool",
            overview: "Group things.",
            options: [
                .init("--quiet", help: "Say less."),
                .init("--style", value: "name", help: "How.", group: "PAGING"),
                .init("--size", value: "n", help: "How many.", group: "PAGING"),
                .init("--loud", help: "Say more."),
            ]
        )
        #expect(
            spec.help == """
                OVERVIEW: Group things.

                USAGE: tool [<options>]

                PAGING OPTIONS:
                  --style <name>    How.
                  --size <n>        How many.

                OPTIONS:
                  --quiet           Say less.
                  --loud            Say more.
                  -h, --help        Show help information.

                """
        )
    }
}
