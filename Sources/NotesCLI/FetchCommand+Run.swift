import ArgumentParsing
import NotesFetch
import NotesStore
import NotesSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FetchCommand {
    /// Runs the walk over the network, with SIGINT and SIGTERM stopping it at the next chunk.
    /// - Returns: 0 done; 65 contract; 69 unavailable; 74 output; 77 session expired; 130 interrupted.
    /// - Parameter urlSession: Makes the URLSession transport, for `--transport urlsession`.
    func run(urlSession: (@Sendable () -> any HTTPTransport)?) async -> ExitStatus {
        if let problem = transport.problem() {
            printError("Error: \(problem)\n")
            return .unavailable
        }
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
        if let slices { return await runWindows(slices, runtime, cancellation: cancellation) }
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
        environment.notice = { text in
            if !quiet { progress.say(text) }
        }
        let session: FetchSession
        do {
            session = try FetchSession(command: self, afterStep: runtime.afterCommitStep)
        } catch {
            runtime.report("Error: \(error)\n")
            return ExitStatus(error)
        }
        // What the run's copy holds when it ends, however it ends: for a sync's summary.
        defer {
            runtime.tally?(
                FetchTally(pages: session.state.pages, notes: session.state.notes, seconds: Clock.now - session.started)
            )
        }
        let walk = session.walk
        if walk.opening == .complete {
            // A run that ended short of the total it was told is still short: never a success.
            if let missing = session.missingNotes {
                runtime.report(missing)
                return .dataError
            }
            if !quiet {
                runtime.report("Already complete: \(session.state.notes) notes in \(session.state.pages) pages.\n")
            }
            return .success
        }
        let fetcher = NotesFetcher(
            locator: walk.locator,
            configuration: configuration,
            transport: runtime.transport,
            environment: environment,
            moreTransports: runtime.moreTransports,
            gate: runtime.gate
        )
        let from = startsAtCursor ? start : pagination.start(endpoint: walk.endpoint)
        var recognised = quiet || !saysPagination
        let stop: PageLocation?
        do throws(FetchError) {
            stop = try await walk.run(
                fetcher: fetcher,
                from: from,
                maxPages: all ? maxPages : 1,
                maxNotes: maxNotes,
                cancellation: cancellation
            ) { page, checkpoint in
                if !recognised, let facts = page.facts {
                    recognised = true
                    // One line for auto: what was found on the page, then what it follows.
                    let found = facts.foundPaths
                    let follows = pagination.recognition(after: facts, endpoint: url)
                    if let found, let follows, follows.hasPrefix("Pagination: auto ") {
                        progress.say(found + "; " + follows.dropFirst("Pagination: ".count))
                    } else {
                        for text in [found, follows].compactMap({ $0 }) { progress.say(text) }
                    }
                }
                progress.update(checkpoint)
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
            case .credentials: return .noPermission
            case .usage: return .usage
            }
        }
        progress.finish()
        if !quiet {
            runtime.report(session.summary(seconds: Clock.now - session.started, complete: stop == nil))
            if let stop {
                let goOn =
                    statePath != nil || sqlitePath != nil || postgres != nil
                    ? "Run the same command again to go on." : "Continue with --cursor or --state."
                runtime.report("More pages remain: the next is \(stop). \(goOn)\n")
            }
        }
        if stop == nil, let missing = session.missingNotes {
            runtime.report(missing)
            return .dataError
        }
        return .success
    }
}

/// What a run's copy holds at its end: pages and notes of its current run, and the run's seconds.
struct FetchTally: Sendable {
    var pages: Int
    var notes: Int
    var seconds: Double
}

/// What a run of `fetch` talks to besides its files: the network, time, standard error. The program
/// uses ``live``; tests pass a ``MemoryTransport``, a clock that never sleeps and a string to write to.
struct FetchRuntime: Sendable {
    /// Prefixes each line the walk says with `[label]`, and draws no progress line: one walk of several.
    mutating func label(_ label: String) {
        let write = report
        report = { text in
            write(
                text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    .map { "[\(label)] \($0)\n" }.joined())
        }
        showsProgress = false
    }

    var transport: any HTTPTransport
    /// Makes the transport of each further page in flight (`--parallel`); `nil` shares ``transport``.
    var moreTransports: (@Sendable () -> any HTTPTransport)?
    var environment: FetchEnvironment
    /// Writes to standard error.
    var report: @Sendable (String) -> Void
    /// Whether standard error is a terminal, where progress is drawn.
    var showsProgress: Bool
    /// Told what the copy holds once the run ends (a sync's summary); `nil`: nobody asks.
    var tally: (@Sendable (FetchTally) -> Void)?
    /// The gate every request passes (`--rate`, rate-limit holds), shared with the other walks of a sync on
    /// the same origin; `nil`: the walk's own.
    var gate: RequestGate?
    /// Called after each step of a page's commit. Throwing stops the commit there, leaving the files as a
    /// `kill -9` at that point would: tests use it to crash a run at every step.
    var afterCommitStep: @Sendable (CommitStep) throws(CommitStop) -> Void = { _ throws(CommitStop) in }

    /// libcurl (or URLSession, made by `urlSession`), real time, the process's standard error.
    /// - Precondition: `transport.problem()` is `nil`.
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

extension FetchCommand.Transport {
    /// Why this transport cannot work in this process, said the way a user can act on: libcurl, loaded
    /// when a command first needs it, could not be.
    func problem() -> String? {
        #if canImport(CCurl)
            if self == .curl {
                do {
                    try CurlTransport.loadLibrary()
                } catch {
                    return "\(error) (install libcurl 7.85 or later: apt-get install libcurl4; or set "
                        + "NOTES_PAGE_LIBCURL to the path of a libcurl.so.4)"
                }
            }
        #endif
        return nil
    }
}
