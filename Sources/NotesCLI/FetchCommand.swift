import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `notes-page fetch [--all] [<url>]`: walks the endpoint's pages, streaming each through the decoder.
struct FetchCommand {
    /// The library's defaults are the command's: the help text says them, the parser falls back to them.
    private static let defaults = FetchConfiguration()

    static let spec = CommandSpec(
        name: "notes-page fetch",
        overview: "Fetch notes from a cursor-paginated endpoint: one page, or every page with --all.",
        arguments: [.init("url", help: "The endpoint, e.g. https://api.example/notes. Default: $NOTES_URL.")],
        options: [
            .init("--all", help: "Fetch every page, not just the first."),
            .init("--cursor", value: "token", help: "Start at this cursor instead of the first page."),
            .init("--max-pages", value: "n", help: "Stop after this many pages."),
            .init("--max-notes", value: "n", help: "Stop after the page that brings the notes to this many."),
            .init("-o", "--output", value: "file", help: "Write the notes to this file instead of standard output."),
            .init("--state", value: "file", help: "Keep progress here after each page; run again to resume."),
            .init(
                "--sqlite", value: "file",
                help:
                    "Keep the notes in this SQLite database, a row per id, each page one transaction with the walk's state; run again to resume, or when complete to refresh."
            ),
            .init(
                "--postgres", value: "url",
                help:
                    "Keep the notes in a PostgreSQL table instead (libpq's URI or connection string, and its PG* environment), each page one transaction with the walk's state."
            ),
            .init("--schema", value: "name", help: "The schema of --postgres. Default: public."),
            .init("--table", value: "name", help: "The table of --sqlite or --postgres. Default: notes."),
            .init(
                "--since-path", value: "path",
                help:
                    "Incremental sync: the records' field whose highest value the next run asks from, e.g. updated_at."),
            .init(
                "--since-param", value: "name",
                help: "The query parameter that sends it, e.g. since (with --since-path)."),
            .init(
                "--lookback", value: "duration",
                help: "Ask from that much before the highest value (e.g. 30s, 5m, 1h). Default: 0."),
            .init(
                "--retries", value: "n",
                help: "Retries of a failing page after the first attempt. Default: \(defaults.retries)."),
            .init(
                "--timeout", value: "seconds",
                help:
                    "Seconds without a byte (connecting, TLS, head, body) before an attempt fails. Default: \(Int(defaults.idleTimeout))."
            ),
            .init(
                "--page-timeout", value: "seconds",
                help: "Seconds one attempt at a page may take in all. Default: \(Int(defaults.pageTimeout))."),
            .init(
                "--max-wait", value: "seconds",
                help:
                    "Longest wait for a rate limit to reset; longer ends the run (69). Default: \(Int(defaults.maxWait))."
            ),
            .init("--rate", value: "n", help: "At most this many requests a second, parallel ones included."),
            .init(
                "--cacert", value: "file", help: "Trust this PEM file of certificate authorities (a private server)."),
            .init(
                "--transport", value: "name",
                help:
                    "curl (libcurl) or urlsession (Foundation's URLSession, as on iOS). Default: \(Transport.default)."),
            .init("--header", value: "'Name: value'", help: "An extra request header (repeatable).", repeatable: true),
            .init("--token-file", value: "file", help: "Read the bearer token from this file. Default: $NOTES_TOKEN."),
            .init("--quiet", help: "No progress and no summary on standard error."),
        ] + PageOptions.specs + PaginationOptions.specs
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

    /// The HTTP libraries `--transport` chooses from.
    enum Transport: String {
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
        else { throw UsageError("Invalid URL '\(text)': expected http:// or https://") }
        if let problem = FetchLimits.urlProblem(url.absoluteString, what: "the endpoint") {
            throw UsageError("Invalid URL '\(text.prefix(200))': \(problem)")
        }
        self.url = url
        all = parsed.has("--all")
        pagination = try PaginationOptions.pagination(parsed, endpoint: url)
        if let cursor = parsed.value("--cursor") {
            guard let location = pagination.location(cursor: cursor) else {
                throw UsageError(
                    "Invalid --cursor '\(cursor.prefix(40))' for --paginate \(pagination): expected a number")
            }
            start = location
            startsAtCursor = true
        } else {
            start = pagination.start(endpoint: url)
        }
        maxPages = parsed.has("--max-pages") ? try parsed.integer("--max-pages", default: 0, in: 1...Int.max) : nil
        maxNotes = parsed.has("--max-notes") ? try parsed.integer("--max-notes", default: 0, in: 1...Int.max) : nil
        outputPath = parsed.value("--output").flatMap { $0 == "-" ? nil : $0 }
        statePath = parsed.value("--state")
        quiet = parsed.has("--quiet")
        options = try PageOptions(parsed)
        sqlitePath = parsed.value("--sqlite")
        if let sqlitePath {
            for option in ["--output", "--state", "--format"] where parsed.has(option) {
                throw UsageError(
                    "--sqlite and \(option) cannot go together: the database holds the notes and the state")
            }
            guard !sqlitePath.isEmpty else { throw UsageError("--sqlite needs a file name") }
            options.configuration.keepsJSON = true
        }
        postgres = parsed.value("--postgres")
        if let postgres {
            for option in ["--output", "--state", "--format", "--sqlite"] where parsed.has(option) {
                throw UsageError(
                    "--postgres and \(option) cannot go together: the database holds the notes and the state")
            }
            guard !postgres.isEmpty else { throw UsageError("--postgres needs a connection URI or string") }
            options.configuration.keepsJSON = true
        }
        if let name = parsed.value("--schema") {
            guard postgres != nil else { throw UsageError("--schema needs --postgres") }
            guard SQLiteDestination.isValidTableName(name) else {
                throw UsageError(
                    "Invalid --schema '\(name.prefix(40))': letters, digits and _, not starting with a digit")
            }
            schema = name
        }
        if let name = parsed.value("--table") {
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

        var configuration = FetchConfiguration(page: options.configuration)
        configuration.page.duplicates = try PaginationOptions.duplicates(parsed)
        let defaults = Self.defaults
        configuration.parallel = try parsed.integer("--parallel", default: defaults.parallel, in: 1...64)
        if parsed.has("--no-early-requests") { configuration.earlyRequests = false }
        configuration.retries = try parsed.integer("--retries", default: defaults.retries, in: 0...100)
        configuration.idleTimeout = Double(
            try parsed.integer("--timeout", default: Int(defaults.idleTimeout), in: 1...86_400))
        configuration.pageTimeout = Double(
            try parsed.integer("--page-timeout", default: Int(defaults.pageTimeout), in: 1...604_800))
        configuration.maxWait = Double(
            try parsed.integer("--max-wait", default: Int(defaults.maxWait), in: 0...604_800))
        if parsed.has("--rate") {
            configuration.rate = Double(try parsed.integer("--rate", default: 0, in: 1...100_000))
        }
        if let caFile = parsed.value("--cacert") {
            guard (try? readFile(caFile, limit: FetchLimits.maxCAFileBytes)) != nil else {
                throw UsageError("Cannot read the CA file '\(caFile)'")
            }
            self.caFile = caFile
        }
        let transportName = try parsed.choice(
            "--transport", default: Transport.default.rawValue, from: Transport.available.map(\.rawValue))
        transport = Transport(rawValue: transportName)!
        if transport == .urlsession, caFile != nil {
            throw UsageError(
                "--cacert works with --transport curl only: URLSession on Linux cannot trust a private certificate authority"
            )
        }
        for line in parsed.all("--header") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw UsageError("Invalid header '\(line.prefix(40))': expected 'Name: value'")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            configuration.headers.append(HTTPHeader(String(line[..<colon]), String(value)))
        }
        if let tokenFile = parsed.value("--token-file") {
            guard let bytes = try? readFile(tokenFile, limit: FetchLimits.maxTokenFileBytes) else {
                throw UsageError("Cannot read the token file '\(tokenFile)'")
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
        let path = try PageOptions.path(parsed, "--since-path")
        let parameter = parsed.value("--since-param")
        guard let path, let parameter else {
            if path != nil { throw UsageError("--since-path needs --since-param: the query parameter that sends it") }
            if parameter != nil { throw UsageError("--since-param needs --since-path: the field it is the highest of") }
            if parsed.has("--lookback") { throw UsageError("--lookback needs --since-path and --since-param") }
            return nil
        }
        guard !parameter.isEmpty, parameter.utf8.count <= 256 else {
            throw UsageError("Invalid --since-param: a name of 1 to 256 bytes")
        }
        guard canKeep else {
            throw UsageError(
                "--since-path needs --sqlite, --postgres or --state: somewhere to keep the highest value between runs")
        }
        var lookback = 0.0
        if let text = parsed.value("--lookback") {
            guard let seconds = Self.duration(text) else {
                throw UsageError(
                    "Invalid --lookback '\(text.prefix(40))': expected a duration such as 30s, 5m, 2h or 1d")
            }
            lookback = seconds
        }
        return IncrementalSync(path: path, parameter: parameter, lookback: lookback)
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
