import Foundation
import NotesFetch
import NotesStore

// One sync drained by several worker processes (`notes-page sync --worker`), the units of work in the
// benchmarks' PostgreSQL cluster: the repositories' walk and one walk of issues for each of 399
// repositories (400 units, a page of 100 issues each, 20 ms a response from the fixture server), with 1, 2
// and 4 workers started at once, beside one process walking the same sync with `--parallel 4`.

extension Benchmark {
    static let workerSummaries = [
        "sync/workers-1":
            "one notes-page sync --worker draining a sync of 400 units (a page of issues for each repository, 20 ms a page) into PostgreSQL",
        "sync/workers-2": "two worker processes draining the same sync together",
        "sync/workers-4": "four worker processes draining the same sync together",
        "sync/parallel-4": "one notes-page sync --parallel 4 of the same sync, without workers",
        "sync/ranges-whole":
            "one notes-page sync --worker walking one resource of a page each (20 ms a page, one in flight) whole",
        "sync/ranges-1": "the same resource split into ranges of 10 pages (pages-per-unit), one worker",
        "sync/ranges-4": "four worker processes draining the same ranges together",
        "queue/claims":
            "4 threads, each with its own connection, claiming and finishing units of work (the whole process: a run of them made, then all claimed)",
    ]

    /// Units the claim benchmark makes and claims.
    static func claimUnits(_ inputs: Inputs) -> Int { inputs.count >= 1_000_000 ? 20_000 : 2_000 }

    static func workers(_ inputs: Inputs) -> [Benchmark] {
        let size: (Inputs) -> (Int, Int) = { ($0.workerPages * 100 * 150, $0.workerParents * 100) }
        let unavailable: @Sendable (Inputs) -> String? = { _ in PostgresBench.shared.problem }
        let fresh: @Sendable (Inputs) -> Void = { _ in PostgresBench.shared.sql("DROP SCHEMA IF EXISTS workers CASCADE")
        }
        let sync: @Sendable (Inputs) -> [String] = { inputs in
            [
                inputs.notesPage, "sync", inputs.workersSource, "--postgres", PostgresBench.shared.url, "--schema",
                "workers",
            ]
        }
        /// `count` workers started at once, each to its end: a shell waits for them all, and fails if one does.
        func workers(_ count: Int, source: @escaping @Sendable (Inputs) -> String = { $0.workersSource })
            -> @Sendable (Inputs) -> [String]
        {
            { inputs in
                var command = sync(inputs)
                command[2] = source(inputs)
                let one = (command + ["--worker", "--run", "bench", "--quiet"]).map { "'\($0)'" }.joined(
                    separator: " ")
                let script =
                    "pids=''; for i in $(seq \(count)); do \(one) & pids=\"$pids $!\"; done; "
                    + "for p in $pids; do wait \"$p\" || exit 1; done"
                return ["/bin/sh", "-c", script]
            }
        }
        let claims = Benchmark(
            name: "queue/claims",
            run: .command { inputs in
                [
                    ProcessInfo.processInfo.arguments[0], "--claims", PostgresBench.shared.url, "--units",
                    "\(claimUnits(inputs))", "--workers", "4",
                ]
            }, ceiling: [], size: { (0, claimUnits($0)) }, unavailable: unavailable,
            beforeEachRun: { _ in PostgresBench.shared.sql("DROP SCHEMA IF EXISTS claims CASCADE") })
        return [claims]
            + [1, 2, 4].map { count in
                Benchmark(
                    name: "sync/workers-\(count)", run: .command(workers(count)),
                    ceiling: count == 1 ? [] : ["sync/workers-1"], size: size, unavailable: unavailable,
                    beforeEachRun: fresh)
            } + [
                Benchmark(
                    name: "sync/parallel-4", run: .command { sync($0) + ["--parallel", "4", "--quiet"] },
                    ceiling: ["sync/workers-1"], size: size, unavailable: unavailable, beforeEachRun: fresh)
            ] + ranges(unavailable: unavailable, fresh: fresh, workers: workers)
    }

    /// One resource of the workers' server, a repository a page (`workerParents` pages, 20 ms each, one
    /// in flight), walked whole by one worker, then split into ranges of 10 pages for 1 and 4 workers.
    private static func ranges(
        unavailable: @escaping @Sendable (Inputs) -> String?, fresh: @escaping @Sendable (Inputs) -> Void,
        workers: (Int, @escaping @Sendable (Inputs) -> String) -> @Sendable (Inputs) -> [String]
    ) -> [Benchmark] {
        let size: (Inputs) -> (Int, Int) = { ($0.workerParents * 150, $0.workerParents) }
        return [
            Benchmark(
                name: "sync/ranges-whole", run: .command(workers(1, { $0.wholeSource })), ceiling: [], size: size,
                unavailable: unavailable, beforeEachRun: fresh),
            Benchmark(
                name: "sync/ranges-1", run: .command(workers(1, { $0.rangesSource })), ceiling: ["sync/ranges-whole"],
                size: size, unavailable: unavailable, beforeEachRun: fresh),
            Benchmark(
                name: "sync/ranges-4", run: .command(workers(4, { $0.rangesSource })), ceiling: ["sync/ranges-1"],
                size: size, unavailable: unavailable, beforeEachRun: fresh),
        ]
    }

    /// The workers' target: four worker processes at least 3.5× as fast as one, on a sync the latency
    /// bounds (the server is not the bottleneck); two workers and `--parallel 4` are shown beside it.
    static func workerTargets(_ results: [String: Figures]) -> [String] {
        var lines: [String] = []
        if let whole = results["sync/ranges-whole"]?.wallP50, let four = results["sync/ranges-4"]?.wallP50 {
            lines.append(
                "shown   one resource in ranges of pages, 4 worker processes: "
                    + String(format: "%.2f× as fast as 1 worker walking it whole", whole / four))
        }
        guard let one = results["sync/workers-1"]?.wallP50 else { return lines }
        if let four = results["sync/workers-4"]?.wallP50 {
            let speedup = one / four
            lines.append(
                "\(speedup >= 3.5 ? "met    " : "NOT MET") sync with 4 worker processes at least 3.5× as fast as 1: "
                    + String(format: "%.2f×", speedup))
        }
        for (name, what) in [
            ("sync/workers-2", "2 worker processes"), ("sync/parallel-4", "one process, --parallel 4"),
        ] {
            if let wall = results[name]?.wallP50 {
                lines.append("shown   sync with \(what): " + String(format: "%.2f× as fast as 1 worker", one / wall))
            }
        }
        return lines
    }
}

/// `benchmarks --claims URL`: makes a run of `units` units of work in schema `claims`, then claims and
/// finishes them all from `workers` threads, each with a connection of its own, as workers do.
func claimAll(url: String, units: Int, workers: Int) -> Int32 {
    do {
        let queue = try WorkUnits(connection: url, schema: "claims", lease: 30)
        let run = try queue.join(label: nil, plan: "claims") { () throws(StoreError) in
            (0..<units).map { ("unit", "\($0)") }
        }
        let failed = ClaimFailure()
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let worker = try WorkUnits(connection: url, schema: "claims", lease: 30)
                    while let claimed = try worker.claim(run: run.number) {
                        try worker.finish(claimed.id, claim: claimed.holder, run: run.number)
                    }
                } catch {
                    print("queue/claims: \(error)")
                    failed.set()
                }
            }.start()
        }
        group.wait()
        return try !queue.progress(run: run.number).isOpen && !failed.isSet ? 0 : 1
    } catch {
        print("queue/claims: \(error)")
        return 1
    }
}

/// Whether a thread of the claim benchmark failed.
private final class ClaimFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var failed = false

    func set() { lock.withLock { failed = true } }
    var isSet: Bool { lock.withLock { failed } }
}
