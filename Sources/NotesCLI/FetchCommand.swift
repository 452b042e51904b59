import ArgumentParsing
import NotesFetch

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
        } else {
            start = pagination.start(endpoint: url)
        }
        maxPages = parsed.has("--max-pages") ? try parsed.integer("--max-pages", default: 0, in: 1...Int.max) : nil
        maxNotes = parsed.has("--max-notes") ? try parsed.integer("--max-notes", default: 0, in: 1...Int.max) : nil
        outputPath = parsed.value("--output").flatMap { $0 == "-" ? nil : $0 }
        statePath = parsed.value("--state")
        quiet = parsed.has("--quiet")
        options = try PageOptions(parsed)
        if statePath != nil && outputPath == nil && options.format != .none {
            throw UsageError("--state needs --output: a resumed run must cut the output back to its last page")
        }

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
}
