import Foundation
import TestSupport
import Testing

// The same suite: one sync drained by several worker processes (`sync --worker`), killed, stopped, and
// with the server restarted under them.

/// A `notes-page` child running in the background, its output read as it comes.
final class Background: @unchecked Sendable {
    let process = Process()
    private let out: PipeReader
    private let err: PipeReader

    init(_ arguments: [String]) throws {
        process.executableURL = Run.binary
        process.arguments = arguments
        let outPipe = Spawning.pipe()
        let errPipe = Spawning.pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try Spawning.run(process)
        out = PipeReader(outPipe)
        err = PipeReader(errPipe)
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the child to end (killing it after `seconds`): its status (128 + the signal that ended
    /// it) and what it wrote.
    func finish(within seconds: Double = 120) -> (status: Int32, stdout: String, stderr: String) {
        let hung = waitOrKill(process, within: seconds)
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, out.text(), err.text() + (hung.map { "\nHUNG: \($0)" } ?? ""))
    }
}

extension PostgresEndToEndTests {
    /// Writes `scratch`/NAME.yaml: a source over `fixture`'s GitHub-shaped API, no titles, and `resources`
    /// (the list's YAML). Returns its path.
    @discardableResult
    static func source(_ resources: String, named name: String, _ fixture: FixtureServer, in scratch: Scratch)
        throws -> String
    {
        try Files.write(
            "base-url: \(fixture.url.replacingOccurrences(of: "/notes", with: ""))\ndefaults:\n  no-title: true\n"
                + "resources:\n" + resources, to: scratch.path(name + ".yaml"))
        return scratch.path(name + ".yaml")
    }

    /// Four workers of `arguments`, one killed with SIGKILL at random every `apart` µs (`kills` times) and
    /// replaced at once, as is any that ended on its own; `halfway` runs once after half the kills. The seed
    /// of the kills (`NOTES_TEST_SEED` replays one), what the workers that ended said, and what the last four
    /// said at their end (each waited for `within` seconds).
    static func killWorkers(
        _ arguments: [String], kills: Int, apart: ClosedRange<UInt32>, within: Double,
        halfway: () throws -> Void = {}
    ) throws -> (
        seed: UInt64, finished: [(status: Int32, stdout: String, stderr: String)],
        ends: [(status: Int32, stdout: String, stderr: String)]
    ) {
        let seed =
            ProcessInfo.processInfo.environment["NOTES_TEST_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var workers = try (0..<4).map { _ in try Background(arguments) }
        var finished: [(status: Int32, stdout: String, stderr: String)] = []
        for kill in 0..<kills {
            usleep(UInt32.random(in: apart, using: &random))
            for (index, worker) in workers.enumerated() where !worker.process.isRunning {
                finished.append(worker.finish())
                workers[index] = try Background(arguments)
            }
            if kill == kills / 2 { try halfway() }
            let victim = Int.random(in: 0..<workers.count, using: &random)
            workers[victim].signal(SIGKILL)
            _ = workers[victim].finish()
            workers[victim] = try Background(arguments)
        }
        return (seed, finished, workers.map { $0.finish(within: within) })
    }

    /// Waits (at most 6 s) until a unit of schema `schema` has committed `pages` pages; the most any has.
    @discardableResult
    static func waitForPages(_ database: PostgresCluster, schema: String, atLeast pages: Int) -> Int {
        var committed = 0
        for _ in 0..<300 where committed < pages {
            usleep(20_000)
            committed =
                Int(
                    (try? database.psql("SELECT coalesce(max(pages), 0) FROM \(schema).notes_page_units"))?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        return committed
    }

    /// Repos, their issues and the issues' comments: `workers.yaml`; with `invoices`, the Stripe-shaped
    /// invoices too, in a window a day of January 2026.
    static func workerTree(
        _ fixture: FixtureServer, in scratch: Scratch, reposPerPage: Int = 5, invoices: Bool = false
    ) throws -> String {
        let sliced = """
              - name: invoices
                path: v1/invoices
                paginate: keyset
                page-size: 3
                items-path: data
                slice: {path: created, params: ["created[gte]", "created[lt]"], step: 1d, from: 2026-01-01, to: 2026-02-01, format: unix}

            """
        return try Self.source(
            (invoices ? sliced : "") + """
                  - name: repos
                    path: repos?per_page=\(reposPerPage)
                  - name: issues
                    parent: repos
                    path: repos/octo/{parent.name}/issues?per_page=2
                    include-from-parent: [full_name]
                  - name: comments
                    parent: issues
                    path: "{parent.comments_url}"
                    include-from-parent: [id]
                """, named: "workers", fixture, in: scratch)
    }

    /// Checks the tree a run of workers left in `schema`: every repo, issue and comment once, under its
    /// parent, each issue's comments as many as it says; every unit done, exactly one per walk owed.
    static func checkTree(_ database: PostgresCluster, schema: String, repos: Int, _ context: String) throws {
        #expect(
            try database.psql("SELECT count(*), count(DISTINCT id) FROM \(schema).repos") == "\(repos)|\(repos)\n",
            "\(context)")
        #expect(
            try database.psql(
                """
                SELECT count(*) = count(DISTINCT id), count(*) FILTER (WHERE parent_full_name = 'octo/repo-' || parent) = count(*),
                    (SELECT count(DISTINCT parent) FROM \(schema).issues) = (SELECT count(*) FROM \(schema).repos r
                        WHERE EXISTS (SELECT 1 FROM \(schema).issues i WHERE i.parent = r.id))
                FROM \(schema).issues
                """) == "t|t|t\n", "\(context)")
        #expect(
            try database.psql(
                """
                SELECT count(*) FROM \(schema).issues i WHERE (i.json->>'comments')::int !=
                    (SELECT count(*) FROM \(schema).comments c WHERE c.parent_id = i.id)
                """) == "0\n", "\(context)")
        #expect(
            try database.psql(
                "SELECT count(*) = count(DISTINCT id), count(*) = (SELECT sum((json->>'comments')::int) FROM \(schema).issues) FROM \(schema).comments"
            ) == "t|t\n", "\(context)")
        // A unit per walk: the repos' one, one per repo, one per issue; each done, none twice.
        #expect(
            try database.psql(
                """
                SELECT count(*) FILTER (WHERE resource = 'repos'), count(*) FILTER (WHERE resource = 'issues'),
                    count(*) FILTER (WHERE resource = 'comments'), count(*) FILTER (WHERE state <> 'done')
                FROM \(schema).notes_page_units WHERE run = (SELECT max(run) FROM \(schema).notes_page_runs)
                """)
                == "1|\(repos)|\(try database.psql("SELECT count(*) FROM \(schema).issues").trimmingCharacters(in: .whitespacesAndNewlines))|0\n",
            "\(context)")
    }

    @Test(
        "Four workers drain one sync of three levels (600+ units) through kill -9s and a server restart: every record once, every unit done once, pages asked again only for the kills"
    )
    func workers() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(
            ["--count", "1", "--repos", "120", "--seed", "11", "--created-round", "86400"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS drained CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.workerTree(fixture, in: scratch, invoices: true)
        let arguments = [
            "sync", source, "--postgres", database.url(), "--schema", "drained", "--worker", "--run", "drained-1",
            "--lease", "2", "--quiet",
        ]
        try MarkedLog.mark(fixture, 1)
        // A kill every 0.1 to 0.6 s; the server restarted once, halfway.
        let kills = 24
        let (seed, finished, ends) = try Self.killWorkers(
            arguments, kills: kills, apart: 100_000...600_000, within: 150, halfway: { try database.restart() })
        let status = try await Run(["sync", source, "--postgres", database.url(), "--schema", "drained", "--status"])
        let replay = "NOTES_TEST_SEED=\(seed)\n\(status.stdout)\(status.stderr)"
        for end in ends + finished {
            #expect(end.status == 0, "\(replay): \(end.stderr)")
        }
        try Self.checkTree(database, schema: "drained", repos: 120, replay)
        // The invoices, a window a day walked by whichever worker claimed it: each once (their ids run from
        // in_1000001 with no gap), in the window of its day; a unit per window, each done.
        #expect(
            try database.psql(
                """
                SELECT count(*) = count(DISTINCT id), count(*) = max(substr(id, 4)::int) - 1000000, count(*) > 300,
                    count(*) FILTER (WHERE to_timestamp((json->>'created')::bigint) <> substr(slice, 1, 20)::timestamptz)
                FROM drained.invoices
                """) == "t|t|t|0\n", "\(replay)")
        #expect(
            try database.psql(
                "SELECT count(*), count(*) FILTER (WHERE state = 'done') FROM drained.notes_page_units WHERE resource = 'invoices'"
            ) == "31|31\n", "\(replay)")
        // Every page is asked once, and again only where a kill or the restart cut its walk: a worker
        // has a page in flight and at most one asked early.
        let log = MarkedLog(fixture.stop())
        let targets = log.targets(after: 1, under: "/repos") + log.targets(after: 1, under: "/v1/invoices")
        let again = targets.count - Set(targets).count
        #expect(again <= 2 * (kills + 4), "\(replay): \(again) pages asked again")
        #expect(
            try database.psql("SELECT count(*) FROM drained.notes_page_runs WHERE finished_at IS NOT NULL") == "1\n")
    }

    @Test(
        "A worker stopped (SIGSTOP) past its lease: another takes its unit over from its last committed page, and once woken it cannot commit"
    )
    func stoppedWorker() async throws {
        let database = try Self.server()
        // 40 pages of one repo each, 60 ms apart.
        let fixture = try FixtureServer(["--count", "1", "--repos", "40", "--issues", "0", "--latency", "60"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS stopped CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments = [
            "sync", try Self.slowRepos(fixture, in: scratch), "--postgres", database.url(), "--schema", "stopped",
            "--worker",
            "--lease", "2",
        ]
        try MarkedLog.mark(fixture, 1)
        let first = try Background(arguments)
        // Stopped once it has committed a few pages.
        Self.waitForPages(database, schema: "stopped", atLeast: 5)
        first.signal(SIGSTOP)
        let held = try database.psql("SELECT pages FROM stopped.notes_page_units").trimmingCharacters(
            in: .whitespacesAndNewlines)
        try MarkedLog.mark(fixture, 2)
        let second = try await Run(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("Taking over from a worker whose lease ran out"), "\(second.stderr)")
        first.signal(SIGCONT)
        let woken = first.finish()
        #expect(woken.status == 0, "\(woken.stderr)")
        #expect(woken.stderr.contains("no longer this worker's"), "\(woken.stderr)")
        #expect(woken.stderr.contains("[repos] another worker took this unit over"), "\(woken.stderr)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM stopped.repos") == "40|40\n")
        #expect(
            try database.psql("SELECT state, pages, records FROM stopped.notes_page_units") == "done|40|40\n")
        // The second worker went on after the first one's last committed page: none of those asked again
        // (pages fetched ahead and not committed may be).
        let after = MarkedLog(fixture.stop()).targets(after: 2, under: "/repos")
        let pagesHeld = Int(held) ?? 0
        #expect(pagesHeld >= 5)
        let pages = after.map { target in
            URLComponents(string: target)?.queryItems?.first { $0.name == "page" }?.value.flatMap(Int.init) ?? 1
        }
        #expect(!pages.isEmpty && pages.allSatisfy { $0 > pagesHeld }, "\(pagesHeld) pages held: \(after)")
    }
}

extension PostgresEndToEndTests {
    @Test(
        "A unit that fails is walked again up to --unit-retries times, then failed for good: the run goes on, ends, and the worker and --status exit with its status, naming it and its error"
    )
    func failedUnits() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "6", "--seed", "3"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS failing CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Self.source(
            """
              - name: repos
                path: repos?per_page=5
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues?per_page=2
              - name: broken
                parent: repos
                path: repos/octo/{parent.name}/nothing-here
            """, named: "failing", fixture, in: scratch)
        let base = ["sync", scratch.path("failing.yaml"), "--postgres", database.url(), "--schema", "failing"]
        try MarkedLog.mark(fixture, 1)
        let workers = try (0..<2).map { _ in try Background(base + ["--worker", "--unit-retries", "2", "--run", "f"]) }
        let ends = workers.map { $0.finish() }
        let status = try await Run(base + ["--status", "--run", "f"])
        for end in ends {
            #expect(end.status != 0 && end.status == status.status, "\(end.stderr)")
            #expect(end.stderr.contains("a unit failed (exit \(status.status)): see --status"), "\(end.stderr)")
        }
        #expect(status.stderr.contains("Failed units:\n  broken 1 (exit \(status.status)): "), "\(status.stderr)")
        #expect(status.stderr.contains("404"), "\(status.stderr)")
        // Every other unit done: the failures stop nothing else.
        #expect(
            try database.psql(
                "SELECT resource, state, failures, count(*) FROM failing.notes_page_units GROUP BY 1, 2, 3 ORDER BY 1")
                == "broken|failed|2|6\nissues|done|0|6\nrepos|done|0|1\n")
        #expect(
            try database.psql(
                "SELECT count(*) > 0 AND count(*) = (SELECT sum(records) FROM failing.notes_page_units WHERE resource = 'issues') FROM failing.issues"
            ) == "t\n")
        // Each failing path asked twice, once per walk.
        let asked = MarkedLog(fixture.stop()).targets(after: 1, under: "/repos").filter {
            $0.hasSuffix("/nothing-here")
        }
        #expect(asked.count == 12 && Set(asked).count == 6, "\(asked)")
        // A worker of the run that is over exits at once, with its status.
        let late = try await Run(base + ["--worker", "--run", "f"])
        #expect(late.status == status.status && late.stderr.contains("Run 1 (f) is over"), "\(late.stderr)")
        // One of another plan (other resources) is refused, naming the run.
        let other = try await Run(base + ["--worker", "--run", "f", "--resources", "repos"])
        #expect(
            other.status == 74
                && other.stderr.contains("run 1 of schema failing was started by workers of another sync"),
            "\(other.stderr)")
    }

    @Test("A child resource that includes no field of its parent, into Postgres: every child under its parent")
    func childWithoutIncludes() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "8", "--seed", "3", "--quiet"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS bare CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Self.source(
            """
              - name: repos
                path: repos?per_page=5
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues?per_page=2
            """, named: "bare", fixture, in: scratch)
        let run = try await Run(["sync", scratch.path("bare.yaml"), "--postgres", database.url(), "--schema", "bare"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try database.psql(
                "SELECT count(*) > 0, count(*) = count(DISTINCT id), count(*) FILTER (WHERE json->>'repository_url' LIKE '%/repo-' || parent) = count(*) FROM bare.issues"
            ) == "t|t|t\n")
    }

    @Test("--worker, --status and their options: refused where they cannot work, before any connection")
    func workerUsage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Files.write(
            """
            base-url: http://127.0.0.1:9/
            resources:
              - name: notes
                path: notes
            """, to: scratch.path("s.yaml"))
        let source = scratch.path("s.yaml")
        let url = "postgresql://nobody@127.0.0.1:9/none"
        for (arguments, message) in [
            (["--sqlite", "x.db", "--worker"], "--worker needs --postgres: the units of work are kept there"),
            (["-o", "dir", "--status"], "--status needs --postgres"),
            (["--postgres", url, "--worker", "--status"], "--worker and --status do not go together"),
            (["--postgres", url, "--worker", "--fail-fast"], "--fail-fast is not a worker's"),
            (["--postgres", url, "--run", "a"], "--run is a worker's: give --worker (or --status)"),
            (["--postgres", url, "--lease", "5"], "--lease is a worker's"),
            (["--postgres", url, "--status", "--wait"], "--wait is a worker's (--worker)"),
            (["--postgres", url, "--worker", "--lease", "1"], "--lease"),
            (["--postgres", url, "--worker", "--run", ""], "--run takes a label of 1 to 200 bytes"),
        ] {
            let run = try await Run(["sync", source] + arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}

extension PostgresEndToEndTests {
    /// The fixture's repos alone, one a page: `repos.yaml`.
    static func slowRepos(_ fixture: FixtureServer, in scratch: Scratch) throws -> String {
        try Self.source(
            """
              - name: repos
                path: repos?per_page=1
            """, named: "repos", fixture, in: scratch)
    }

    @Test(
        "A worker renews its lease while a page takes longer than the lease: nobody takes a unit over from a live worker"
    )
    func renewedLease() async throws {
        let database = try Self.server()
        // Three pages, each 3 s late: longer than the 2 s lease.
        let fixture = try FixtureServer(["--count", "1", "--repos", "3", "--issues", "0", "--latency", "3000"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS renewed CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments = [
            "sync", try Self.slowRepos(fixture, in: scratch), "--postgres", database.url(), "--schema", "renewed",
            "--worker", "--run", "r", "--lease", "2",
        ]
        try MarkedLog.mark(fixture, 1)
        let workers = try (0..<2).map { _ in try Background(arguments) }
        // About 10 s; two workers taking the unit from each other never end.
        let ends = workers.map { $0.finish(within: 40) }
        for end in ends {
            #expect(end.status == 0, "\(end.stderr)")
            #expect(!end.stderr.contains("Taking over"), "\(end.stderr)")
        }
        let asked = MarkedLog(fixture.stop()).targets(after: 1, under: "/repos")
        #expect(asked.count == 3 && Set(asked).count == 3, "\(asked)")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM renewed.repos") == "3|3\n")
    }

    @Test(
        "A worker stopped by SIGTERM gives its unit back at once (exit 130): the next worker goes on from its last committed page without waiting for the lease"
    )
    func interruptedWorker() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "30", "--issues", "0", "--latency", "50"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS interrupted CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments = [
            "sync", try Self.slowRepos(fixture, in: scratch), "--postgres", database.url(), "--schema", "interrupted",
            "--worker", "--lease", "600",
        ]
        let first = try Background(arguments)
        Self.waitForPages(database, schema: "interrupted", atLeast: 3)
        first.signal(SIGTERM)
        let stopped = first.finish()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(
            try database.psql("SELECT state, holder IS NULL, pages >= 3 FROM interrupted.notes_page_units")
                == "pending|t|t\n")
        let next = try await Run(arguments)
        #expect(next.status == 0 && !next.stderr.contains("Taking over"), "\(next.stderr)")
        #expect(next.seconds < 60, "waited for a lease of 600 s")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM interrupted.repos") == "30|30\n")
        #expect(try database.psql("SELECT state, pages FROM interrupted.notes_page_units") == "done|30\n")
    }
}

extension PostgresEndToEndTests {
    @Test("A sync that is not a worker's, while a worker walks the same table, is refused naming the worker")
    func plainBesideWorker() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "20", "--issues", "0", "--latency", "100"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS beside CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let base = [
            "sync", try Self.slowRepos(fixture, in: scratch), "--postgres", database.url(), "--schema", "beside",
        ]
        let worker = try Background(base + ["--worker"])
        Self.waitForPages(database, schema: "beside", atLeast: 1)
        let plain = try await Run(base)
        #expect(plain.status == 74, "\(plain.stderr)")
        #expect(
            plain.stderr.contains("another walk of beside.repos is running: notes-page worker "), "\(plain.stderr)")
        #expect(worker.finish().status == 0)
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM beside.repos") == "20|20\n")
    }
}

extension PostgresEndToEndTests {
    @Test(
        "Workers as a Slurm array job (sbatch --array=0-3 --wait) on a one-node cluster of the test's own: every record once, the run labelled with the job's id"
    )
    func slurmArray() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "40", "--seed", "21", "--quiet"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS slurm CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.workerTree(fixture, in: scratch)
        let worker = [
            Run.binary.path, "sync", source, "--postgres", database.url(), "--schema", "slurm", "--worker", "--quiet",
        ]
        let script = scratch.path("workers.sh")
        try Files.write(
            "#!/bin/sh\nexec " + worker.map { "'\($0)'" }.joined(separator: " ")
                + " --run \"slurm-$SLURM_ARRAY_JOB_ID\"\n", to: script)
        chmod(script, 0o755)
        let label: String
        if let problem = SlurmCluster.problem {
            // The same four workers, started here: what the job would run.
            print("Slurm cannot be started here (\(problem)): the four workers run as local processes")
            let workers = try (0..<4).map { _ in try Background(worker + ["--run", "local"]) }
            for end in workers.map({ $0.finish() }) { #expect(end.status == 0, "\(end.stderr)") }
            label = "local"
        } else {
            let cluster = try SlurmCluster()
            defer { cluster.stop() }
            let job = try cluster.sbatch(script, array: "0-3")
            let outputs = (0..<4).map { cluster.output(task: $0) }
            #expect(job.status == 0, "\(job.stdout)\(job.stderr)\(outputs)")
            let id = job.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            label = "slurm-\(id ?? "?")"
        }
        try Self.checkTree(database, schema: "slurm", repos: 40, label)
        #expect(try database.psql("SELECT label, finished_at IS NOT NULL FROM slurm.notes_page_runs") == "\(label)|t\n")
        // More than one task took units.
        let workers = try database.psql(
            "SELECT count(DISTINCT split_part(holder, '#', 1)) FROM slurm.notes_page_units WHERE holder IS NOT NULL")
        #expect((Int(workers.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 2, "\(workers)")
    }
}

extension PostgresEndToEndTests {
    @Test(
        "Workers keep one --rate between them per origin: the requests of three workers reach the server at least 1/rate apart"
    )
    func sharedRate() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(["--count", "1", "--repos", "24", "--issues", "0"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS rated CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Files.write(
            """
            base-url: \(fixture.url.replacingOccurrences(of: "/notes", with: ""))
            defaults:
              no-title: true
              rate: 20
            resources:
              - name: repos
                path: repos?per_page=8
              - name: issues
                parent: repos
                path: repos/octo/{parent.name}/issues
            """, to: scratch.path("rated.yaml"))
        let arguments = [
            "sync", scratch.path("rated.yaml"), "--postgres", database.url(), "--schema", "rated", "--worker",
            "--run", "rated",
        ]
        let workers = try (0..<3).map { _ in try Background(arguments) }
        for end in workers.map({ $0.finish() }) { #expect(end.status == 0, "\(end.stderr)") }
        #expect(try database.psql("SELECT count(*) FROM rated.notes_page_units WHERE state = 'done'") == "25\n")
        // Each request's arrival (ms since the server started), in order: 50 ms apart at 20 a second.
        let arrivals = fixture.stop().split(separator: "\n").filter { $0.hasPrefix("GET /repos") }.compactMap {
            line in line.split(separator: " ").last(where: { $0.hasPrefix("t=") }).flatMap { Int($0.dropFirst(2)) }
        }.sorted()
        #expect(arrivals.count >= 27)
        // A request delayed on its way (a process descheduled) shortens the gap after it, never the mean: three
        // workers each keeping 20 a second alone would average about 17 ms.
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
        let mean = Double(arrivals.last! - arrivals.first!) / Double(gaps.count)
        #expect(mean >= 45 && gaps.allSatisfy { $0 >= 20 }, "mean \(mean) ms, gaps (ms): \(gaps)")
    }

    @Test(
        "A rate limit one worker meets holds every worker of the sync: after a 429 with Retry-After: 3, no worker asks that origin until it has passed"
    )
    func sharedHold() async throws {
        let database = try Self.server()
        let fixture = try FixtureServer(
            ["--count", "3000", "--page-size", "50", "--fault", "429:3@5x1"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS held CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Three walks of the same origin, each a resource of its own, kept at 50 requests a second in all.
        try Files.write(
            """
            base-url: \(fixture.url.replacingOccurrences(of: "/notes", with: ""))
            defaults:
              no-title: true
              rate: 50
            resources:
              - name: a
                path: notes?copy=a
              - name: b
                path: notes?copy=b
              - name: c
                path: notes?copy=c
            """, to: scratch.path("held.yaml"))
        let arguments = [
            "sync", scratch.path("held.yaml"), "--postgres", database.url(), "--schema", "held", "--worker",
            "--run", "held",
        ]
        let workers = try (0..<3).map { _ in try Background(arguments) }
        for end in workers.map({ $0.finish() }) { #expect(end.status == 0, "\(end.stderr)") }
        for table in ["a", "b", "c"] {
            #expect(try database.psql("SELECT count(*) FROM held.\(table)") == "3000\n")
        }
        // Each request's arrival (ms since the server started) and whether it was the 429.
        let requests = fixture.stop().split(separator: "\n").filter { $0.hasPrefix("GET /notes") }.compactMap {
            line -> (at: Int, limited: Bool)? in
            guard
                let at = line.split(separator: " ").last(where: { $0.hasPrefix("t=") }).flatMap({ Int($0.dropFirst(2)) }
                )
            else { return nil }
            return (at, line.contains(" 429 "))
        }
        let limited = try #require(requests.first { $0.limited }?.at)
        #expect(requests.filter(\.limited).count == 1)
        // Requests already on their way when it came may still arrive; none is sent while the hold lasts.
        let during = requests.filter { $0.at > limited + 800 && $0.at < limited + 2_800 }.map(\.at)
        #expect(during.isEmpty, "429 at \(limited) ms; during its hold: \(during)")
        #expect(requests.contains { $0.at >= limited + 2_800 })
    }
}
