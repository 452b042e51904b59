import ArgumentParsing
import BenchmarkPairs
import Foundation

/// One benchmark: a named workload, in a child process of its own.
struct Benchmark {
    enum Run {
        /// An in-process ``Workload`` over the page, in a child `benchmarks --child` process.
        case workload(Workload)
        /// An external command; its wall time is measured by the parent.
        case command(@Sendable (Inputs) -> [String])
    }

    var name: String
    var run: Run
    /// The benchmark whose time this one is compared with (the ceiling), if any.
    var ceiling: [String]
    /// Bytes and notes it processes, for throughput.
    var size: (Inputs) -> (bytes: Int, notes: Int)
    /// Why it cannot run on this machine (a peer's program missing), or nil when it can.
    var unavailable: (Inputs) -> String? = { _ in nil }
    /// Runs before each of its runs, outside the time measured (removes what the run before wrote).
    var beforeEachRun: (Inputs) -> Void = { _ in }

    /// The peers: the clients people would write instead of notes-page, each beside the notes-page
    /// benchmark it does the job of. Their figures are context: `--compare` and the report's regression
    /// marks leave them out.
    static let peers = ["fetch/peer-node": "fetch/notes-page", "fetch/peer-python": "fetch/notes-page"]
        .merging(storePeers) { $1 }.merging(postgresPeers) { $1 }.merging(syncPeers) { $1 }

    /// What each benchmark measures, for the report's headings.
    static let summaries = [
        "decode/yajl-noop": "yajl with no-op C callbacks over the page: the ceiling",
        "decode/jsondecoder": "Foundation JSONDecoder into [Note] + Set<String>: a reference, not a target",
        "decode/typed": "our decoder, typed notes + id set, the page in one chunk",
        "decode/typed-64k": "our decoder, typed notes + id set, 64 KiB chunks",
        "decode/typed-64k-int": "the same notes with integer ids, each run paired with the string-id decode's",
        "decode/typed-1k": "our decoder, typed notes + id set, 1 KiB chunks",
        "decode/passthrough-64k": "the same, keeping each note's exact JSON, 64 KiB chunks",
        "idset/insert": "the id set alone, one insert per note",
        "decode/cli-file": "notes-page decode streaming the page file",
        "decode/cli-file-ndjson": "the same, writing each note's JSON as fetch does (to /dev/null)",
        "gen/notes-gen": "notes-gen writing the fixture directory",
        "fetch/curl-floor": "curl downloading every page: the transfer floor",
        "fetch/notes-page": "notes-page fetch --all from the fixture server",
        "fetch/notes-page-none": "the same walk keeping no note's JSON (--format none): the decode and the id set",
        "fetch/curl-floor-100": "curl downloading the same notes in 10,000 pages of 100 (a page's cost)",
        "fetch/notes-page-100": "notes-page fetch --all of those 10,000 pages",
        "fetch/notes-page-urlsession": "the same walk through URLSession (--transport urlsession), beside libcurl's",
        "fetch/peer-node": "Node fetch + JSON.parse, page after page",
        "fetch/peer-python": "Python urllib + json, page after page",
        "fetch/curl-gzip": "curl --compressed downloading the same pages gzip-compressed",
        "fetch/notes-page-gzip": "notes-page fetch --all from the same server, gzip-compressed",
        "latency/curl-sequential": "curl walking 100 pages with 20 ms of server time each: the sequential floor",
        "latency/sequential": "notes-page fetch --paginate page --parallel 1 on the same pages",
        "latency/parallel-8": "notes-page fetch --paginate page --parallel 8 on the same pages",
        "latency/auto-8": "notes-page fetch (auto) --parallel 8 on Django-style next URLs that walk offsets",
        "latency/chain-late": "header cursors, bodies as slow as the latency, --no-early-requests",
        "latency/chain-early": "the same with the next page requested as soon as its cursor header arrives",
        "latency/rest-100":
            "GET pages of 100 notes one after another, bodies as slow as the latency (the GraphQL rows' ceiling)",
        "latency/graphql-late": "the same notes as a GraphQL connection over POST, pageInfo after the records",
        "latency/graphql-early": "the same with pageInfo first: the next page asked for while the page streams",
    ].merging(storeSummaries) { $1 }.merging(postgresSummaries) { $1 }.merging(syncSummaries) { $1 }
        .merging(workerSummaries) { $1 }

    /// Every benchmark's name, in the order they run.
    static var names: [String] { all(Inputs(count: 0, root: "", binaries: "", cache: "")).map(\.name) }

    /// The benchmarks a selected one needs in the same run: its ceilings, and for a peer its notes-page row.
    var needs: [String] { ceiling + (Self.peers[name].map { [$0] } ?? []) }

    static func all(_ inputs: Inputs) -> [Benchmark] {
        let page: (Inputs) -> (Int, Int) = { ($0.pageBytes, $0.count) }
        let decode = ["decode/yajl-noop"]
        let fetch = ["fetch/curl-floor", "decode/yajl-noop"]
        let latency: (Inputs) -> (Int, Int) = { ($0.latencyNotes * 180, $0.latencyNotes) }
        let pages: @Sendable (Inputs) -> [String] = { inputs in
            [
                inputs.notesPage, "fetch", "--all", "--quiet", inputs.latencyURL + "?style=page", "-o", "/dev/null",
                "--paginate", "page", "--page-size", "1000", "--items-path", "results", "--total-path", "count",
            ]
        }
        // Each body drips for about as long as the latency (some 180 KB in 5.6 KB pieces, one a millisecond or so).
        let chain: @Sendable (Inputs) -> [String] = { inputs in
            [
                inputs.notesPage, "fetch", "--all", "--quiet", inputs.latencyURL + "?style=header&fault=drip:5600/1",
                "-o", "/dev/null", "--paginate", "header", "--next-header", "X-Next-Cursor",
            ]
        }
        // GraphQL against GET: pages of 100 (the most GitHub sends), each body dripping for about the latency.
        let graphQLSize: (Inputs) -> (Int, Int) = { ($0.graphQLPages * 100 * 180, $0.graphQLPages * 100) }
        let graphQL: @Sendable (Inputs, String) -> [String] = { inputs, query in
            [
                inputs.notesPage, "fetch", "--all", "--quiet", "--format", "none", "--max-pages",
                "\(inputs.graphQLPages)",
                "--graphql", query, "--connection", "data.notes",
                inputs.latencyURL.replacingOccurrences(of: "/notes", with: "/graphql") + "?fault=drip:256/1",
            ]
        }
        return [
            Benchmark(name: "decode/yajl-noop", run: .workload(.yajlNoop), ceiling: [], size: page),
            Benchmark(name: "decode/jsondecoder", run: .workload(.jsonDecoder), ceiling: decode, size: page),
            Benchmark(name: "decode/typed", run: .workload(.typed), ceiling: decode, size: page),
            Benchmark(name: "decode/typed-64k", run: .workload(.typed64K), ceiling: decode, size: page),
            // Integer ids against string ids: the string-id decode is the ceiling, so the ratio is paired.
            Benchmark(
                name: "decode/typed-64k-int", run: .workload(.typed64KIntegerIDs), ceiling: ["decode/typed-64k"],
                size: { ($0.integerPageBytes, $0.count) }),
            Benchmark(name: "decode/typed-1k", run: .workload(.typed1K), ceiling: decode, size: page),
            Benchmark(name: "decode/passthrough-64k", run: .workload(.passThrough), ceiling: decode, size: page),
            Benchmark(
                name: "idset/insert", run: .workload(.idSet), ceiling: [], size: { (0, max(1, $0.pageBytes / 177)) }),
            Benchmark(
                name: "decode/cli-file",
                run: .command {
                    [
                        $0.notesPage, "decode", "--format", "none", "--max-page-bytes", "4G", "--max-page-notes",
                        "100000000", $0.pagePath,
                    ]
                },
                ceiling: decode,
                size: page
            ),
            // The same page written out as notes-page fetch writes its pages: what a walk is measured against.
            Benchmark(
                name: "decode/cli-file-ndjson",
                run: .command {
                    [
                        $0.notesPage, "decode", "--max-page-bytes", "4G", "--max-page-notes", "100000000",
                        $0.pagePath,
                    ]
                },
                ceiling: decode,
                size: page
            ),
            Benchmark(
                name: "gen/notes-gen",
                run: .command {
                    [$0.notesGen, "--count", "\($0.count)", "--page-size", "1000", "--out", $0.scratch + "/gen"]
                },
                ceiling: [],
                size: { ($0.directoryBytes, $0.count) }
            ),
            Benchmark(
                name: "fetch/curl-floor",
                run: .command { ["curl", "-s", "-K", $0.curlConfig] },
                ceiling: [],
                size: { ($0.directoryBytes, $0.count) }
            ),
            Benchmark(
                name: "fetch/notes-page",
                run: .command { [$0.notesPage, "fetch", "--all", "--quiet", $0.serverURL, "-o", "/dev/null"] },
                ceiling: fetch,
                size: { ($0.directoryBytes, $0.count) }
            ),
            Benchmark(
                name: "fetch/notes-page-none",
                run: .command { [$0.notesPage, "fetch", "--all", "--quiet", $0.serverURL, "--format", "none"] },
                ceiling: fetch,
                size: { ($0.directoryBytes, $0.count) }
            ),
            // The same notes in ten times as many pages: what a page costs besides its bytes.
            Benchmark(
                name: "fetch/curl-floor-100",
                run: .command { ["curl", "-s", "-K", $0.smallPagesCurlConfig] },
                ceiling: [],
                size: { ($0.directoryBytes, $0.count) }
            ),
            Benchmark(
                name: "fetch/notes-page-100",
                run: .command { [$0.notesPage, "fetch", "--all", "--quiet", $0.smallPagesURL, "-o", "/dev/null"] },
                ceiling: ["fetch/curl-floor-100"],
                size: { ($0.directoryBytes, $0.count) }
            ),
            // The same walk through URLSessionTransport (what iOS uses), its ratio to the libcurl walk's.
            Benchmark(
                name: "fetch/notes-page-urlsession",
                run: .command {
                    [
                        $0.notesPage, "fetch", "--all", "--quiet", "--transport", "urlsession", $0.serverURL, "-o",
                        "/dev/null",
                    ]
                },
                ceiling: ["fetch/notes-page"],
                size: { ($0.directoryBytes, $0.count) }
            ),
            // The same walk with every page gzip-compressed: inflating is part of the work.
            Benchmark(
                name: "fetch/curl-gzip",
                run: .command { ["curl", "-s", "-K", $0.gzipCurlConfig] },
                ceiling: [],
                size: { ($0.directoryBytes, $0.count) }
            ),
            Benchmark(
                name: "fetch/notes-page-gzip",
                run: .command { [$0.notesPage, "fetch", "--all", "--quiet", $0.gzipURL, "-o", "/dev/null"] },
                ceiling: ["fetch/curl-gzip", "decode/yajl-noop"],
                size: { ($0.directoryBytes, $0.count) }
            ),
            // Latency: 20 ms of server time per request. Pages by number can go in parallel; a chain whose
            // next cursor comes with the head can request the next page while the body still streams.
            Benchmark(
                name: "latency/curl-sequential",
                run: .command { ["curl", "-s", "-K", $0.latencyCurlConfig] },
                ceiling: [],
                size: latency
            ),
            Benchmark(
                name: "latency/sequential",
                run: .command { pages($0) + ["--parallel", "1"] },
                ceiling: ["latency/curl-sequential"],
                size: latency
            ),
            Benchmark(
                name: "latency/parallel-8",
                run: .command { pages($0) + ["--parallel", "8"] },
                ceiling: ["latency/curl-sequential"],
                size: latency
            ),
            Benchmark(
                name: "latency/auto-8",
                run: .command { inputs in
                    [
                        inputs.notesPage, "fetch", "--all", "--quiet", inputs.latencyURL + "?style=offset", "-o",
                        "/dev/null", "--items-path", "results", "--next-path", "next", "--parallel", "8",
                    ]
                },
                ceiling: ["latency/curl-sequential"],
                size: latency
            ),
            Benchmark(
                name: "latency/chain-late",
                run: .command { chain($0) + ["--no-early-requests"] },
                ceiling: [],
                size: latency
            ),
            Benchmark(
                name: "latency/chain-early",
                run: .command { chain($0) },
                ceiling: ["latency/chain-late"],
                size: latency
            ),
            Benchmark(
                name: "latency/rest-100",
                run: .command { inputs in
                    [
                        inputs.notesPage, "fetch", "--all", "--quiet", "--format", "none", "--max-pages",
                        "\(inputs.graphQLPages)", inputs.latencyURL + "?style=page&fault=drip:256/1", "--paginate",
                        "page", "--page-size", "100", "--parallel", "1", "--no-early-requests", "--items-path",
                        "results",
                    ]
                },
                ceiling: [],
                size: graphQLSize
            ),
            Benchmark(
                name: "latency/graphql-late",
                run: .command { graphQL($0, $0.graphQLLate) },
                ceiling: ["latency/rest-100"],
                size: graphQLSize
            ),
            Benchmark(
                name: "latency/graphql-early",
                run: .command { graphQL($0, $0.graphQLEarly) },
                ceiling: ["latency/graphql-late"],
                size: graphQLSize
            ),
            // The peers write the notes to standard output, which the harness points at /dev/null.
            Benchmark(
                name: "fetch/peer-node",
                run: .command { ["node", $0.root + "/Benchmarks/peers/node-fetch.mjs", $0.serverURL] },
                ceiling: fetch,
                size: { ($0.directoryBytes, $0.count) },
                unavailable: { probe(["node", $0.root + "/Benchmarks/peers/node-fetch.mjs", "--probe"], "Node 18+") }
            ),
            Benchmark(
                name: "fetch/peer-python",
                run: .command { [$0.python, $0.root + "/Benchmarks/peers/python-urllib.py", $0.serverURL] },
                ceiling: fetch,
                size: { ($0.directoryBytes, $0.count) },
                unavailable: {
                    probe([$0.python, $0.root + "/Benchmarks/peers/python-urllib.py", "--probe"], "Python 3")
                }
            ),
        ] + store(inputs) + postgres(inputs) + sync(inputs) + workers(inputs)
    }
}

/// Why `arguments` (a peer's probe) cannot run here: its program is not on `PATH`, or the probe fails.
/// - Returns: nil when the probe exits 0.
func probe(_ arguments: [String], _ needed: String) -> String? {
    guard let program = findProgram(arguments[0]) else { return "\(arguments[0]) not found on PATH" }
    let result = spawn([program] + arguments.dropFirst(), captureOutput: false)
    return result.status == 0 ? nil : "\(program) cannot run it (needs \(needed))"
}

/// Figures of one benchmark over its samples.
struct Figures: Codable {
    var wallP50: Double
    var wallP90: Double
    var cpuP50: Double
    var peakResident: Int
    var megabytesPerSecond: Double
    var notesPerSecond: Double
    /// p50 time over the slower of its ceilings' p50 times (lower is better); nil without a ceiling.
    var ratio: Double?
    var samples: Int
    /// Heap allocations of the measured part (the fewest of the samples); nil for commands, or where the
    /// platform cannot count them.
    var allocations: Int?
}

/// Runs benchmarks: a warm-up and `samples` measured runs each, every run a child process.
struct Harness {
    var inputs: Inputs
    var samples: Int
    var executable: String

    /// A warm-up and `samples` measured runs of `benchmark`; with `ceilings`, each measured run comes
    /// right after a run of each ceiling (``Pairing``), whose runs are returned too.
    func measure(_ benchmark: Benchmark, pairedWith ceilings: [Benchmark] = []) -> (
        runs: [ChildRun], ceilingRuns: [[ChildRun]]
    ) {
        Pairing.interleave(samples: samples, ceilings: ceilings.count) { ceiling in
            runOnce(ceiling.map { ceilings[$0] } ?? benchmark)
        }
    }

    private func runOnce(_ benchmark: Benchmark) -> ChildRun {
        benchmark.beforeEachRun(inputs)
        var run: ChildRun
        switch benchmark.run {
        case .workload(let workload):
            run = spawn([executable, "--child", workload.rawValue, "--input", workload.input(inputs)])
        case .command(let command):
            // GNU time forks (no vfork), so the command's high-water mark is its own.
            let record = inputs.scratch + "/peak.txt"
            run = spawn(["/usr/bin/time", "-f", "%M", "-o", record] + command(inputs), captureOutput: false)
            let kilobytes =
                (try? String(contentsOfFile: record, encoding: .utf8))
                .flatMap { Int($0.split(separator: "\n").last ?? "") } ?? 0
            run.peakResident = kilobytes * 1024
        }
        guard run.status == 0 else {
            FileHandle.standardError.write(Data("benchmark \(benchmark.name) failed with status \(run.status)\n".utf8))
            exit(1)
        }
        return run
    }

    /// The time a run counts: the measured part's for an in-process workload, the whole run's for a command.
    func time(_ run: ChildRun, of benchmark: Benchmark) -> Double {
        if case .workload = benchmark.run, let data = run.output.data(using: .utf8),
            let result = try? JSONDecoder().decode(WorkloadResult.self, from: data)
        {
            return result.seconds
        }
        return run.wall
    }

    /// - Parameter ceilingTimes: Each ceiling's time in the rounds of `runs` (none: no ratio).
    func figures(_ benchmark: Benchmark, runs: [ChildRun], ceilingTimes: [[Double]]) -> Figures {
        let inOrder = runs.map { time($0, of: benchmark) }
        let times = inOrder.sorted()
        let cpu = runs.map { $0.userSeconds + $0.systemSeconds }.sorted()
        let peaks = runs.map { run -> Int in
            if case .workload = benchmark.run, let data = run.output.data(using: .utf8),
                let result = try? JSONDecoder().decode(WorkloadResult.self, from: data)
            {
                return result.peakResident
            }
            return run.peakResident
        }
        let allocations = runs.compactMap { run -> Int? in
            guard case .workload = benchmark.run, let data = run.output.data(using: .utf8) else { return nil }
            return (try? JSONDecoder().decode(WorkloadResult.self, from: data))?.allocations
        }
        let p50 = percentile(times, 0.5)
        let size = benchmark.size(inputs)
        return Figures(
            wallP50: p50,
            wallP90: percentile(times, 0.9),
            cpuP50: percentile(cpu, 0.5),
            peakResident: peaks.max() ?? 0,
            megabytesPerSecond: p50 > 0 ? Double(size.bytes) / 1e6 / p50 : 0,
            notesPerSecond: p50 > 0 ? Double(size.notes) / p50 : 0,
            ratio: Pairing.ratio(inOrder, ceilings: ceilingTimes),
            samples: runs.count,
            allocations: allocations.min()
        )
    }

    private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))]
    }
}
