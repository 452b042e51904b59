import ArgumentParsing
import Dispatch
import NotesFetch
import NotesPage
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `notes-page fetch [--all] [<url>]`: walks the endpoint's pages, streaming each through the decoder.
struct FetchCommand {
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
            .init("--retries", value: "n", help: "Retries of a failing page after the first attempt. Default: 4."),
            .init(
                "--timeout", value: "seconds",
                help: "Seconds without a byte (connecting, TLS, head, body) before an attempt fails. Default: 30."),
            .init(
                "--page-timeout", value: "seconds",
                help: "Seconds one attempt at a page may take in all. Default: 600."),
            .init(
                "--max-wait", value: "seconds",
                help: "Longest wait for a rate limit to reset; longer ends the run (69). Default: 3600."),
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
        configuration.parallel = try parsed.integer("--parallel", default: 4, in: 1...64)
        configuration.earlyRequests = !parsed.has("--no-early-requests")
        configuration.retries = try parsed.integer("--retries", default: 4, in: 0...100)
        configuration.idleTimeout = Double(try parsed.integer("--timeout", default: 30, in: 1...86_400))
        configuration.pageTimeout = Double(try parsed.integer("--page-timeout", default: 600, in: 1...604_800))
        configuration.maxWait = Double(try parsed.integer("--max-wait", default: 3_600, in: 0...604_800))
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

    /// Runs the walk over the network, with SIGINT and SIGTERM stopping it at the next chunk.
    /// - Returns: 0 done; 65 contract; 69 unavailable; 74 output; 77 session expired; 130 interrupted.
    /// - Parameter urlSession: Makes the URLSession transport, for `--transport urlsession`.
    func run(urlSession: (@Sendable () -> any HTTPTransport)?) async -> ExitStatus {
        let cancellation = CancellationFlag()
        let signals = SignalTrap(cancellation: cancellation)
        defer { signals.release() }
        let runtime = FetchRuntime.live(caFile: caFile, transport: transport, urlSession: urlSession)
        let task = Task { await run(runtime, cancellation: cancellation) }
        signals.onSignal { task.cancel() }
        return await task.value
    }

    /// Runs the walk through `runtime`: resumes from `--state` when it names a run, walks, commits each
    /// page, and reports on the runtime's standard error.
    /// - Returns: 0 done; 65 contract; 69 unavailable; 74 output; 77 session expired; 130 interrupted.
    func run(_ runtime: FetchRuntime, cancellation: CancellationFlag) async -> ExitStatus {
        var environment = runtime.environment
        let quiet = quiet
        let progress = Progress(enabled: !quiet && runtime.showsProgress, report: runtime.report)
        defer { progress.finish() }
        environment.waiting = { seconds, reason in
            // On a terminal the wait counts down in the progress line; elsewhere it is said once.
            if progress.enabled {
                progress.waiting(seconds, reason: reason)
            } else if !quiet {
                runtime.report("\(reason), resuming in \(Int(seconds.rounded(.up))) s\n")
            }
        }
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: url, pagination: pagination),
            configuration: configuration,
            transport: runtime.transport,
            environment: environment,
            moreTransports: runtime.moreTransports
        )
        let session: FetchSession
        do {
            session = try FetchSession(command: self, locator: fetcher.locator, afterStep: runtime.afterCommitStep)
        } catch {
            runtime.report("Error: \(error)\n")
            return .ioError
        }
        if session.state.isDone {
            if !quiet {
                runtime.report("Already complete: \(session.state.notes) notes in \(session.state.pages) pages.\n")
            }
            return .success
        }
        // A resumed run goes on from the state's next page, numbering pages after the committed ones.
        let from = session.state.next ?? start
        var recognised = quiet
        let stop: PageLocation?
        do throws(FetchError) {
            stop = try await fetcher.walk(
                from: from,
                firstNumber: session.state.pages + 1,
                ids: session.ids,
                visited: session.visited,
                maxPages: all ? maxPages : 1,
                maxNotes: maxNotes,
                cancellation: cancellation
            ) { page throws(FetchError) in
                if !recognised, let facts = page.facts {
                    recognised = true
                    if let text = facts.foundPaths { progress.say(text) }
                    if let text = pagination.recognition(after: facts, endpoint: url) { progress.say(text) }
                }
                try session.commit(page)
                progress.update(session.state)
            }
        } catch {
            progress.finish()
            runtime.report("Error: \(error)\n")
            if let hint = session.resumeHint(
                error.kind == .cancelled ? "Interrupted" : "Stopped", url: url, next: error.location)
            {
                runtime.report(hint)
            }
            switch error.kind {
            case .contract: return .dataError
            case .unavailable: return .unavailable
            case .sessionExpired: return .noPermission
            case .cancelled: return .interrupted
            case .output: return .ioError
            case .usage: return .usage
            }
        }
        progress.finish()
        if !quiet {
            runtime.report(session.summary(seconds: Clock.now - session.started, complete: stop == nil))
            if let stop {
                runtime.report("More pages remain: the next is \(stop). Continue with --cursor or --state.\n")
            }
        }
        if stop == nil, let missing = session.missingNotes {
            runtime.report(missing)
            return .dataError
        }
        return .success
    }
}

/// What a run of `fetch` talks to besides its files: the network, time, standard error. The program
/// uses ``live``; tests pass a ``MemoryTransport``, a clock that never sleeps and a string to write to.
struct FetchRuntime: Sendable {
    var transport: any HTTPTransport
    /// Makes the transport of each further page in flight (`--parallel`); `nil` shares ``transport``.
    var moreTransports: (@Sendable () -> any HTTPTransport)?
    var environment: FetchEnvironment
    /// Writes to standard error.
    var report: @Sendable (String) -> Void
    /// Whether standard error is a terminal, where progress is drawn.
    var showsProgress: Bool
    /// Called after each step of a page's commit. Throwing stops the commit there, leaving the files as a
    /// `kill -9` at that point would: tests use it to crash a run at every step.
    var afterCommitStep: @Sendable (CommitStep) throws(SystemError) -> Void = { _ throws(SystemError) in }

    /// libcurl (or URLSession, made by `urlSession`), real time, the process's standard error.
    static func live(
        caFile: String?, transport: FetchCommand.Transport = .default,
        urlSession: (@Sendable () -> any HTTPTransport)?
    ) -> FetchRuntime {
        var make: @Sendable () -> any HTTPTransport = {
            guard let urlSession else { preconditionFailure("no URLSession transport in this program") }
            return urlSession()
        }
        #if canImport(CCurl)
            if transport == .curl {
                let configuration = CurlTransport.Configuration(caFile: caFile)
                make = { CurlTransport(configuration: configuration) }
            }
        #endif
        return FetchRuntime(
            transport: make(),
            moreTransports: make,
            environment: .live,
            report: { printError($0) },
            showsProgress: isatty(STDERR_FILENO) == 1
        )
    }
}

/// The durable steps of committing a page, in order.
enum CommitStep: Sendable, Hashable, CaseIterable {
    /// The page's notes are in the output file.
    case output
    /// Its ids and next URL are in the journal.
    case journal
    /// The state file names it (renamed into place): the page is committed.
    case state
}

/// The output, the state and the journal of one run.
final class FetchSession: @unchecked Sendable {
    // One walk at a time touches a session: its task's page callback, then the command after awaiting it.
    let command: FetchCommand
    let locator: PageLocator
    let output: OutputFile
    let journal: OutputFile?
    let ids = IDSet()
    let visited = IDSet()
    var state: RunState
    let started = Clock.now
    private let afterStep: @Sendable (CommitStep) throws(SystemError) -> Void

    /// Opens the run's files: a new run, or the one `--state` names, cut back to its last committed page.
    init(
        command: FetchCommand,
        locator: PageLocator,
        afterStep: @escaping @Sendable (CommitStep) throws(SystemError) -> Void = { _ throws(SystemError) in }
    ) throws(SystemError) {
        self.command = command
        self.locator = locator
        self.afterStep = afterStep
        let url = locator.endpoint.absoluteString
        let pagination = locator.pagination.description
        var state = RunState(url: url, pagination: pagination)
        if let statePath = command.statePath, let saved = try RunState.load(statePath) {
            guard saved.url == url else {
                throw SystemError(operation: "'\(statePath)' is the state of another run (\(saved.url))", code: EINVAL)
            }
            guard saved.pagination == pagination else {
                throw SystemError(
                    operation:
                        "'\(statePath)' is the state of a run with --paginate \(saved.pagination), not \(pagination)",
                    code: EINVAL)
            }
            state = saved
        }
        self.state = state
        if let path = command.outputPath {
            output = try OutputFile(path: path, length: state.outputBytes)
        } else {
            output = OutputFile(standardOutput: ())
        }
        if let statePath = command.statePath {
            let journalPath = statePath + ".journal"
            if state.journalBytes > 0, let bytes = try readFile(journalPath, limit: FetchLimits.maxJournalBytes) {
                try Journal.replay(Array(bytes.prefix(state.journalBytes)), ids: ids, visited: visited)
            }
            journal = try OutputFile(path: journalPath, length: state.journalBytes)
        } else {
            journal = nil
        }
    }

    /// Writes a complete page: its notes to the output in one piece, then the journal, then the state.
    func commit(_ page: FetchedPage) throws(FetchError) {
        var bytes: [UInt8] = []
        for note in page.notes {
            switch command.options.format {
            case .ndjson: bytes.append(contentsOf: note.json ?? [])
            case .ids: bytes.append(contentsOf: note.idBytes)
            case .none: continue
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            try output.write(bytes)
            try afterStep(.output)
            state.pages += 1
            state.notes += page.notes.count
            state.skipped += page.skippedCount
            state.total = page.total ?? state.total
            state.bytes += page.byteCount
            state.wireBytes = (state.wireBytes ?? 0) + page.wireBytes
            state.next = page.next
            state.outputBytes = output.length
            if let journal, let statePath = command.statePath {
                var record: [UInt8] = []
                Journal.record(page, nextURL: page.next.map { locator.url(for: $0) }, into: &record)
                try journal.write(record)
                try afterStep(.journal)
                state.journalBytes = journal.length
                try state.save(statePath)
                try afterStep(.state)
            }
        } catch {
            throw FetchError(.output(error.description), page: page.number, location: page.location)
        }
    }

    /// The summary line; when the walk reached the last page (`complete`), also a total the server
    /// announced below the notes that arrived (one above them is an error: ``missingNotes``).
    func summary(seconds: Double, complete: Bool) -> String {
        let megabytes = Double(state.bytes) / 1e6
        let rate = seconds > 0 ? megabytes / seconds : 0
        let notes = state.notes == 0 ? "No notes" : state.notes == 1 ? "1 note" : "\(state.notes) notes"
        let pages = state.pages == 1 ? "1 page" : "\(state.pages) pages"
        let skipped =
            state.skipped == 0
            ? "" : ", \(state.skipped) duplicate\(state.skipped == 1 ? "" : "s") skipped"
        let wire = state.wireBytes ?? 0
        let bytes =
            wire > 0 && wire != state.bytes ? "\(state.bytes) bytes (\(wire) on the wire)" : "\(state.bytes) bytes"
        var text =
            "\(notes), \(pages)\(skipped), \(bytes), \(Clock.format(seconds)) s, \(Clock.format(rate, places: 1)) MB/s\n"
        if complete, let total = state.total, total < state.notes + state.skipped {
            text += "The server announced \(total) notes; \(state.notes + state.skipped) arrived.\n"
        }
        return text
    }

    /// The error for a walk that reached its last page with fewer notes than the server announced.
    var missingNotes: String? {
        guard let total = state.total, total > state.notes + state.skipped else { return nil }
        let arrived = state.notes + state.skipped
        return
            "Error: the server announced \(total) notes, but its last page came after \(arrived): \(total - arrived) are missing\n"
    }

    /// How to go on after a stop, or `nil` when there is nothing to resume.
    func resumeHint(_ verb: String, url: URL, next: PageLocation) -> String? {
        let committed =
            "\(verb) after \(state.pages) committed page\(state.pages == 1 ? "" : "s") (\(state.notes) notes)."
        if let statePath = command.statePath {
            var words = ["notes-page", "fetch", "--all", "--state", statePath]
            if let output = command.outputPath { words += ["-o", output] }
            words.append(url.absoluteString)
            return "\(committed) Resume with: \(words.map(shellQuote).joined(separator: " "))\n"
        }
        switch next {
        case .cursor(let cursor), .after(let cursor):
            return "\(committed) Continue with: --cursor \(shellQuote(cursor))\n"
        case .offset(let number), .page(let number):
            if state.pages > 0 { return "\(committed) Continue with: --cursor \(number)\n" }
        case .start, .url:
            break
        }
        return state.pages > 0 ? "\(committed)\n" : nil
    }
}

/// Quotes `word` for a POSIX shell when it needs it.
func shellQuote(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
    return plain && !word.isEmpty
        ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}

/// Progress on standard error while it is a terminal: pages, notes, bytes, rate, elapsed, the share of
/// an announced total and the time left; while a rate limit holds the run, the wait, counting down.
final class Progress: @unchecked Sendable {
    let enabled: Bool
    private let report: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    private let started: Double
    // Everything below is touched on `queue` only: pages arrive from the walk, waits from the request
    // that met the limit, ticks from the timer.
    private let queue = DispatchQueue(label: "notes-page.progress")
    private var shown = -Double.infinity
    private var drawn = false
    private var finished = false
    /// The line of the last page committed.
    private var status = ""
    private var wait: (until: Double, reason: String)?
    private var timer: (any DispatchSourceTimer)?

    init(
        enabled: Bool, report: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Double = { Clock.now }
    ) {
        self.enabled = enabled
        self.report = report
        self.now = now
        started = now()
    }

    /// A page was committed: the line shows the run so far (at most five times a second), and a wait
    /// shown before is over.
    func update(_ state: RunState) {
        guard enabled else { return }
        queue.sync {
            let now = now()
            guard now - shown >= 0.2 || wait != nil else { return }
            shown = now
            let elapsed = now - started
            let rate = elapsed > 0 ? Double(state.bytes) / 1e6 / elapsed : 0
            status =
                "pages \(state.pages)  notes \(state.notes)  \(Clock.format(Double(state.bytes) / 1e6, places: 1)) MB  "
                + "\(Clock.format(rate, places: 1)) MB/s  \(Clock.format(elapsed, places: 1)) s"
            if let total = state.total, total > 0 {
                let done = Double(state.notes + state.skipped) / Double(total)
                status += "  \(Clock.format(min(100, done * 100), places: 0)) %"
                if done > 0 && done < 1 {
                    status += ", about \(Clock.format(elapsed * (1 - done) / done, places: 0)) s left"
                }
            }
            endWait()
            draw()
        }
    }

    /// The run waits `seconds` for a rate limit: the line says so and counts down once a second.
    func waiting(_ seconds: Double, reason: String) {
        guard enabled else { return }
        queue.sync {
            guard !finished else { return }
            wait = (now() + seconds, reason)
            draw()
            guard timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in self?.redrawWait() }
            timer.resume()
            self.timer = timer
        }
    }

    /// Redraws the countdown, as the timer does once a second.
    func tick() {
        queue.sync { redrawWait() }
    }

    private func redrawWait() {
        guard let wait else { return }
        if now() >= wait.until { endWait() }
        draw()
    }

    /// Writes `text` on a line of its own: above the progress line, which is drawn again after it.
    func say(_ text: String) {
        guard enabled else { return report(text + "\n") }
        queue.sync {
            report((drawn ? "\r\u{1B}[K" : "") + text + "\n")
            if drawn { draw() }
        }
    }

    /// Clears the line, for the summary or an error.
    func finish() {
        guard enabled else { return }
        queue.sync {
            finished = true
            endWait()
            if drawn { report("\r\u{1B}[K") }
            drawn = false
        }
    }

    private func endWait() {
        wait = nil
        timer?.cancel()
        timer = nil
    }

    private func draw() {
        guard !finished else { return }
        var line = status
        if let wait {
            let left = max(0, Int((wait.until - now()).rounded(.up)))
            line += (line.isEmpty ? "" : "  ") + "\(wait.reason), resuming in \(left) s"
        }
        report("\r\u{1B}[K" + line)
        drawn = true
    }
}

/// SIGINT and SIGTERM stop the walk at the next chunk; a second signal exits at once.
final class SignalTrap: @unchecked Sendable {
    // `sources` is written in `init` and read in `release`, on the caller's thread; the handlers run on
    // the signal queue and touch only `state`, which the mutex guards.
    private var sources: [any DispatchSourceSignal] = []
    private let state = Mutex<(count: Int, action: (@Sendable () -> Void)?)>((0, nil))

    /// Also runs `action` when a signal arrives (a signal may come before this is called: the
    /// cancellation flag covers that).
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.action = action }
    }

    init(cancellation: CancellationFlag) {
        let queue = DispatchQueue(label: "notes-page.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                let (count, action) = state.withLock { state in
                    state.count += 1
                    return (state.count, state.action)
                }
                if count > 1 { exit(ExitStatus.interrupted.rawValue) }
                cancellation.cancel()
                action?()
            }
            source.resume()
            sources.append(source)
        }
    }

    func release() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

extension String {
    /// The string without spaces, tabs and line breaks at either end.
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
