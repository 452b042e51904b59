import NotesSystem

/// A usage error: wrong options or values. Commands print it as `Error: …` and exit 64 (EX_USAGE).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The options and arguments of one command line, checked against a ``CommandSpec``.
public struct ParsedArguments: Sendable, Equatable {
    /// Values by canonical option name, in order; flags have an empty string per use.
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []
    /// Whether `-h` or `--help` was given.
    public private(set) var wantsHelp = false
    /// Whether `--version` was given, to a command with a ``CommandSpec/version``.
    public private(set) var wantsVersion = false
    /// The shell `--generate-completion-script` asked for, given to a root command (``CommandSpec/isRoot``).
    public private(set) var completionShell: Shell?

    /// Parses `arguments` (without the command's own name).
    ///
    /// Accepts `--name value`, `--name=value`, `-x value`, flags, `--` to end options, and `-` as a
    /// positional (standard input). Besides the spec's options: `-h`, `--help`; `--version` when the spec
    /// has a version; `--generate-completion-script <shell>` for a root command.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated option that is not
    ///   repeatable, too many arguments, or a shell that is not one of ``Shell``'s.
    public init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word == "-h" || word == "--help" {
                wantsHelp = true
                continue
            }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if word == "--version", spec.version != nil {
                wantsVersion = true
                continue
            }
            let builtin =
                spec.isRoot && name == CommandSpec.completionScriptOption.name
                ? CommandSpec.completionScriptOption : nil
            guard let option = builtin ?? spec.option(named: name) else {
                throw UsageError("Unknown option '\(name)'")
            }
            let value: String
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError("'\(option.name)' takes no value") }
                value = ""
            } else if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.label)'")
            }
            if values[option.name] != nil && !option.isRepeatable && option.valueName != nil {
                throw UsageError("'\(option.name)' given more than once")
            }
            if builtin != nil {  // the root's --generate-completion-script: a shell, not one of the spec's values
                guard let shell = Shell(rawValue: value) else {
                    let names = Shell.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(
                        "Invalid value '\(Self.clip(value))' for '\(option.name)': expected one of \(names)")
                }
                completionShell = shell
                continue
            }
            values[option.name, default: []].append(value)
        }
        let allowed = spec.arguments.count
        if positionals.count > allowed && !wantsHelp {
            throw UsageError("Unexpected argument '\(positionals[allowed])'")
        }
        // Help, the version and a completion script need nothing else.
        if !wantsHelp && !wantsVersion && completionShell == nil,
            let missing = spec.arguments.dropFirst(positionals.count).first(where: { !$0.isOptional })
        {
            throw UsageError("Missing expected argument '<\(missing.name)>'")
        }
    }

    /// Whether the flag or option was given.
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The option's last value.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The option's value as an integer in `range`, or `defaultValue` when absent.
    /// - Throws: ``UsageError`` naming the option and the accepted range.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int
    {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("Invalid value '\(Self.clip(text))' for '\(name)': \(Self.describe(range))")
        }
        return number
    }

    /// The option's value as a byte count, with an optional binary suffix (`K`, `KiB`, `M`, `MiB`, `G`,
    /// `GiB`; `64MiB` is 67,108,864), or `defaultValue` when absent.
    public func byteCount(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(UsageError)
        -> Int
    {
        guard let text = value(name) else { return defaultValue }
        let units: [(String, Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30),
        ]
        var digits = Substring(text)
        var scale = 1
        for (suffix, factor) in units where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let number = Int(digits), number >= 0, number <= Int.max / scale, range.contains(number * scale) else {
            throw UsageError(
                "Invalid value '\(Self.clip(text))' for '\(name)': \(Self.describe(range)) bytes (suffixes K, M, G allowed)"
            )
        }
        return number * scale
    }

    /// The option's value, which must be one of `choices`, or `defaultValue` when absent.
    public func choice(_ name: String, default defaultValue: String, from choices: [String]) throws(UsageError)
        -> String
    {
        guard let text = value(name) else { return defaultValue }
        guard choices.contains(text) else {
            throw UsageError(
                "Invalid value '\(Self.clip(text))' for '\(name)': expected one of \(choices.joined(separator: ", "))")
        }
        return text
    }

    /// A value as an error shows it: at most 200 bytes of it, cut at a whole scalar.
    public static func clip(_ text: String) -> String { text.clipped(toUTF8Bytes: 200) }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        if range.upperBound == Int.max { return "expected an integer of at least \(range.lowerBound)" }
        return "expected an integer from \(range.lowerBound) to \(range.upperBound)"
    }
}
