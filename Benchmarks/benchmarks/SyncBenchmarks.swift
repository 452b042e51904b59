import Foundation

// A sync's fan-out: `notes-page sync` of repositories and each repository's issues from the fixture
// server's GitHub-shaped API (`--repos N --issues 300 --fixed --latency 20`: every repository three pages of
// 100 issues, each page 20 ms of server time), beside curl fetching the same pages one after another (the
// sequential floor, pages × latency) and dlt's `rest_api` source walking the same resources
// (`parallelized: True`, Benchmarks/peers/dlt-rest-fanout.py, installed by `make bench`).

extension Benchmark {
    static let syncPeers = ["sync/dlt-rest": "sync/fanout-8"]

    static let syncSummaries = [
        "sync/fanout-floor":
            "curl fetching a sync's pages one after another (repositories, then each one's 3 pages of 100 issues), 20 ms each: the sequential floor",
        "sync/fanout-8": "notes-page sync --parallel 8 of the repositories and each one's issues into SQLite",
        "sync/dlt-rest": "dlt's rest_api source, the issues resolved from each repository, parallelized, into SQLite",
    ]

    static func sync(_ inputs: Inputs) -> [Benchmark] {
        let size: (Inputs) -> (Int, Int) = { ($0.fanoutPages * 100 * 150, $0.fanoutParents * 300) }
        let database: @Sendable (Inputs) -> String = { inputs in inputs.scratch + "/fanout.db" }
        let dltDatabase: @Sendable (Inputs) -> String = { inputs in inputs.scratch + "/fanout-dlt.db" }
        let dltWork: @Sendable (Inputs) -> String = { inputs in inputs.scratch + "/fanout-dlt" }
        let python: @Sendable (Inputs) -> String = { inputs in inputs.root + "/.build/bench-peers/bin/python" }
        let script: @Sendable (Inputs) -> String = { inputs in inputs.root + "/Benchmarks/peers/dlt-rest-fanout.py" }
        return [
            Benchmark(
                name: "sync/fanout-floor",
                run: .command { ["curl", "-s", "-K", $0.fanoutCurlConfig] },
                ceiling: [],
                size: size
            ),
            Benchmark(
                name: "sync/fanout-8",
                run: .command {
                    [$0.notesPage, "sync", $0.fanoutSource, "--sqlite", database($0), "--parallel", "8", "--quiet"]
                },
                ceiling: ["sync/fanout-floor"],
                size: size,
                beforeEachRun: { inputs in
                    for suffix in ["", "-wal", "-shm"] {
                        try? FileManager.default.removeItem(atPath: database(inputs) + suffix)
                    }
                }
            ),
            Benchmark(
                name: "sync/dlt-rest",
                run: .command { [python($0), script($0), $0.fanoutBase, dltDatabase($0), dltWork($0)] },
                ceiling: ["sync/fanout-floor"],
                size: size,
                unavailable: { inputs in
                    FileManager.default.isExecutableFile(atPath: python(inputs))
                        ? probe([python(inputs), script(inputs), "--probe"], "dlt's rest_api")
                        : "no \(python(inputs)) (Benchmarks/peers/install.sh, run by make bench, installs dlt there)"
                },
                beforeEachRun: { inputs in
                    for path in [dltDatabase(inputs), dltWork(inputs)] {
                        try? FileManager.default.removeItem(atPath: path)
                    }
                }
            ),
        ]
    }

    /// The fan-out's targets: the parallel sync against the sequential floor, and against dlt. With 8 walks
    /// at once the latency alone bounds the first at pages × 20 ms / 8, which is also why the second (dlt
    /// at its 5 extract workers) cannot pass about 5× here: it measures, it does not pretend.
    static func syncTargets(_ results: [String: Figures]) -> [String] {
        var lines: [String] = []
        if let ratio = results["sync/fanout-8"]?.ratio {
            lines.append(
                "\(ratio <= 0.2 ? "met    " : "NOT MET") sync --parallel 8 of parents and their children within 0.2× of the sequential floor (pages × latency): "
                    + String(format: "%.2f×", ratio))
        }
        if let ours = results["sync/fanout-8"], let dlt = results["sync/dlt-rest"] {
            let faster = dlt.wallP50 / ours.wallP50
            let memory = Double(dlt.peakResident) / Double(max(1, ours.peakResident))
            lines.append(
                "\(faster >= 10 ? "met    " : "NOT MET") sync --parallel 8 at least 10× faster than dlt's rest_api: "
                    + String(format: "%.2f×", faster))
            lines.append(
                "\(memory >= 3 ? "met    " : "NOT MET") sync --parallel 8 at a third of dlt's rest_api's memory or less: "
                    + String(format: "%.2f× less", memory))
        }
        return lines
    }
}
