/// An option declared once, as swift-argument-parser's property wrappers declare one: its spellings, help
/// and completion (``spec``), and how its value is read and checked (``read(_:)``). A default shown in the
/// help is the one the reader falls back to, and an enumerated option completes with the words it parses.
public struct Declared<Value>: Sendable {
    /// Names, value name, help, group and completion, as ``CommandSpec`` lists them.
    public let spec: CommandSpec.Option
    private let reader: @Sendable (ParsedArguments, String) throws(UsageError) -> Value

    /// An option read by `reader`, given the parsed arguments and the option's canonical name.
    public init(
        _ spec: CommandSpec.Option, reader: @escaping @Sendable (ParsedArguments, String) throws(UsageError) -> Value
    ) {
        self.spec = spec
        self.reader = reader
    }

    /// The canonical name, e.g. `--max-pages`.
    public var name: String { spec.name }

    /// The option's value in `parsed` (its default when absent).
    /// - Throws: ``UsageError`` naming the option for a value it does not take.
    public func read(_ parsed: ParsedArguments) throws(UsageError) -> Value {
        try reader(parsed, spec.name)
    }

    /// The help text with ` Default: <shown>.` after it.
    static func help(_ help: String, default shown: String?) -> String {
        shown.map { "\(help) Default: \($0)." } ?? help
    }
}

extension Declared where Value == Bool {
    /// A flag: whether it was given.
    public static func flag(_ names: String..., help: String, group: String? = nil) -> Declared {
        var spec = CommandSpec.Option(help: help, group: group)
        spec.names = names
        return Declared(spec) { parsed, name in parsed.has(name) }
    }
}

extension Declared where Value == String? {
    /// A value taken as it is, `nil` when absent.
    public static func text(
        _ names: String..., value valueName: String, help: String, defaultShown: String? = nil,
        group: String? = nil, completion: CommandSpec.Completion? = nil
    ) -> Declared {
        var spec = CommandSpec.Option(
            value: valueName, help: Self.help(help, default: defaultShown), group: group, completion: completion)
        spec.names = names
        return Declared(spec) { parsed, name in parsed.value(name) }
    }
}

extension Declared where Value == [String] {
    /// A value given any number of times, in order.
    public static func repeated(_ names: String..., value valueName: String, help: String, group: String? = nil)
        -> Declared
    {
        var spec = CommandSpec.Option(value: valueName, help: help, repeatable: true, group: group)
        spec.names = names
        return Declared(spec) { parsed, name in parsed.all(name) }
    }
}

extension Declared where Value == Int {
    /// A whole number in `range`, `defaultValue` when absent (and said in the help).
    public static func integer(
        _ names: String..., value valueName: String = "n", help: String, default defaultValue: Int,
        in range: ClosedRange<Int>, group: String? = nil
    ) -> Declared {
        var spec = CommandSpec.Option(value: valueName, help: Self.help(help, default: "\(defaultValue)"), group: group)
        spec.names = names
        return Declared(spec) { parsed, name throws(UsageError) in
            try parsed.integer(name, default: defaultValue, in: range)
        }
    }

    /// A byte count in `range` (suffixes K, M, G), `defaultValue` when absent, shown as `shown`.
    public static func byteCount(
        _ names: String..., help: String, default defaultValue: Int, shown: String, in range: ClosedRange<Int>
    ) -> Declared {
        var spec = CommandSpec.Option(value: "bytes", help: Self.help(help, default: shown))
        spec.names = names
        return Declared(spec) { parsed, name throws(UsageError) in
            try parsed.byteCount(name, default: defaultValue, in: range)
        }
    }
}

extension Declared where Value == Int? {
    /// A whole number in `range`, `nil` when absent.
    public static func integer(
        _ names: String..., value valueName: String = "n", help: String, in range: ClosedRange<Int>,
        group: String? = nil
    ) -> Declared {
        var spec = CommandSpec.Option(value: valueName, help: help, group: group)
        spec.names = names
        return Declared(spec) { parsed, name throws(UsageError) in
            parsed.has(name) ? try parsed.integer(name, default: 0, in: range) : nil
        }
    }
}

extension Declared {
    /// One of `choices`' raw values, `defaultValue` when absent (said in the help); a shell completes it
    /// with those words.
    public static func choice(
        _ names: String..., value valueName: String, help: String, choices: [Value], default defaultValue: Value,
        group: String? = nil
    ) -> Declared where Value: RawRepresentable & Sendable, Value.RawValue == String {
        let words = choices.map(\.rawValue)
        var spec = CommandSpec.Option(
            value: valueName, help: Self.help(help, default: defaultValue.rawValue), group: group,
            completion: .list(words))
        spec.names = names
        return Declared(spec) { parsed, name throws(UsageError) in
            let word = try parsed.choice(name, default: defaultValue.rawValue, from: words)
            return choices[words.firstIndex(of: word)!]
        }
    }
}

extension ParsedArguments {
    /// Whether `option` was given.
    public func has<Value>(_ option: Declared<Value>) -> Bool { has(option.name) }

    /// `option`'s value (its default when absent).
    public subscript<Value>(_ option: Declared<Value>) -> Value {
        get throws(UsageError) { try option.read(self) }
    }
}
