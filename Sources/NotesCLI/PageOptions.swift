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

    static let specs: [CommandSpec.Option] = [
        .init(
            "--format", value: "format",
            help: "ndjson (each note's JSON, one per line), ids, or none (validate only). Default: ndjson."),
        .init("--max-page-bytes", value: "bytes", help: "Longest page body (suffixes K, M, G). Default: 64M."),
        .init("--max-string-bytes", value: "bytes", help: "Longest string, key or number, as written. Default: 1M."),
        .init("--max-depth", value: "n", help: "Deepest nesting of arrays and objects. Default: 64."),
        .init("--max-page-notes", value: "n", help: "Most notes on one page. Default: 100000."),
        .init(
            "--items-path", value: "path",
            help: "Path of the notes array, e.g. results or /data (dotted, or a JSON Pointer). Default: notes."),
        .init("--next-path", value: "path", help: "Path of the next cursor or URL, e.g. next. Default: next_cursor."),
        .init(
            "--id-path", value: "path",
            help: "Path of a note's id, relative to the note. Default: id, else the one of _id, uuid, pk… it has."),
        .init(
            "--title-path", value: "path",
            help:
                "Path of a note's title, relative to the note, e.g. attributes.title: then required. Default: title, required of 'notes' items only."
        ),
        .init("--no-title", help: "Notes have no title: none is read or kept."),
    ]

    init(configuration: PageConfiguration, format: Format) {
        self.configuration = configuration
        self.format = format
    }

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let defaults = PageConfiguration()
        let limits = JSONLimits(
            maxDocumentBytes: try parsed.byteCount(
                "--max-page-bytes", default: defaults.limits.maxDocumentBytes, in: 1...Int(Int32.max) * 16),
            maxTokenBytes: try parsed.byteCount(
                "--max-string-bytes", default: defaults.limits.maxTokenBytes, in: 1...Int(Int32.max)),
            maxDepth: try parsed.integer("--max-depth", default: defaults.limits.maxDepth, in: 2...100_000)
        )
        configuration = PageConfiguration(
            limits: limits,
            maxPageNotes: try parsed.integer(
                "--max-page-notes", default: defaults.maxPageNotes, in: 0...Int(Int32.max)),
            itemsPath: try Self.path(parsed, "--items-path") ?? defaults.itemsPath,
            nextPath: try Self.path(parsed, "--next-path") ?? defaults.nextPath
        )
        configuration.idPath = try Self.path(parsed, "--id-path") ?? defaults.idPath
        if parsed.has("--no-title") {
            if parsed.has("--title-path") { throw UsageError("--no-title and --title-path cannot go together") }
            configuration.titlePath = nil
        } else {
            configuration.titlePath = try Self.path(parsed, "--title-path") ?? defaults.titlePath
            // A title asked for is required; otherwise only of the notes contract's `notes`.
            if !parsed.has("--title-path") { configuration.titleRule = .whenItemsAreNotes }
        }
        // Paths not given are found on the first page when it does not have them where the defaults say.
        if !parsed.has("--items-path") { configuration.detects.insert(.items) }
        if !parsed.has("--next-path") { configuration.detects.insert(.next) }
        if !parsed.has("--id-path") { configuration.detects.insert(.id) }
        let formatName = try parsed.choice(
            "--format", default: Format.ndjson.rawValue, from: Format.allCases.map(\.rawValue))
        format = Format(rawValue: formatName)!
        configuration.keepsJSON = format == .ndjson
        if let problem = configuration.pathProblem { throw UsageError("Invalid paths: \(problem)") }
    }

    /// The path `option` gives, if it is given: dotted, or a JSON Pointer when it starts with `/`.
    /// - Throws: ``UsageError`` naming the option when the text cannot be a path.
    static func path(_ parsed: ParsedArguments, _ option: String) throws(UsageError) -> FieldPath? {
        guard let text = parsed.value(option) else { return nil }
        do {
            return try FieldPath.parse(text)
        } catch {
            throw UsageError("Invalid \(option): \(error)")
        }
    }
}
