import ArgumentParsing
import NotesFetch
import NotesStore
import NotesSync
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `notes-page sync SOURCE (--sqlite FILE | --postgres URL | -o DIR)`: every resource of a source file
/// walked to its end, each into a table (or a file) of its own, one after another.
///
/// A resource's keys are `fetch`'s options without `--`, read by `fetch`'s own parser, so that they never
/// drift; each resource is a `fetch --all` into its table (`--sqlite FILE --table NAME`) or its file
/// (`-o DIR/NAME.ndjson --state DIR/NAME.state`), resumable as that is. Every resource is checked before
/// the first request: a typo, a wrong value or a secret written in the file is a usage error naming the
/// file, the line and the column.
///
/// A resource with a parent (``SyncResource``) is a `fetch` per parent record, made when its parent's walk
/// ends (`SyncCommand+Run.swift`), each into the child's table with a checkpoint of its own.
struct SyncCommand {
    static let sqlite = Declared.text(
        "--sqlite", value: "file", help: "Keep each resource in a table of this SQLite database, named for it.")
    static let postgres = Declared.text(
        "--postgres", value: "url",
        help: "Keep each resource in a table of this PostgreSQL database instead (libpq's URI or connection string).")
    static let schemaOption = Declared.text(
        "--schema", value: "name", help: "The schema of --postgres's tables.", defaultShown: "public")
    static let output = Declared.text(
        "-o", "--output", value: "dir", help: "Keep each resource in DIR/NAME.ndjson, with its state beside it.")
    static let resourcesOption = Declared.text(
        "--resources", value: "names", help: "Only these resources, comma-separated, in the source's order.")
    static let failFast = Declared.flag("--fail-fast", help: "Stop at the first resource that fails.")
    static let full = Declared.flag(
        "--full",
        help: "Walk every resource again, and every child for each parent, not only for the parents that changed.")
    static let parallel = Declared<Int>.integer(
        "--parallel", value: "n",
        help: "Resources walked at once (each with its own pages in flight); their lines are prefixed with the name.",
        default: 1, in: 1...64)
    static let quietOption = Declared.flag("-q", "--quiet", help: "Print errors only.")
    static let worker = Declared.flag(
        "--worker",
        help:
            "Drain the sync's units of work (--postgres) together with any other workers, on this machine or others; exit when none is left.",
        group: "Workers")
    static let status = Declared.flag(
        "--status",
        help: "Show the sync's latest run (--postgres): units per resource, the slowest, the failed, the workers.",
        group: "Workers")
    static let runLabel = Declared.text(
        "--run", value: "label",
        help:
            "The run to join or start, by label (a scheduler's job id): a worker of a run that is over exits at once.",
        group: "Workers")
    static let lease = Declared<Int>.integer(
        "--lease", value: "seconds", help: "How long a worker's claim on a unit lasts unless renewed.", default: 30,
        in: 2...3600, group: "Workers")
    static let unitRetries = Declared<Int>.integer(
        "--unit-retries", value: "n", help: "Times a unit's walk may fail before the unit is marked failed.",
        default: 3, in: 1...100, group: "Workers")
    static let wait = Declared.flag(
        "--wait",
        help: "With --worker: when no run is open, wait for the next one instead of exiting (never start one).",
        group: "Workers")

    static let spec = CommandSpec(
        name: "notes-page sync",
        overview:
            "Walk every resource of a source file (YAML or JSON) to its end, each into a table or a file of its own.",
        arguments: [
            .init("source", help: "The source file: base-url, auth, defaults and resources.", isOptional: false)
        ],
        options: [
            sqlite.spec, postgres.spec, schemaOption.spec, output.spec, resourcesOption.spec, parallel.spec,
            full.spec, failFast.spec, quietOption.spec, worker.spec, status.spec, runLabel.spec, lease.spec,
            unitRetries.spec, wait.spec,
        ]
    )

    /// `fetch`'s options that `sync` sets for each resource: a resource may not.
    static let reserved: Set<String> = [
        "all", "cursor", "output", "state", "sqlite", "postgres", "schema", "table", "quiet", "token-file", "transport",
        "slice-path", "slice-params", "slice-step", "slice-from", "slice-to", "slice-lookback", "slice-format",
    ]

    /// Every resource of the source, in its order, selected or not (a child's parent may be walked before).
    var resources: [SyncResource]
    /// Whether each resource is walked in this run (`--resources`).
    var selected: [Bool]
    /// The SQLite file a sync with children keeps its tables in.
    var database: String?
    /// Or the PostgreSQL database and schema.
    var postgresTables: (connection: String, schema: String)?
    /// Or the directory of one file per resource (a child resource's: one per parent, in `DIR/NAME/`).
    var directory: String?
    var environment: [String: String]
    var full: Bool
    /// The token endpoint every walk takes its access token from (`auth` of an OAuth 2.0 type).
    var oauth2: OAuth2Token.Configuration?
    /// The API key every walk sends as a query parameter (`auth` of type api-key with `query`).
    var queryKey: (name: String, key: Secret)?
    /// What signs every walk's requests (`auth` of type aws-sigv4).
    var awsSigV4: AWSSigV4?
    var failFast: Bool
    var quiet: Bool
    /// Resources walked at once.
    var width: Int
    /// `--worker` or `--status`: the sync's units of work in its PostgreSQL schema.
    var workers: Workers?

    /// How a worker works, or that `--status` is asked.
    struct Workers: Sendable {
        var showsStatus: Bool
        var label: String?
        var lease: Int
        var retries: Int
        var waits: Bool
    }

    /// Reads the source and checks every resource against `fetch`'s options; no request is made.
    init(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
        guard let path = parsed.positionals.first else { throw UsageError("No source file: give its path") }
        let source: SourceFile
        do {
            source = try SourceFile(path: path)
        } catch {
            throw UsageError(error.description)
        }
        let sqlite = try parsed[Self.sqlite]
        let postgres = try parsed[Self.postgres]
        let directory = try parsed[Self.output]
        guard [sqlite, postgres, directory].compactMap({ $0 }).count == 1 else {
            throw UsageError("Give one of --sqlite FILE, --postgres URL and -o DIR: where the resources go")
        }
        let schema = try parsed[Self.schemaOption]
        if schema != nil, postgres == nil { throw UsageError("--schema needs --postgres") }
        quiet = try parsed[Self.quietOption]
        failFast = try parsed[Self.failFast]
        width = try parsed[Self.parallel]
        full = try parsed[Self.full]
        database = sqlite
        postgresTables = postgres.map { ($0, schema ?? "public") }
        let isWorker = try parsed[Self.worker]
        let showsStatus = try parsed[Self.status]
        let label = try parsed[Self.runLabel]
        if isWorker || showsStatus {
            guard postgres != nil else {
                throw UsageError(
                    "\(isWorker ? "--worker" : "--status") needs --postgres: the units of work are kept there")
            }
            guard !(isWorker && showsStatus) else { throw UsageError("--worker and --status do not go together") }
            if failFast {
                throw UsageError("--fail-fast is not a worker's: a unit that fails is retried, then marked failed")
            }
            if let label, label.isEmpty || label.utf8.count > 200 {
                throw UsageError("--run takes a label of 1 to 200 bytes")
            }
            workers = Workers(
                showsStatus: showsStatus, label: label, lease: try parsed[Self.lease],
                retries: try parsed[Self.unitRetries], waits: try parsed[Self.wait])
            if workers?.waits == true, showsStatus { throw UsageError("--wait is a worker's (--worker)") }
        } else {
            for (name, given) in [
                ("--run", label != nil), ("--lease", parsed.has("--lease")),
                ("--unit-retries", parsed.has("--unit-retries")),
                ("--wait", try parsed[Self.wait]),
            ] where given {
                throw UsageError("\(name) is a worker's: give --worker (or --status)")
            }
        }
        selected = Array(repeating: true, count: source.resources.count)
        if let names = try parsed[Self.resourcesOption] {
            let wanted = names.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
            guard !wanted.isEmpty else { throw UsageError("--resources names no resource") }
            for name in wanted where !source.resources.contains(where: { $0.name == name }) {
                let known = source.resources.prefix(10).map(\.name).joined(separator: ", ")
                throw UsageError(
                    "--resources names '\(SourceError.clip(name))', which the source does not have (it has \(known)\(source.resources.count > 10 ? ", …" : ""))"
                )
            }
            selected = source.resources.map { wanted.contains($0.name) }
        }
        self.directory = directory
        for resource in source.resources where resource.parent != nil && !resource.includeFromParent.isEmpty {
            guard sqlite != nil || postgres != nil else {
                throw UsageError(
                    "\(source.file):\(resource.mark): resource '\(resource.name)': include-from-parent adds columns to a table (--sqlite FILE or --postgres URL); with -o DIR each parent's notes are in a file named by its key"
                )
            }
        }
        var environment = environment
        // The token as fetch takes it, or the header that carries the credentials, which no message shows.
        var token: [String] = []
        var authHeader: (text: String, shown: String)?
        switch source.auth {
        case .bearer(.environment(let name)):
            environment["NOTES_TOKEN"] = try Self.resolve(.environment(name), "the token", environment, source.file)
        case .bearer(.file(let path)):
            token = ["--token-file", path]
        case .basic(let username, let password):
            let user: String
            do {
                user = try SourceSecret.expand(username, from: environment)
            } catch {
                throw UsageError("\(source.file): the username: \(error.message)")
            }
            let pair = user + ":" + (try Self.resolve(password, "the password", environment, source.file))
            authHeader = ("Authorization: Basic " + Data(pair.utf8).base64EncodedString(), "Authorization: Basic …")
        case .apiKey(let header, let key):
            authHeader = ("\(header): " + (try Self.resolve(key, "the key", environment, source.file)), "\(header): …")
        case .awsSigV4(let region, let service, let accessKeyID, let secretAccessKey):
            awsSigV4 = AWSSigV4(
                region: region, service: service,
                accessKeyID: Secret(try Self.resolve(accessKeyID, "the access-key-id", environment, source.file)),
                secretAccessKey: Secret(
                    try Self.resolve(secretAccessKey, "the secret-access-key", environment, source.file)))
        case .apiKeyQuery(let parameter, let key):
            queryKey = (parameter, Secret(try Self.resolve(key, "the key", environment, source.file)))
        case .oauth2(let oauth2):
            self.oauth2 = try Self.oauth2(oauth2, environment, source.file)
        case nil:
            break
        }
        if authHeader != nil || oauth2 != nil || queryKey != nil || awsSigV4 != nil || source.auth == nil {
            environment["NOTES_TOKEN"] = nil
        }
        // The command that goes on where a stopped sync stopped: the same one.
        var words = ["notes-page", "sync", path]
        for (option, value) in [
            ("--sqlite", sqlite), ("--postgres", postgres), ("--schema", schema), ("-o", directory),
        ] {
            if let value { words += [option, value] }
        }
        if let names = try parsed[Self.resourcesOption] { words += ["--resources", names] }
        // A PostgreSQL URL may hold a password: that command is not shown.
        let again = postgres == nil ? ": " + words.map(shellQuote).joined(separator: " ") : "."
        resources = []
        for resource in source.resources {
            let destination: [String]
            if let sqlite {
                destination = ["--sqlite", sqlite, "--table", resource.name]
            } else if let postgres {
                destination =
                    ["--postgres", postgres, "--table", resource.name] + (schema.map { ["--schema", $0] } ?? [])
            } else {
                destination = [
                    "-o", "\(directory!)/\(resource.name).ndjson", "--state", "\(directory!)/\(resource.name).state",
                ]
            }
            let parent = resource.parent.flatMap { name in source.resources.firstIndex { $0.name == name } }
            let url = parent == nil ? try Self.url(of: resource, in: source) : resource.path
            var secrets: [(value: String, written: String)] = []
            let options = try Self.arguments(
                resource, defaults: source.defaults, file: source.file, environment: environment, secrets: &secrets)
            if let authHeader { secrets.append((authHeader.text, authHeader.shown)) }
            let arguments =
                ["--all"] + destination + token + (authHeader.map { ["--header", $0.text] } ?? [])
                + (quiet ? ["--quiet"] : []) + options
            let folder = source.baseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
            do {
                var command = try FetchCommand(
                    try ParsedArguments(
                        [parent == nil ? url : "https://example.invalid/"] + arguments, spec: FetchCommand.spec),
                    environment: environment)
                command.resumeAdvice = "Run the same sync again to go on\(again)"
                var made = SyncResource(
                    name: resource.name, parent: parent, path: url, arguments: arguments,
                    files: parent == nil
                        ? nil : directory.map { NDJSONResourceFiles(directory: $0, name: resource.name) },
                    folder: folder,
                    origin: folder.flatMap { Origin($0) }, includeFromParent: resource.includeFromParent,
                    resumeAdvice: "Run the same sync again to go on\(again)", secrets: secrets, command: command)
                if let slice = resource.slice {
                    let place = "\(source.file):\(slice.mark): resource '\(resource.name)'"
                    guard directory == nil else {
                        throw UsageError(
                            "\(place): a sliced resource is kept in a table (--sqlite FILE or --postgres URL), one walk a window; with -o DIR its windows would share one file"
                        )
                    }
                    guard command.incremental == nil else {
                        throw UsageError(
                            "\(place): slice and since-path do not go together: a later run of a sliced resource adds the windows after the last one"
                        )
                    }
                    made.slices = try Self.slices(slice, of: resource, file: source.file)
                }
                if let pages = resource.pagesPerUnit {
                    made.pagesPerUnit = try Self.pagesPerUnit(
                        pages, of: resource, command: command, workers: workers != nil, file: source.file)
                }
                if parent != nil {
                    // Checked with a record that has every field the placeholders read: a mistake is found
                    // before any request.
                    made.command = try made.command(
                        for: try made.sampleParent(), parentRun: 1, environment: environment)
                }
                resources.append(made)
            } catch let error as ParentError {
                throw UsageError("\(source.file):\(resource.mark): resource '\(resource.name)': \(error.message)")
            } catch let error as UsageError where error.message.hasPrefix("\(source.file):") {
                throw error  // placed already (a slice's)
            } catch {
                // At the key `fetch` names, if it names one; never with a secret's value in it.
                var message = (error as? UsageError)?.message ?? "\(error)"
                for secret in secrets { message = message.replacing(secret.value, with: secret.written) }
                let entry = (source.defaults + resource.options).last { message.contains("'--\($0.key)'") }
                let place = entry.map { "\(source.file):\($0.value.mark)" } ?? "\(source.file):\(resource.mark)"
                throw UsageError("\(place): resource '\(resource.name)': \(message)")
            }
        }
        self.environment = environment
        for child in resources {
            guard let parent = child.parent, resources[parent].slices != nil || resources[parent].pagesPerUnit != nil
            else { continue }
            let what = resources[parent].slices != nil ? "sliced resource" : "resource split into ranges of pages"
            throw UsageError(
                "\(source.file): resource '\(child.name)' has the \(what) '\(resources[parent].name)' as its parent: a \(what)'s records cannot be parents yet"
            )
        }
        if directory != nil {
            if full {
                throw UsageError(
                    "--full walks again into tables (--sqlite, --postgres); files (-o DIR) are a copy that resumes: remove DIR to start over"
                )
            }
            // A parent's lines are its children's parents: each must be the record itself.
            for child in resources {
                guard let parent = child.parent, resources[parent].command.options.format != .ndjson else {
                    continue
                }
                throw UsageError(
                    "resource '\(resources[parent].name)' has children ('\(child.name)'): with -o DIR its records are their parents, so its format is ndjson, not \(resources[parent].command.options.format.rawValue)"
                )
            }
        }
        if let directory {
            do {
                try System.makeDirectory(directory)
                for resource in resources where resource.parent != nil {
                    try System.makeDirectory(directory + "/" + resource.name)
                }
            } catch {
                throw UsageError("-o: \(error)")
            }
        }
    }

    /// The OAuth 2.0 client of `auth`: its token endpoint must be https (or http to this machine), since
    /// the client's secret goes there.
    private static func oauth2(_ source: SourceOAuth2, _ environment: [String: String], _ file: String)
        throws(UsageError) -> OAuth2Token.Configuration
    {
        guard let url = URL(string: source.tokenURL), PageLocator.urlProblem(source.tokenURL) == nil,
            url.scheme == "https" || Origin(source.tokenURL)?.isLoopback == true
        else {
            throw UsageError(
                "\(file): the token-url '\(SourceError.clip(source.tokenURL))' is not a valid https URL (plain http goes only to this machine)"
            )
        }
        let clientID: String
        do {
            clientID = try SourceSecret.expand(source.clientID, from: environment)
        } catch {
            throw UsageError("\(file): the client-id: \(error.message)")
        }
        let secret = try source.clientSecret.map { secret throws(UsageError) in
            Secret(try resolve(secret, "the client-secret", environment, file))
        }
        return OAuth2Token.Configuration(
            tokenURL: source.tokenURL, clientID: clientID, clientSecret: secret, scopes: source.scopes,
            clientAuthentication: source.clientAuth == "post" ? .post : .basic,
            grant: source.refreshTokenFile.map { .refreshToken(RefreshTokenFile(path: $0)) } ?? .clientCredentials)
    }

    /// The value of a secret of `auth`: the environment variable's, or the file's (trimmed, at most 64 KiB).
    private static func resolve(_ secret: SourceSecret, _ what: String, _ environment: [String: String], _ file: String)
        throws(UsageError) -> String
    {
        switch secret {
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw UsageError("\(file): \(what)'s variable \(SourceError.clip(name)) is not set")
            }
            return value
        case .file(let path):
            guard let bytes = try? readFile(path, limit: FetchLimits.maxTokenFileBytes),
                case let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace(), !text.isEmpty
            else {
                throw UsageError("\(file): \(what)'s file '\(SourceError.clip(path))' cannot be read, or is empty")
            }
            return text
        }
    }

    /// The resource's URL: the path when it is a whole URL, else the path after the base URL (as a folder:
    /// `https://x/v1` and `notes` are `https://x/v1/notes`; a `/` the path starts with is dropped).
    private static func url(of resource: SourceResource, in source: SourceFile) throws(UsageError) -> String {
        let path = resource.path
        let place = "\(source.file):\(resource.mark): resource '\(resource.name)'"
        if ParentTemplate.isWholeURL(path) { return path }
        guard let base = source.baseURL else {
            throw UsageError(
                "\(place): the path '\(SourceError.clip(path))' is not a whole URL and the source has no base-url")
        }
        guard ParentTemplate.isWholeURL(base) else {
            throw UsageError("\(source.file): base-url '\(SourceError.clip(base))' is not an http:// or https:// URL")
        }
        let folder = base.hasSuffix("/") ? base : base + "/"
        return folder + path.drop { $0 == "/" }
    }

    /// `fetch`'s arguments for the resource's options over the defaults (a resource's key replaces the
    /// default's): a flag is `true` or `false`, a repeatable option takes a list, any other one value.
    private static func arguments(
        _ resource: SourceResource, defaults: [SourceEntry], file: String, environment: [String: String],
        secrets: inout [(value: String, written: String)]
    ) throws(UsageError) -> [String] {
        let own = Set(resource.options.map(\.key))
        let known = FetchCommand.spec.options.map { String($0.name.dropFirst(2)) }.filter { !reserved.contains($0) }
        var arguments: [String] = []
        for entry in defaults.filter({ !own.contains($0.key) }) + resource.options {
            let at = "\(file):\(entry.keyMark)"
            if entry.key.hasPrefix("slice-") {
                throw UsageError(
                    "\(at): a source gives time windows as 'slice: {path: …, params: […], step: …, from: …}', not '\(entry.key)'"
                )
            }
            if reserved.contains(entry.key) {
                throw UsageError("\(at): '\(entry.key)' is set by sync for each resource, not by the source")
            }
            guard let option = FetchCommand.spec.option(named: "--" + entry.key), known.contains(entry.key) else {
                throw UsageError(
                    "\(at): " + SourceFile.unknown(entry.key, known: known, in: "resource '\(resource.name)'"))
            }
            switch entry.value.value {
            case .scalar(let text, let plain) where option.valueName == nil:
                guard plain, text == "true" || text == "false" else {
                    throw UsageError("\(at): '\(entry.key)' is a flag: true or false, not '\(SourceError.clip(text))'")
                }
                if text == "true" { arguments.append(option.name) }
            case .scalar(let text, _):
                arguments += [
                    option.name,
                    try value(text, of: entry.key, at: "\(file):\(entry.value.mark)", environment, &secrets),
                ]
            case .sequence(let items) where option.isRepeatable:
                for item in items {
                    guard case .scalar(let text, _) = item.value else {
                        throw UsageError("\(file):\(item.mark): '\(entry.key)' lists values, and this is \(item.kind)")
                    }
                    arguments += [
                        option.name, try value(text, of: entry.key, at: "\(file):\(item.mark)", environment, &secrets),
                    ]
                }
            default:
                let wanted =
                    option.valueName == nil ? "true or false" : option.isRepeatable ? "a value or a list" : "a value"
                throw UsageError("\(at): '\(entry.key)' takes \(wanted), not \(entry.value.kind)")
            }
        }
        return arguments
    }

    /// An option's value as `fetch` takes it. A header is `Name: value`, and its value may name
    /// environment variables (`${NAME}`), replaced by their values (kept in `secrets`, to be taken out of any
    /// message). A header that carries credentials (``FetchConfiguration/isCredential(name:)``) takes them
    /// from variables only: its value is `${NAME}`, or a scheme word and `${NAME}` (`Bearer ${TOKEN}`).
    private static func value(
        _ text: String, of key: String, at place: String, _ environment: [String: String],
        _ secrets: inout [(value: String, written: String)]
    ) throws(UsageError) -> String {
        guard key == "header" else {
            if text.contains("{parent."), !["body", "variables"].contains(key) {
                throw UsageError(
                    "\(place): '\(key)' takes no {parent.…} placeholder (the path, header, body and variables do)")
            }
            return text
        }
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw UsageError("\(place): a header is 'Name: value'")
        }
        let name = String(text[..<colon])
        let written = String(text[text.index(after: colon)...]).trimmingWhitespace()
        if name.contains("{") {
            throw UsageError("\(place): a header's name takes no placeholder")
        }
        if FetchConfiguration.isCredential(name: name) {
            // What is left once the references are taken out: nothing, or one scheme word.
            let left = SourceSecret.literal(written)
            let words = left.split(separator: " ")
            guard left.count < written.count, words.count <= 1, words.allSatisfy({ $0.allSatisfy(\.isLetter) }) else {
                throw UsageError(
                    "\(place): header '\(SourceError.clip(name))' carries a secret written in the source: give it as ${NAME} (an environment variable)"
                )
            }
        }
        let value: String
        do {
            value = try SourceSecret.expand(written, from: environment)
        } catch {
            throw UsageError("\(place): header '\(SourceError.clip(name))': \(error.message)")
        }
        if value != written { secrets.append((value, written)) }
        return "\(name): \(value)"
    }
}
