import ArgumentParsing
import NotesJSON
import NotesPage

/// The options every command that reads pages shares: limits, paths and the output format.
struct PageOptions: Equatable {
    enum Format: String, CaseIterable {
        /// Each note's exact JSON, one per line.
        case ndjson
        /// Each note's id, one per line.
        case ids
        /// Nothing: validate only.
        case none
    }

    var configuration: PageConfiguration
    var format: Format

    // The options, each declared once: its help, its default and how its value reads.
    private static let defaults = PageConfiguration()
    static let format = Declared.choice(
        "--format", value: "format",
        help: "ndjson (each note's JSON, one per line), ids, or none (validate only).", choices: Format.allCases,
        default: .ndjson)
    static let maxPageBytes = Declared.byteCount(
        "--max-page-bytes", help: "Longest page body (suffixes K, M, G).", default: defaults.limits.maxDocumentBytes,
        shown: "64M", in: 1...Int(Int32.max) * 16)
    static let maxStringBytes = Declared.byteCount(
        "--max-string-bytes", help: "Longest string, key or number, as written.",
        default: defaults.limits.maxTokenBytes, shown: "1M", in: 1...Int(Int32.max))
    static let maxDepth = Declared.integer(
        "--max-depth", help: "Deepest nesting of arrays and objects.", default: defaults.limits.maxDepth,
        in: 2...100_000)
    static let maxPageNotes = Declared.integer(
        "--max-page-notes", help: "Most notes on one page.", default: defaults.maxPageNotes, in: 0...Int(Int32.max))
    static let itemsPath = Declared.text(
        "--items-path", value: "path",
        help: "Path of the notes array, e.g. results or /data (dotted, or a JSON Pointer).",
        defaultShown: "notes")
    static let nextPath = Declared.text(
        "--next-path", value: "path", help: "Path of the next cursor or URL, e.g. next.", defaultShown: "next_cursor")
    static let idPath = Declared.text(
        "--id-path", value: "path", help: "Path of a note's id, relative to the note.",
        defaultShown: "id, else the one of _id, uuid, pk… it has")
    static let titlePath = Declared.text(
        "--title-path", value: "path",
        help: "Path of a note's title, relative to the note, e.g. attributes.title: then required.",
        defaultShown: "title, required of 'notes' items only")
    static let noTitle = Declared.flag("--no-title", help: "Notes have no title: none is read or kept.")

    static let specs: [CommandSpec.Option] = [
        format.spec, maxPageBytes.spec, maxStringBytes.spec, maxDepth.spec, maxPageNotes.spec, itemsPath.spec,
        nextPath.spec, idPath.spec, titlePath.spec, noTitle.spec,
    ]

    init(configuration: PageConfiguration, format: Format) {
        self.configuration = configuration
        self.format = format
    }

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let limits = JSONLimits(
            maxDocumentBytes: try parsed[Self.maxPageBytes], maxTokenBytes: try parsed[Self.maxStringBytes],
            maxDepth: try parsed[Self.maxDepth])
        let defaults = Self.defaults
        configuration = PageConfiguration(
            limits: limits,
            maxPageNotes: try parsed[Self.maxPageNotes],
            itemsPath: try Self.path(parsed, Self.itemsPath) ?? defaults.itemsPath,
            nextPath: try Self.path(parsed, Self.nextPath) ?? defaults.nextPath
        )
        configuration.idPath = try Self.path(parsed, Self.idPath) ?? defaults.idPath
        if try parsed[Self.noTitle] {
            if parsed.has(Self.titlePath) {
                throw UsageError("\(Self.noTitle.name) and \(Self.titlePath.name) cannot go together")
            }
            configuration.titlePath = nil
        } else {
            configuration.titlePath = try Self.path(parsed, Self.titlePath) ?? defaults.titlePath
            // A title asked for is required; otherwise only of the notes contract's `notes`.
            if !parsed.has(Self.titlePath) { configuration.titleRule = .whenItemsAreNotes }
        }
        // Paths not given are found on the first page when it does not have them where the defaults say.
        if !parsed.has(Self.itemsPath) { configuration.detects.insert(.items) }
        if !parsed.has(Self.nextPath) { configuration.detects.insert(.next) }
        if !parsed.has(Self.idPath) { configuration.detects.insert(.id) }
        format = try parsed[Self.format]
        configuration.keepsJSON = format == .ndjson
        if let problem = configuration.pathProblem { throw UsageError("Invalid paths: \(problem)") }
    }

    /// The path `option` gives, if it is given: dotted, or a JSON Pointer when it starts with `/`.
    /// - Throws: ``UsageError`` naming the option when the text cannot be a path.
    static func path(_ parsed: ParsedArguments, _ option: Declared<String?>) throws(UsageError) -> FieldPath? {
        guard let text = try parsed[option] else { return nil }
        do {
            return try FieldPath.parse(text)
        } catch {
            throw UsageError("Invalid \(option.name): \(error)")
        }
    }
}
