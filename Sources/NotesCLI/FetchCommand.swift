import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `notes-page fetch [--all] [<url>]`: walks the endpoint's pages, streaming each through the decoder.
struct FetchCommand {
    /// The longest file `--cacert` names.
    static let maxCAFileBytes = 16 << 20
    /// The library's defaults are the command's: the help text says them, the parser falls back to them.
    private static let defaults = FetchConfiguration()

    // The options, each declared once: its help, its default and how its value reads.
    static let all = Declared.flag("--all", help: "Fetch every page, not just the first.")
    static let cursor = Declared.text(
        "--cursor", value: "token", help: "Start at this cursor instead of the first page.")
    static let maxPages = Declared<Int?>.integer("--max-pages", help: "Stop after this many pages.", in: 1...Int.max)
    static let maxNotes = Declared<Int?>.integer(
        "--max-notes", help: "Stop after the page that brings the notes to this many.", in: 1...Int.max)
    static let output = Declared.text(
        "-o", "--output", value: "file", help: "Write the notes to this file instead of standard output.")
    static let state = Declared.text(
        "--state", value: "file", help: "Keep progress here after each page; run again to resume.")
    static let sqlite = Declared.text(
        "--sqlite", value: "file",
        help:
            "Keep the notes in this SQLite database, a row per id, each page one transaction with the walk's state; run again to resume, or when complete to refresh."
    )
    static let postgres = Declared.text(
        "--postgres", value: "url",
        help:
            "Keep the notes in a PostgreSQL table instead (libpq's URI or connection string, and its PG* environment), each page one transaction with the walk's state."
    )
    static let schemaOption = Declared.text(
        "--schema", value: "name", help: "The schema of --postgres.", defaultShown: "public")
    static let tableOption = Declared.text(
        "--table", value: "name", help: "The table of --sqlite or --postgres.", defaultShown: "notes")
    static let sincePath = Declared.text(
        "--since-path", value: "path",
        help: "Incremental sync: the records' field whose highest value the next run asks from, e.g. updated_at.")
    static let sinceParam = Declared.text(
        "--since-param", value: "name", help: "The query parameter that sends it, e.g. since (with --since-path).")
    static let lookback = Declared.text(
        "--lookback", value: "duration", help: "Ask from that much before the highest value (e.g. 30s, 5m, 1h).",
        defaultShown: "0")
    static let retries = Declared<Int>.integer(
        "--retries", help: "Retries of a failing page after the first attempt.", default: defaults.retries,
        in: 0...100)
    static let timeout = Declared<Int>.integer(
        "--timeout", value: "seconds",
        help: "Seconds without a byte (connecting, TLS, head, body) before an attempt fails.",
        default: Int(defaults.idleTimeout), in: 1...86_400)
    static let pageTimeout = Declared<Int>.integer(
        "--page-timeout", value: "seconds", help: "Seconds one attempt at a page may take in all.",
        default: Int(defaults.pageTimeout), in: 1...604_800)
    static let maxWait = Declared<Int>.integer(
        "--max-wait", value: "seconds", help: "Longest wait for a rate limit to reset; longer ends the run (69).",
        default: Int(defaults.maxWait), in: 0...604_800)
    static let rate = Declared<Int?>.integer(
        "--rate", help: "At most this many requests a second, parallel ones included.", in: 1...100_000)
    static let cacert = Declared.text(
        "--cacert", value: "file", help: "Trust this PEM file of certificate authorities (a private server).")
    static let transportOption = Declared.choice(
        "--transport", value: "name", help: "curl (libcurl) or urlsession (Foundation's URLSession, as on iOS).",
        choices: Transport.available, default: Transport.default)
    static let header = Declared.repeated(
        "--header", value: "'Name: value'", help: "An extra request header (repeatable).")
    static let tokenFile = Declared.text(
        "--token-file", value: "file", help: "Read the bearer token from this file.", defaultShown: "$NOTES_TOKEN")
    static let quietOption = Declared.flag("--quiet", help: "No progress and no summary on standard error.")

    static let spec = CommandSpec(
        name: "notes-page fetch",
        overview: "Fetch notes from a cursor-paginated endpoint: one page, or every page with --all.",
        arguments: [.init("url", help: "The endpoint, e.g. https://api.example/notes. Default: $NOTES_URL.")],
        options: [
            all.spec, cursor.spec, maxPages.spec, maxNotes.spec, output.spec, state.spec, sqlite.spec, postgres.spec,
            schemaOption.spec, tableOption.spec, sincePath.spec, sinceParam.spec, lookback.spec, retries.spec,
            timeout.spec, pageTimeout.spec, maxWait.spec, rate.spec, cacert.spec, transportOption.spec, header.spec,
            tokenFile.spec, quietOption.spec,
        ] + PageOptions.specs + PaginationOptions.specs + sliceSpecs
    )

    var url: URL
    var all: Bool
    var start: PageLocation
    var maxPages: Int?
    var maxNotes: Int?
    var outputPath: String?
    var statePath: String?
    /// `--sqlite`: the database the notes are kept in, instead of an output file.
    var sqlitePath: String?
    /// `--postgres`: the server the notes are kept in, instead of an output file (libpq's connection string).
    var postgres: String?
    /// `--schema`: the schema of `--postgres`'s table.
    var schema = "public"
    var table = "notes"
    /// `--since-path` and `--since-param`: what this run asks from.
    var incremental: IncrementalSync?
    /// Whether `--cursor` chose the first page (otherwise the scheme's start of this run's endpoint).
    var startsAtCursor = false
    var quiet: Bool
    var options: PageOptions
    var configuration: FetchConfiguration
    /// How the pages follow one another.
    var pagination: any Pagination
    /// Certificate authorities to trust instead of the system's.
    var caFile: String?
    /// The HTTP library.
    var transport = Transport.default
    /// What to run to go on after a stop, when this fetch is part of a larger command (a sync's resource);
    /// `nil`: the fetch command itself.
    var resumeAdvice: String?
    /// The parent this walk is for, when `sync` walks a child resource into its table.
    var unit: ChildUnit?
    /// The time window this walk is of, when `sync` walks a sliced resource (its URL bounds it).
    var window: SliceWindow?
    /// `--slice-*`: the windows the endpoint is walked in, one after another.
    var slices: TimeSlices?
    /// The unit of work a `sync --worker` holds for this walk (`--postgres` only).
    var claim: UnitClaim?
    /// The range of pages this walk is of, when a `sync --worker` walks a resource split into ranges
    /// (`pages-per-unit`); its checkpoint is of the claim's run.
    var pages: PageRange?
    #if canImport(CPostgres)
        /// The connections a `sync --worker` keeps open between its walks.
        var sessions: PostgresSessions?
    #endif
    /// Whether the run says how `auto` paginates, after its first page (a sync says it once a resource).
    var saysPagination = true

    /// The HTTP libraries `--transport` chooses from.
    enum Transport: String, Sendable {
        case curl, urlsession

        /// This platform's, the default first: libcurl only where NotesFetch is built with it (Linux).
        #if canImport(CCurl)
            static let available: [Transport] = [.curl, .urlsession]
        #else
            static let available: [Transport] = [.urlsession]
        #endif
        static var `default`: Transport { available[0] }
    }

    /// Reads the options and the environment; refuses what cannot work before any connection.
    init(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
        guard let text = parsed.positionals.first ?? environment["NOTES_URL"], !text.isEmpty else {
            throw UsageError("No URL: give one, or set NOTES_URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { throw UsageError("Invalid URL '\(ParsedArguments.clip(text))': expected http:// or https://") }
        if let problem = PageLocator.urlProblem(url.absoluteString, what: "the endpoint") {
            throw UsageError("Invalid URL '\(text.prefix(200))': \(problem)")
        }
        self.url = url
        all = try parsed[Self.all]
        pagination = try PaginationOptions.pagination(parsed, endpoint: url)
        if let cursor = try parsed[Self.cursor] {
            guard let location = pagination.location(cursor: cursor) else {
                throw UsageError(
                    "Invalid --cursor '\(cursor.prefix(40))' for --paginate \(pagination): expected a number")
            }
            start = location
            startsAtCursor = true
        } else {
            start = pagination.start(endpoint: url)
        }
        maxPages = try parsed[Self.maxPages]
        maxNotes = try parsed[Self.maxNotes]
        outputPath = try parsed[Self.output].flatMap { $0 == "-" ? nil : $0 }
        statePath = try parsed[Self.state]
        quiet = try parsed[Self.quietOption]
        options = try PageOptions(parsed)
        sqlitePath = try parsed[Self.sqlite]
        if let sqlitePath {
            for option in [Self.output.name, Self.state.name, PageOptions.format.name] where parsed.has(option) {
                throw UsageError(
                    "--sqlite and \(option) cannot go together: the database holds the notes and the state")
            }
            guard !sqlitePath.isEmpty else { throw UsageError("--sqlite needs a file name") }
            options.configuration.keepsJSON = true
        }
        postgres = try parsed[Self.postgres]
        if let postgres {
            for option in [Self.output.name, Self.state.name, PageOptions.format.name, Self.sqlite.name]
            where parsed.has(option) {
                throw UsageError(
                    "--postgres and \(option) cannot go together: the database holds the notes and the state")
            }
            guard !postgres.isEmpty else { throw UsageError("--postgres needs a connection URI or string") }
            options.configuration.keepsJSON = true
        }
        if let name = try parsed[Self.schemaOption] {
            guard postgres != nil else { throw UsageError("--schema needs --postgres") }
            guard SQLiteDestination.isValidTableName(name) else {
                throw UsageError(
                    "Invalid --schema '\(name.prefix(40))': letters, digits and _, not starting with a digit")
            }
            schema = name
        }
        if let name = try parsed[Self.tableOption] {
            guard sqlitePath != nil || postgres != nil else { throw UsageError("--table needs --sqlite or --postgres") }
            guard SQLiteDestination.isValidTableName(name) else {
                throw UsageError(
                    "Invalid --table '\(name.prefix(40))': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
                )
            }
            table = name
        }
        if statePath != nil && outputPath == nil && options.format != .none {
            throw UsageError("--state needs --output: a resumed run must cut the output back to its last page")
        }
        incremental = try Self.incremental(parsed, canKeep: sqlitePath != nil || postgres != nil || statePath != nil)
        if incremental != nil { options.configuration.keepsJSON = true }
        // Validate only: every note is read, checked, its id taken and counted, and none is built (pages
        // fetched ahead or in parallel still build theirs: their ids reach the run's set from them). A store,
        // or a resumed run, which leaves out the notes of the run before, keeps them (as does an incremental
        // sync, which needs one of them).
        if options.format == .none, sqlitePath == nil, postgres == nil, statePath == nil {
            options.configuration.keepsNotes = false
        }
        slices = try Self.slices(parsed, hasTable: sqlitePath != nil || postgres != nil)

        var configuration = FetchConfiguration(page: options.configuration)
        configuration.page.duplicates = try parsed[PaginationOptions.onDuplicate]
        configuration.parallel = try parsed[PaginationOptions.parallel]
        if try parsed[PaginationOptions.noEarlyRequests] { configuration.earlyRequests = false }
        configuration.retries = try parsed[Self.retries]
        configuration.idleTimeout = Double(try parsed[Self.timeout])
        configuration.pageTimeout = Double(try parsed[Self.pageTimeout])
        configuration.maxWait = Double(try parsed[Self.maxWait])
        if let rate = try parsed[Self.rate] { configuration.rate = Double(rate) }
        if let caFile = try parsed[Self.cacert] {
            guard (try? readFile(caFile, limit: FetchCommand.maxCAFileBytes)) != nil else {
                throw UsageError("Cannot read the CA file '\(ParsedArguments.clip(caFile))'")
            }
            self.caFile = caFile
        }
        transport = try parsed[Self.transportOption]
        if transport == .urlsession, caFile != nil {
            throw UsageError(
                "--cacert works with --transport curl only: URLSession on Linux cannot trust a private certificate authority"
            )
        }
        for line in try parsed[Self.header] {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw UsageError("Invalid header '\(line.prefix(40))': expected 'Name: value'")
            }
            // A line break would end the field and start another: refused, and the value not shown.
            guard line.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                throw UsageError("Invalid header '\(line[..<colon].prefix(40))': a control character in it")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            configuration.headers.append(HTTPHeader(String(line[..<colon]), String(value)))
        }
        if let tokenFile = try parsed[Self.tokenFile] {
            guard let bytes = try? readFile(tokenFile, limit: FetchLimits.maxTokenFileBytes) else {
                throw UsageError("Cannot read the token file '\(ParsedArguments.clip(tokenFile))'")
            }
            configuration.token = Secret(
                String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
        } else if let token = environment["NOTES_TOKEN"], !token.isEmpty {
            configuration.token = Secret(token)
        }
        // The library refuses it too, before any request; here it is a usage error before anything starts.
        if let problem = configuration.credentialProblem(endpoint: url) { throw UsageError(problem) }
        self.configuration = configuration
    }

    /// `--since-path`, `--since-param` and `--lookback`, which go together and need somewhere to keep
    /// the highest value (`canKeep`: `--sqlite` or `--state`).
    static func incremental(_ parsed: ParsedArguments, canKeep: Bool) throws(UsageError) -> IncrementalSync? {
        let path = try PageOptions.path(parsed, sincePath)
        let parameter = try parsed[sinceParam]
        guard let path, let parameter else {
            if path != nil { throw UsageError("--since-path needs --since-param: the query parameter that sends it") }
            if parameter != nil { throw UsageError("--since-param needs --since-path: the field it is the highest of") }
            if parsed.has(lookback) { throw UsageError("--lookback needs --since-path and --since-param") }
            return nil
        }
        guard !parameter.isEmpty, parameter.utf8.count <= 256 else {
            throw UsageError("Invalid --since-param: a name of 1 to 256 bytes")
        }
        guard canKeep else {
            throw UsageError(
                "--since-path needs --sqlite, --postgres or --state: somewhere to keep the highest value between runs")
        }
        var seconds = 0.0
        if let text = try parsed[lookback] {
            guard let duration = Self.duration(text) else {
                throw UsageError(
                    "Invalid --lookback '\(text.prefix(40))': expected a duration such as 30s, 5m, 2h or 1d")
            }
            seconds = duration
        }
        return IncrementalSync(path: path, parameter: parameter, lookback: seconds)
    }

    /// Seconds in a duration: a whole number with s, m, h or d (seconds without one), at most 366 days.
    static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1.0
        if let last = text.last, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let value = Int(digits), value >= 0
        else { return nil }
        let seconds = Double(value) * unit
        return seconds <= 366 * 86_400 ? seconds : nil
    }
}
