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
#if canImport(Glibc)
    import Glibc
#endif

#if canImport(CPostgres)
    extension SyncCommand {
        /// What a worker's walk of a unit came to.
        private enum Event: Sendable {
            case walked(WorkUnits.Claimed, ExitStatus, error: String?, tally: FetchTally?)
            /// Time to look for units again (other workers' pages bring new ones).
            case tick
        }

        /// `sync --worker`: joins the sync's run (or starts one, with the units every walk of a
        /// non-worker sync would start with), then claims units and walks them, ``width`` at a time,
        /// until none is left in the run: exits with the run's first failed unit's status, else 0.
        /// `--wait`: never starts a run, and waits for the next one when none is open.
        func work(_ options: Workers, cancellation: CancellationFlag, runtime: (FetchCommand) -> FetchRuntime) async
            -> ExitStatus
        {
            let first = runtime(resources[0].command)
            let report = first.report
            guard let (connection, schema) = postgresTables else { return .usage }
            let queue: WorkUnits
            let renewer: WorkUnits
            do {
                queue = try WorkUnits(connection: connection, schema: schema, lease: options.lease)
                renewer = try WorkUnits(
                    connection: connection, schema: schema, lease: options.lease, holder: queue.holder)
            } catch {
                report("Error: \(error)\n")
                return ExitStatus(error)
            }
            // One access token for all the workers of the sync, renewed by one of them at a time.
            var tokens: PostgresTokens?
            if let oauth2 {
                do {
                    tokens = try PostgresTokens(
                        connection: connection, schema: schema, key: oauth2.tokenURL + " " + oauth2.clientID)
                } catch {
                    report("Error: \(error)\n")
                    return ExitStatus(error)
                }
            }
            let (token, refused) = accessToken(first, shared: tokens)
            if let refused { return refused }
            // The claims of the units in flight, their leases renewed a third of a lease apart on a connection
            // of their own.
            let held = Locked(Set<String>())
            let renewing = Locked(true)
            let renewal = WorkerThread(name: "notes-lease")
            renewal.submit {
                var slept = 0
                while renewing.withLock({ $0 }) {
                    usleep(100_000)
                    slept += 100
                    guard slept >= options.lease * 1000 / 3 else { continue }
                    slept = 0
                    try? renewer.renew(Array(held.withLock { $0 }))
                }
            }
            defer {
                renewing.withLock { $0 = false }
                renewal.awaitIdle()
            }

            var gates: [Origin: RequestGate] = [:]
            var told: Set<Int> = []
            var walked = (units: 0, pages: 0, notes: 0)
            // The walks' connections, kept open from one unit to the next.
            let sessions = PostgresSessions()
            // What an idle worker waits on: units that came to claim wake it at once.
            let signal = UnitSignal(connection: connection, schema: schema)
            // Each origin's gate, kept with every other worker's: one --rate, and one rate limit's hold.
            let shared: PostgresGates
            do {
                shared = try PostgresGates(connection: connection, schema: schema)
            } catch {
                report("Error: \(error)\n")
                return ExitStatus(error)
            }
            while true {
                let run: WorkUnits.Run
                do {
                    if options.waits {
                        // A labelled run that is over never comes again.
                        if let label = options.label, let over = try queue.run(label: label), over.isFinished {
                            run = over
                        } else if let open = try queue.openRun(label: options.label) {
                            run = open
                        } else {
                            if cancellation.isCancelled { return .interrupted }
                            await signal.wait(seconds: 1)  // a run's start wakes it
                            continue
                        }
                    } else {
                        run = try queue.join(label: options.label, plan: plan) { () throws(StoreError) in
                            try firstUnits()
                        }
                    }
                } catch {
                    report("Error: \(error)\n")
                    return ExitStatus(error)
                }
                if !quiet {
                    let what = run.isFinished ? "is over" : run.isNew ? "started" : "joined"
                    report(
                        "Run \(run.number)\(options.label.map { " (\($0))" } ?? "") \(what): worker \(queue.holder)\n")
                }
                var stopped: ExitStatus?
                if !run.isFinished {
                    stopped = await drain(
                        run: run.number, queue: queue, options: options, held: held, token: token, gates: &gates,
                        told: &told, walked: &walked, sessions: sessions, shared: shared, signal: signal,
                        cancellation: cancellation,
                        runtime: runtime,
                        report: report)
                }
                if let stopped { return stopped }
                let failure: Int32?
                do {
                    failure = try queue.progress(run: run.number).firstFailure
                } catch {
                    report("Error: \(error)\n")
                    return ExitStatus(error)
                }
                if !quiet || failure != nil {
                    let failed = failure.map { "; a unit failed (exit \($0)): see --status" } ?? ""
                    report(
                        "Run \(run.number) is over: this worker walked \(walked.units) unit\(walked.units == 1 ? "" : "s"), \(walked.pages) pages, \(walked.notes) notes\(failed)\n"
                    )
                }
                guard options.waits, options.label == nil else {
                    return failure.map { ExitStatus(rawValue: $0) ?? .failure } ?? .success
                }
                walked = (0, 0, 0)
            }
        }

        /// Claims and walks the units of run `run` until none is left in it, or the worker is stopped.
        /// - Returns: `nil` when the run has none left; `.interrupted` when stopped (its units given back),
        ///   or the status of a failure of the queue itself.
        private func drain(
            run: Int, queue: WorkUnits, options: Workers, held: Locked<Set<String>>, token: OAuth2Token?,
            gates: inout [Origin: RequestGate], told: inout Set<Int>,
            walked: inout (units: Int, pages: Int, notes: Int), sessions: PostgresSessions, shared: PostgresGates,
            signal: UnitSignal,
            cancellation: CancellationFlag, runtime: (FetchCommand) -> FetchRuntime,
            report: @escaping @Sendable (String) -> Void
        ) async -> ExitStatus? {
            var tables: [String: PostgresDestination] = [:]
            var failure: ExitStatus?
            await withTaskGroup(of: Event.self) { group in
                var running = 0
                var ticking = false
                // How long to wait before looking for units again: 20 ms after a claim, doubling to 1 s while
                // none comes (a page committed anywhere may bring units at any moment; a thousand idle
                // workers then ask the server a thousand times a second, not fifty thousand).
                var idle = Duration.milliseconds(20)
                while failure == nil {
                    var exhausted = false
                    while running < width, !cancellation.isCancelled {
                        let claimed: WorkUnits.Claimed
                        do throws(StoreError) {
                            guard let next = try queue.claim(run: run) else {
                                exhausted = true
                                break
                            }
                            claimed = next
                            idle = .milliseconds(20)
                            signal.discard()
                        } catch {
                            report("Error: \(error)\n")
                            failure = ExitStatus(error)
                            break
                        }
                        held.withLock { _ = $0.insert(claimed.holder) }
                        let start = unitWalk(
                            claimed, run: run, queue: queue, options: options, tables: &tables, report: report)
                        guard case .walk(var walk) = start else {
                            held.withLock { _ = $0.remove(claimed.holder) }
                            // A database that cannot be reached now: looked at again after a tick.
                            if case .givenBack = start {
                                exhausted = true
                                break
                            }
                            continue
                        }
                        walk.command.sessions = sessions
                        var made = prepare(
                            &walk, token: token, gates: &gates, told: &told,
                            shared: { shared.gate(origin: "\($0.scheme)://\($0.host):\($0.port)") }, runtime: runtime)
                        if claimed.takenOver, !quiet {
                            made.report("Taking over from a worker whose lease ran out\n")
                        }
                        // The walk's error, kept with the unit if it fails.
                        let lastError = Locked<String?>(nil)
                        let tally = Locked<FetchTally?>(nil)
                        let write = made.report
                        made.report = { text in
                            if let line = text.split(separator: "\n").last(where: { $0.contains("Error: ") }),
                                let start = line.firstRange(of: "Error: ")?.upperBound
                            {
                                lastError.withLock { $0 = String(line[start...]) }
                            }
                            write(text)
                        }
                        made.tally = { counted in tally.withLock { $0 = counted } }
                        let walking = made
                        let command = walk.command
                        group.addTask {
                            let status = await command.run(walking, cancellation: cancellation)
                            return .walked(
                                claimed, status, error: lastError.withLock { $0 }, tally: tally.withLock { $0 })
                        }
                        running += 1
                    }
                    if (failure != nil || cancellation.isCancelled) && running == 0 { break }
                    if running == 0 {
                        // Nothing to claim and nothing walking here: the run is over when no unit is open.
                        do throws(StoreError) {
                            if try !queue.progress(run: run).isOpen { break }
                        } catch {
                            report("Error: \(error)\n")
                            failure = ExitStatus(error)
                            break
                        }
                    }
                    if exhausted || running == 0, !ticking {
                        ticking = true
                        let wait = idle
                        idle = min(idle * 2, .seconds(1))
                        group.addTask {
                            // Woken early when a commit anywhere brings units (LISTEN/NOTIFY).
                            await signal.wait(
                                seconds: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                            return .tick
                        }
                    }
                    guard let event = await group.next() else { break }
                    guard case .walked(let claimed, let status, let error, let tally) = event else {
                        ticking = false
                        continue
                    }
                    running -= 1
                    held.withLock { _ = $0.remove(claimed.holder) }
                    do throws(StoreError) {
                        switch status {
                        case .success:
                            try queue.finish(claimed.id, claim: claimed.holder, run: run)
                            walked.units += 1
                            walked.pages += tally?.pages ?? 0
                            walked.notes += tally?.notes ?? 0
                        case .interrupted:
                            try queue.release([claimed.holder])
                            failure = .interrupted
                        default:
                            let message = redacted(
                                error ?? "the walk ended with exit \(status.rawValue)", of: claimed.resource)
                            let outcome = try queue.fail(
                                claimed.id, claim: claimed.holder, error: message, exitCode: status.rawValue,
                                retries: options.retries)
                            let said: [WorkUnits.Failure: String] = [
                                .retried: "failed; it will be walked again (exit \(status.rawValue))",
                                .failedForGood: "failed for good (exit \(status.rawValue))",
                                .done: "done with its last page, then stopped (exit \(status.rawValue))",
                                .takenOver: "another worker took this unit over: its lease ran out here",
                            ]
                            if !quiet || outcome == .failedForGood {
                                report("[\(unitLabel(claimed))] \(said[outcome] ?? "")\n")
                            }
                        }
                    } catch {
                        report("Error: \(error)\n")
                        failure = ExitStatus(error)
                    }
                }
            }
            // Every walk has ended (a task group waits for its tasks): units still held are given back at once,
            // however the worker stops.
            try? queue.release(Array(held.withLock { $0 }))
            return cancellation.isCancelled ? .interrupted : failure
        }

        /// `message` with the secrets of resource `name`'s arguments written as the source writes them.
        private func redacted(_ message: String, of name: String) -> String {
            var message = message
            for secret in resources.first(where: { $0.name == name })?.secrets ?? [] {
                message = message.replacing(secret.value, with: secret.written)
            }
            return message
        }

        /// What a claimed unit comes to before any walk.
        private enum UnitStart {
            /// Its walk, holding the claim.
            case walk(Walk)
            /// Done without one (a child walk current for its parent), or failed for good (said).
            case settled
            /// Given back: the database could not be reached.
            case givenBack
        }

        /// What a worker's walk stopped short says: the unit is not lost.
        static let workerAdvice = "A worker goes on from there (this one, or another once its lease runs out)."

        /// What the workers of one run must share: each resource's name, path and parent, whether it is
        /// walked, and `--full`, as a digest.
        var plan: String {
            let described = resources.indices.map { index in
                [
                    resources[index].name, resources[index].path, resources[index].parent.map { "\($0)" } ?? "",
                    selected[index] ? "walked" : "", resources[index].slices.map { "\($0)" } ?? "",
                    resources[index].pagesPerUnit.map { "\($0) pages a unit of \(resources[index].command.pagination)" }
                        ?? "",
                ].joined(separator: "\u{1F}")
            }
            return ChildUnit.digest(Array((described + [full ? "full" : ""]).joined(separator: "\u{1E}").utf8))
        }

        /// How a unit is named in lines: its resource, and its parent's key for a child walk.
        private func unitLabel(_ claimed: WorkUnits.Claimed) -> String {
            claimed.parent.isEmpty ? claimed.resource : "\(claimed.resource) \(SourceError.clip(claimed.parent))"
        }

        /// The walk of a claimed unit, holding the claim; or none to make: a child walk already current for
        /// its parent (the unit done, its own children's units made), a unit that cannot be walked (its
        /// resource not in the source, its parent's row gone, a placeholder the row cannot fill: failed for
        /// good), a database that cannot be reached (given back, not counted) or that refuses what the unit
        /// needs (counted as a failure).
        private func unitWalk(
            _ claimed: WorkUnits.Claimed, run: Int, queue: WorkUnits, options: Workers,
            tables: inout [String: PostgresDestination], report: @Sendable (String) -> Void
        ) -> UnitStart {
            func failForGood(_ message: String, _ status: ExitStatus, retries: Int = 1) -> UnitStart {
                let message = redacted(message, of: claimed.resource)
                report("[\(unitLabel(claimed))] Error: \(message)\n")
                _ = try? queue.fail(
                    claimed.id, claim: claimed.holder, error: message, exitCode: status.rawValue, retries: retries,
                    final: retries == 1)
                return .settled
            }
            guard let index = resources.firstIndex(where: { $0.name == claimed.resource }) else {
                return failForGood("the source has no resource '\(SourceError.clip(claimed.resource))'", .usage)
            }
            let children = resources.indices.filter { selected[$0] && resources[$0].parent == index }
            let claim = UnitClaim(
                unit: claimed.id, run: run, holder: claimed.holder, lease: options.lease,
                children: children.map { resources[$0].name }, resource: claimed.resource)
            guard let parentIndex = resources[index].parent, !claimed.parent.isEmpty else {
                var command = resources[index].command
                var window: String?
                if let slices = resources[index].slices {
                    // A sliced resource's unit is one of its windows.
                    guard let bounds = SliceWindow(path: slices.path, key: claimed.parent),
                        let bounded = try? resources[index].command(window: bounds)
                    else {
                        return failForGood("'\(SourceError.clip(claimed.parent))' is not a window of its slice", .usage)
                    }
                    command = bounded
                    window = bounds.key
                } else if let count = resources[index].pagesPerUnit {
                    // A resource split into ranges of pages: the unit is one of them.
                    guard let range = PageRange(key: claimed.parent), range.count == count else {
                        return failForGood(
                            "'\(SourceError.clip(claimed.parent))' is not a range of \(count) pages", .usage)
                    }
                    command = resources[index].command(pages: range)
                    window = range.key
                }
                command.claim = claim
                command.resumeAdvice = Self.workerAdvice
                return .walk(Walk(resource: index, command: command, window: window))
            }
            do {
                let parentName = resources[parentIndex].name
                let row = try onTable(parentName, &tables) { table throws(StoreError) in
                    try table.parentRow(key: claimed.parent, child: resources[parentIndex].parent != nil)
                }
                guard let row else {
                    return failForGood(
                        "resource '\(parentName)' has no record \(SourceError.clip(claimed.parent)) any more",
                        .dataError)
                }
                let digest = ChildUnit.digest(row.json)
                let state = try onTable(claimed.resource, &tables) { table throws(StoreError) in
                    try table.childWalk(parent: claimed.parent)
                }
                let incremental = resources[parentIndex].command.incremental != nil
                if isCurrent(state, row: row, digest: digest, incremental: incremental) {
                    // Its own children are looked for in turn: units of theirs, in the same transaction.
                    var units: [(resource: String, parent: String)] = []
                    if !children.isEmpty {
                        try onTable(claimed.resource, &tables) { table throws(StoreError) in
                            try table.forEachParentRow(child: true, under: claimed.parent) { row in
                                for child in children { units.append((resources[child].name, row.key)) }
                            }
                        }
                    }
                    try queue.finish(claimed.id, claim: claimed.holder, run: run, children: units)
                    return .settled
                }
                let record = try ParentRecord(resource: parentName, key: row.key, json: row.json)
                var command = try resources[index].command(
                    for: record, parentRun: row.run, parentDigest: digest, environment: environment)
                command.claim = claim
                command.resumeAdvice = Self.workerAdvice
                return .walk(Walk(resource: index, command: command, parent: row.key))
            } catch let error as ParentError {
                return failForGood(
                    "\(error.message); no request was made for its \(resources[index].name)", .dataError)
            } catch let error as StoreError where error.kind == .unavailable {
                // The database, not the unit: given back, not counted as the unit's failure.
                report("[\(unitLabel(claimed))] Error: \(error)\n")
                try? queue.release([claimed.holder])
                return .givenBack
            } catch let error as StoreError {
                return failForGood(error.description, ExitStatus(error), retries: options.retries)
            } catch {
                let message = (error as? UsageError)?.message ?? "\(error)"
                return failForGood(
                    "resource '\(resources[parentIndex].name)' record \(SourceError.clip(claimed.parent)): \(message)",
                    .dataError)
            }
        }

        /// Runs `body` on the worker's connection to table `name`, opened once and again after a failure.
        @discardableResult
        private func onTable<Result>(
            _ name: String, _ tables: inout [String: PostgresDestination],
            _ body: (PostgresDestination) throws(StoreError) -> Result
        ) throws(StoreError) -> Result {
            guard let (connection, schema) = postgresTables else { throw StoreError("no --postgres") }
            let table: PostgresDestination
            if let open = tables[name] {
                table = open
            } else {
                table = try PostgresDestination(connection: connection, schema: schema, table: name)
                tables[name] = table
            }
            do {
                return try body(table)
            } catch  where error.kind == .unavailable {
                // Its connection was lost (a server restarted): once more on a new one.
                let reopened = try PostgresDestination(connection: connection, schema: schema, table: name)
                tables[name] = reopened
                return try body(reopened)
            } catch {
                tables[name] = nil
                throw error
            }
        }

        /// The units a new run starts with: each selected resource without a parent, and the child walks
        /// its rows are owed (as a sync without workers would walk them first); for a selected child whose
        /// parent is not selected, a walk for each of the parent's rows whose walk is not current.
        private func firstUnits() throws(StoreError) -> [(resource: String, parent: String)] {
            var tables: [String: PostgresDestination] = [:]
            var units: [(resource: String, parent: String)] = []
            for index in resources.indices where selected[index] {
                if let parent = resources[index].parent {
                    if !selected[parent] { try owed(index, under: nil, into: &units, tables: &tables) }
                    continue
                }
                if resources[index].slices != nil {
                    units += try windows(of: index).map { (resources[index].name, $0.key) }
                    continue
                }
                if let count = resources[index].pagesPerUnit {
                    // Its first range; that range's first page brings the others.
                    units.append((resources[index].name, PageRange(first: 1, count: count).key))
                    continue
                }
                let before = units.count
                if !full, !children(of: index).isEmpty {
                    let checkpoint = try onTable(resources[index].name, &tables) { table throws(StoreError) in
                        try table.checkpoint()
                    }
                    for child in children(of: index) { try owed(child, under: nil, into: &units, tables: &tables) }
                    // A copy whose children were not all walked since its last walk: those first; the resource
                    // itself is walked again by the next run.
                    if checkpoint?.isDone == true, units.count > before { continue }
                }
                units.append((resources[index].name, ""))
            }
            return units
        }

        /// Adds the units of child resource `child` owed by its parent's rows (those under `parent`, a
        /// key, when given): one per row whose walk is not current; under a row whose walk is, its own
        /// children's, in turn.
        private func owed(
            _ child: Int, under parent: String?, into units: inout [(resource: String, parent: String)],
            tables: inout [String: PostgresDestination]
        ) throws(StoreError) {
            guard let parentIndex = resources[child].parent else { return }
            let incremental = resources[parentIndex].command.incremental != nil
            var rows: [ParentRow] = []
            try onTable(resources[parentIndex].name, &tables) { table throws(StoreError) in
                try table.forEachParentRow(child: resources[parentIndex].parent != nil, under: parent) {
                    rows.append($0)
                }
            }
            var current: [String] = []
            for row in rows {
                let state = try onTable(resources[child].name, &tables) { table throws(StoreError) in
                    try table.childWalk(parent: row.key)
                }
                if isCurrent(state, row: row, digest: ChildUnit.digest(row.json), incremental: incremental) {
                    current.append(row.key)
                } else {
                    units.append((resources[child].name, row.key))
                }
            }
            for key in current {
                for grandchild in children(of: child) {
                    try owed(grandchild, under: key, into: &units, tables: &tables)
                }
            }
        }

        /// `sync --status`: the latest run (or `--run`'s): per resource, units pending, running, done and
        /// failed, pages and records; the slowest units; the failed ones with their errors; the workers
        /// seen within a lease. Exits with the first failed unit's status, else 0.
        func showStatus(_ options: Workers, report: (String) -> Void) -> ExitStatus {
            guard let (connection, schema) = postgresTables else { return .usage }
            let status: WorkUnits.Status?
            do {
                status = try WorkUnits(connection: connection, schema: schema, lease: options.lease)
                    .status(label: options.label)
            } catch {
                report("Error: \(error)\n")
                return ExitStatus(error)
            }
            guard let status else {
                report("No run yet\(options.label.map { " labelled \($0)" } ?? ""): start one with --worker\n")
                return options.label == nil ? .success : .dataError
            }
            var lines =
                "Run \(status.run)\(status.label.map { " (\($0))" } ?? ""): started \(status.started), "
                + (status.finished.map { "over at \($0)" } ?? "under way") + "\n"
            let width = max(8, status.resources.map(\.name.count).max() ?? 0)
            func padded(_ text: String, _ count: Int, left: Bool = false) -> String {
                let pad = String(repeating: " ", count: max(0, count - text.count))
                return left ? text + pad : pad + text
            }
            lines +=
                "  \(padded("resource", width, left: true))  pending  running     done  failed     pages     records\n"
            for resource in status.resources {
                lines += "  \(padded(resource.name, width, left: true))"
                for (value, column) in [
                    (resource.pending, 7), (resource.running, 7), (resource.done, 7), (resource.failed, 6),
                    (resource.pages, 8), (resource.records, 10),
                ] {
                    lines += "  " + padded("\(value)", column)
                }
                lines += "\n"
            }
            if !status.slowest.isEmpty {
                lines += "Slowest units:\n"
                for unit in status.slowest {
                    let name = unit.parent.isEmpty ? unit.resource : "\(unit.resource) \(SourceError.clip(unit.parent))"
                    lines += "  \(name): \(Clock.format(unit.seconds, places: 1)) s\n"
                }
            }
            if !status.failures.isEmpty {
                lines += "Failed units:\n"
                for unit in status.failures {
                    let name = unit.parent.isEmpty ? unit.resource : "\(unit.resource) \(SourceError.clip(unit.parent))"
                    lines += "  \(name) (exit \(unit.exitCode)): \(unit.error)\n"
                }
            }
            lines += "Workers seen within the last \(options.lease) s: \(status.workers.count)\n"
            for worker in status.workers { lines += "  \(worker)\n" }
            report(lines)
            return status.failures.first.map { ExitStatus(rawValue: $0.exitCode) ?? .failure } ?? .success
        }
    }
#endif
