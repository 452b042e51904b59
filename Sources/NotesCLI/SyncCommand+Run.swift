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

extension SyncCommand {
    /// One walk of a sync: a resource's own, or a child resource's for one parent.
    struct Walk: Sendable {
        var resource: Int
        var command: FetchCommand
        /// The parent's key, for a child's walk.
        var parent: String?
        /// The key of the part it walks: a sliced resource's window, or a range of pages (a worker's).
        var window: String?
    }

    /// What a resource's walks came to.
    struct Outcome: Sendable {
        /// Whether the resource was walked, or its children looked for.
        var reached = false
        /// Whether the resource's own walk waits for its children's unfinished walks (not walked again).
        var waits = false
        var walks = 0
        var failedWalks = 0
        /// The first failure's status.
        var failure: ExitStatus?
        var pages = 0
        var notes = 0
        var started: Double?
        var ended: Double?
    }

    /// Runs the sync over the network, with SIGINT and SIGTERM stopping it at the next chunk.
    /// - Parameter urlSession: Makes the URLSession transport, where the program links one.
    func run(urlSession: (@Sendable () -> any HTTPTransport)?) async -> ExitStatus {
        // `--status` only reads the database.
        for resource in resources where workers?.showsStatus != true {
            if let problem = resource.command.transport.problem() {
                printError("Error: \(problem)\n")
                return .unavailable
            }
        }
        let cancellation = CancellationFlag()
        let signals = SignalTrap(cancellation: cancellation)
        defer { signals.release() }
        let task = Task {
            await run(cancellation: cancellation) { command in
                FetchRuntime.live(caFile: command.caFile, transport: command.transport, urlSession: urlSession)
            }
        }
        signals.onSignal { task.cancel() }
        return await task.value
    }

    /// The selected resources whose parent is `index`.
    func children(of index: Int) -> [Int] {
        resources.indices.filter { selected[$0] && resources[$0].parent == index }
    }

    /// Walks the resources through the runtime `runtime` makes for each `fetch`, ``width`` at a time: each
    /// selected resource without a parent, then, as each walk ends, its children's walks for the parents
    /// it wrote. A failed walk is said and the others go on, unless `--fail-fast`, which lets those under
    /// way finish and starts no more. Walked in parallel, or for a parent, each walk's lines are prefixed
    /// with its name (and the parent's key), and no progress line is drawn. Ends with a line per resource.
    /// - Returns: 130 when interrupted, else the first failure's status in the source's order, else 0.
    func run(cancellation: CancellationFlag, runtime: (FetchCommand) -> FetchRuntime) async -> ExitStatus {
        let first = runtime(resources[0].command)
        let report = first.report
        #if canImport(CPostgres)
            if let workers {
                return workers.showsStatus
                    ? showStatus(workers, report: report)
                    : await work(workers, cancellation: cancellation, runtime: runtime)
            }
        #endif
        // A connection held through the run: a walk's own, closing, is then never the file's last, which
        // would checkpoint and remove the write-ahead log after every walk (most of a many-parent sync's time).
        // (It reads once, so that SQLite maps the log's shared memory and the others see it.)
        let keeper = database.flatMap { try? SQLiteDestination(path: $0, table: resources[0].name) }
        _ = try? keeper?.checkpoint()
        defer { withExtendedLifetime(keeper) {} }
        // One access token for every walk, asked for before the first request.
        let (token, refused) = accessToken(first)
        if let refused { return refused }
        var outcomes = [Outcome](repeating: Outcome(), count: resources.count)
        var walks: [Walk] = []
        /// Says a resource's failure that no walk of its own reports.
        func fail(_ resource: Int, _ message: String, _ status: ExitStatus) {
            var message = message
            for secret in resources[resource].secrets {
                message = message.replacing(secret.value, with: secret.written)
            }
            report("[\(resources[resource].name)] Error: \(message)\n")
            outcomes[resource].reached = true
            outcomes[resource].failure = outcomes[resource].failure ?? status
        }
        /// Adds child resource `child`'s walks under `parent` (a walk's key; `nil`: every row of its parent).
        func addWalks(of child: Int, under parent: String?) {
            outcomes[child].reached = true
            do {
                try childWalks(of: child, under: parent, into: &walks, failing: fail) { outcomes[$0].reached = true }
            } catch {
                fail(child, error.description, .ioError)
            }
        }
        /// Adds the walks of `resource`'s children under `parent`.
        func addChildren(of resource: Int, under parent: String?) {
            for child in children(of: resource) { addWalks(of: child, under: parent) }
        }
        for index in resources.indices where selected[index] {
            if let parent = resources[index].parent {
                if !selected[parent] { addWalks(of: index, under: nil) }
                continue
            }
            if let slices = resources[index].slices {
                // One walk a window, walked as children are: `width` at a time.
                outcomes[index].reached = true
                do {
                    let windows = try windows(of: index)
                    for window in windows {
                        walks.append(
                            Walk(
                                resource: index, command: try resources[index].command(window: window),
                                window: window.key))
                    }
                    if !quiet {
                        report(
                            "Resource '\(resources[index].name)': \(resources[index].command.url.absoluteString), \(windows.count) window\(windows.count == 1 ? "" : "s") of \(slices.path)\(windows.first.map { " from \($0.key.prefix { $0 != "/" })" } ?? "")\n"
                        )
                    }
                } catch let error as UsageError {
                    fail(index, error.message, .usage)
                } catch let error as StoreError {
                    fail(index, error.description, ExitStatus(error))
                } catch {
                    fail(index, "\(error)", .ioError)
                }
                continue
            }
            walks.append(Walk(resource: index, command: resources[index].command))
            guard !full, !children(of: index).isEmpty else { continue }
            // A copy whose children were not all walked since its last walk (a run stopped there): those
            // first; the resource itself walks again once they are done.
            do {
                let checkpoint = try table(resources[index].name).checkpoint()
                guard let checkpoint, checkpoint.isDone else { continue }
                var pending: [Walk] = []
                var failures: [(child: Int, message: String, status: ExitStatus)] = []
                for child in children(of: index) {
                    try childWalks(of: child, under: nil, into: &pending) { failures.append(($0, $1, $2)) }
                }
                if !pending.isEmpty {
                    walks.removeLast()
                    outcomes[index].reached = true
                    outcomes[index].waits = true
                    for child in children(of: index) { outcomes[child].reached = true }
                    walks += pending
                    for failure in failures { fail(failure.child, failure.message, failure.status) }
                }
            } catch {
                walks.removeLast()
                fail(index, error.description, .ioError)
            }
        }
        let tallies = Locked([Int: FetchTally]())
        var gates: [Origin: RequestGate] = [:]
        var told: Set<Int> = []
        await withTaskGroup(of: (Int, ExitStatus).self) { group in
            var next = 0
            var running = 0
            var stopping = false
            while true {
                while !stopping, running < width, next < walks.count, !cancellation.isCancelled {
                    let id = next
                    var walk = walks[id]
                    var made = prepare(&walk, token: token, gates: &gates, told: &told, runtime: runtime)
                    made.tally = { tally in tallies.withLock { $0[id] = tally } }
                    outcomes[walk.resource].reached = true
                    outcomes[walk.resource].started = outcomes[walk.resource].started ?? Clock.now
                    let walking = made
                    group.addTask { (id, await walk.command.run(walking, cancellation: cancellation)) }
                    next += 1
                    running += 1
                }
                guard let (id, status) = await group.next() else { break }
                running -= 1
                let walk = walks[id]
                var outcome = outcomes[walk.resource]
                outcome.walks += 1
                outcome.ended = Clock.now
                if let tally = tallies.withLock({ $0[id] }) {
                    outcome.pages += tally.pages
                    outcome.notes += tally.notes
                }
                if status != .success {
                    outcome.failedWalks += 1
                    outcome.failure = outcome.failure ?? status
                    if failFast || status == .interrupted { stopping = true }
                }
                outcomes[walk.resource] = outcome
                if status == .success, !stopping { addChildren(of: walk.resource, under: walk.parent) }
            }
        }
        let wanted = resources.indices.filter { selected[$0] }
        let complete = wanted.filter { outcomes[$0].reached && outcomes[$0].failure == nil }
        let failed = wanted.compactMap { outcomes[$0].failure }.first
        if !quiet || failed != nil {
            report(summary(outcomes, complete: complete.count, of: wanted))
        }
        if cancellation.isCancelled || outcomes.contains(where: { $0.failure == .interrupted }) { return .interrupted }
        return failed ?? .success
    }

    /// The access token every walk of the sync takes (`auth` of an OAuth 2.0 type), asked for before the
    /// first request; `nil` for another `auth`. A failure is said, and its exit status returned.
    /// - Parameter shared: Where a sync's workers keep one token between them.
    func accessToken(_ first: FetchRuntime, shared: (any SharedTokenStore)? = nil) -> (
        token: OAuth2Token?, failure: ExitStatus?
    ) {
        guard let oauth2 else { return (nil, nil) }
        let provider = OAuth2Token(oauth2, transport: first.transport, shared: shared)
        do {
            try provider.prepare()
        } catch {
            first.report("Error: \(error.message)\n")
            let statuses: [OAuth2Token.Problem.Kind: ExitStatus] = [
                .refused: .noPermission, .unavailable: .unavailable, .store: .ioError,
            ]
            return (nil, statuses[error.kind] ?? .failure)
        }
        return (provider, nil)
    }

    /// Gives `walk` the sync's credentials, and returns its runtime: one gate per origin (its walks keep
    /// one --rate between them, and a rate limit holds them all), its lines prefixed with its name (and
    /// the parent's key) when walks run at once or it is a child's, a line naming the resource.
    /// - Parameter shared: Where the workers of a sync share an origin's gate (``SharedGate``), for a worker.
    func prepare(
        _ walk: inout Walk, token: OAuth2Token?, gates: inout [Origin: RequestGate], told: inout Set<Int>,
        shared: (Origin) -> (any SharedGate)? = { _ in nil }, runtime: (FetchCommand) -> FetchRuntime
    ) -> FetchRuntime {
        if let token { walk.command.configuration.token = token }
        if let queryKey { walk.command.configuration.queryCredential = queryKey }
        if let awsSigV4 { walk.command.configuration.awsSigV4 = awsSigV4 }
        // A child resource's walks say how they paginate once, in its first walk.
        walk.command.saysPagination = told.insert(walk.resource).inserted
        let resource = resources[walk.resource]
        var made = runtime(walk.command)
        if let origin = Origin(walk.command.url.absoluteString) {
            // Shared where there is a rate to keep: a gate without one lets a walk ask for pages early, and asks
            // no server before each request.
            let rate = walk.command.configuration.rate
            let gate = gates[origin] ?? RequestGate(rate: rate, shared: rate == nil ? nil : shared(origin))
            gates[origin] = gate
            made.gate = gate
        }
        if width > 1 || walk.parent != nil || walk.window != nil {
            made.label(
                walk.parent.map { "\(resource.name) \(SourceError.clip($0))" }
                    ?? walk.window.map { "\(resource.name) \($0)" } ?? resource.name)
        }
        if !quiet, walk.parent == nil, walk.window == nil {
            made.report("Resource '\(resource.name)': \(walk.command.url.absoluteString)\n")
        }
        return made
    }

    /// "Sync: 2 of 3 resources complete", then a line per resource: its outcome, its walks (a child's),
    /// pages, notes and seconds.
    private func summary(_ outcomes: [Outcome], complete: Int, of wanted: [Int]) -> String {
        let nameWidth = wanted.map { resources[$0].name.count }.max() ?? 0
        var lines = "Sync: \(complete) of \(wanted.count) resources complete\n"
        for index in wanted {
            let name = resources[index].name + String(repeating: " ", count: nameWidth - resources[index].name.count)
            let outcome = outcomes[index]
            guard outcome.reached else {
                lines += "  \(name)  not run\n"
                continue
            }
            var text = outcome.failure.map { "failed (exit \($0.rawValue))" } ?? "complete"
            text += String(repeating: " ", count: max(0, 17 - text.count))
            text += "  "
            if outcome.waits {
                lines += "  \(name)  \(text)as walked before: its children's unfinished walks first\n"
                continue
            }
            if resources[index].parent != nil || resources[index].slices != nil {
                let failures = outcome.failedWalks > 0 ? " (\(outcome.failedWalks) failed)" : ""
                text += "\(outcome.walks) walk\(outcome.walks == 1 ? "" : "s")\(failures), "
            }
            let seconds = (outcome.ended ?? 0) - (outcome.started ?? outcome.ended ?? 0)
            text += "\(outcome.pages) page\(outcome.pages == 1 ? "" : "s"), \(outcome.notes) note"
            text += "\(outcome.notes == 1 ? "" : "s"), \(Clock.format(seconds)) s"
            lines += "  \(name)  \(text)\n"
        }
        return lines
    }

    /// The table `name` of the sync's SQLite file or PostgreSQL schema, or its files in the directory, to
    /// read.
    func table(_ name: String) throws(StoreError) -> any ParentTable {
        if let directory { return NDJSONResourceFiles(directory: directory, name: name) }
        if let (connection, schema) = postgresTables {
            #if canImport(CPostgres)
                return try PostgresDestination(connection: connection, schema: schema, table: name)
            #else
                _ = (connection, schema)
                throw StoreError("--postgres: this build has no libpq")
            #endif
        }
        return try SQLiteDestination(path: database ?? "", table: name)
    }

    /// Adds to `walks` the walks of child resource `child` for the rows of its parent's table (those
    /// under `parent`, a walk's key, when given): one for each row whose child has not walked to its end
    /// since the row was written, or, when the parent's walk is incremental, since the row last changed
    /// (an incremental walk writes again the records on its `since` boundary); every row with `--full`.
    /// Under a row whose child is current, the child's own children are looked for in turn (each handed to
    /// `looking`). A row a walk cannot be made for (a placeholder's field missing) is handed to `failing`,
    /// and no request is made for it.
    func childWalks(
        of child: Int, under parent: String?, into walks: inout [Walk],
        failing: (Int, String, ExitStatus) -> Void, looking: (Int) -> Void = { _ in }
    ) throws(StoreError) {
        guard let parentIndex = resources[child].parent else { return }
        let parentName = resources[parentIndex].name
        let rows = try table(parentName)
        let childTable = try table(resources[child].name)
        let incremental = resources[parentIndex].command.incremental != nil
        var current: [String] = []
        try rows.forEachParentRow(child: resources[parentIndex].parent != nil, under: parent) {
            row throws(StoreError) in
            let digest = ChildUnit.digest(row.json)
            if isCurrent(try childTable.childWalk(parent: row.key), row: row, digest: digest, incremental: incremental)
            {
                current.append(row.key)
                return
            }
            do {
                let record = try ParentRecord(resource: parentName, key: row.key, json: row.json)
                let command = try resources[child].command(
                    for: record, parentRun: row.run, parentDigest: digest, environment: environment)
                walks.append(Walk(resource: child, command: command, parent: row.key))
            } catch let error as ParentError {
                failing(child, "\(error.message); no request was made for its \(resources[child].name)", .dataError)
            } catch {
                let message = (error as? UsageError)?.message ?? "\(error)"
                failing(child, "resource '\(parentName)' record \(SourceError.clip(row.key)): \(message)", .dataError)
            }
        }
        for key in current {
            for grandchild in children(of: child) {
                looking(grandchild)
                try childWalks(of: grandchild, under: key, into: &walks, failing: failing, looking: looking)
            }
        }
    }

    /// Whether the child walk whose checkpoint is `state` is current for its parent's `row`: walked to its
    /// end since the row was written, or, when the parent's walk is incremental, since the row last changed
    /// (an incremental walk writes again the records on its `since` boundary). Never with `--full`.
    func isCurrent(_ state: WalkCheckpoint?, row: ParentRow, digest: String, incremental: Bool) -> Bool {
        guard !full, let state, state.isDone else { return false }
        return state.parentRun == row.run || (incremental && state.parentDigest == digest)
    }
}
