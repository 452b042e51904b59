import ArgumentParsing
import BenchmarkPairs
import Foundation

// `swift run -c release benchmarks`: throughput and peak memory of the decoder, the id set, notes-gen and
// fetch, each benchmark in its own child process, side by side with baselines measured in the same run.
// `swift run benchmarks` (a debug build) builds the release benchmarks and runs them instead.

let spec = CommandSpec(
    name: "benchmarks",
    overview: """
        Measure notes-page: time, throughput, CPU and peak memory, as ratios to baselines of the same run.
        A debug build builds the release benchmarks and runs them in its place.
        """,
    options: [
        .init("--filter", value: "text", help: "Run only the benchmarks whose name contains this."),
        .init("--quick", help: "Small inputs (20,000 notes) and 2 samples: for CI, never for figures of record."),
        .init("--samples", value: "n", help: "Measured runs per benchmark, after one warm-up. Default: 5."),
        .init("--save", value: "name", help: "Write the figures to Benchmarks/Baselines/<name>.json."),
        .init(
            "--compare", value: "name",
            help: "Compare with Benchmarks/Baselines/<name>.json; exit 1 if worse than the thresholds."),
        .init("--format", value: "format", help: "text, markdown or json. Default: text."),
        .init(
            "--report", value: "file",
            help: "Write an HTML report of this run beside every saved baseline to <file>."),
        .init("--from-baselines", help: "With --report: the saved baselines alone, nothing run."),
        .init(
            "--baseline-table", value: "file",
            help: "Write the newest saved baseline as a Markdown table into <file>, between its markers; nothing run."),
        .init("--baselines", value: "dir", help: "Where baselines are saved and read. Default: Benchmarks/Baselines."),
        .init("--child", value: "workload", help: "(internal) run one workload and print its result."),
        .init("--input", value: "file", help: "(internal) the page the workload reads."),
        .init(
            "--claims", value: "url",
            help: "(internal) make units of work in the PostgreSQL database at url, and claim and finish them all."),
        .init("--units", value: "n", help: "(internal) with --claims: how many units."),
        .init("--workers", value: "n", help: "(internal) with --claims: how many threads claim them at once."),
    ]
)

/// Prints a usage error and exits 64.
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data(spec.errorText(UsageError(message)).utf8))
    exit(64)
}

/// The whole file in one array, read once (no second copy through `Data`).
func readWhole(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    let size = Int(status.st_size)
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        while count < size {
            let read = Glibc.read(descriptor, buffer.baseAddress! + count, size - count)
            if read <= 0 { break }
            count += read
        }
    }
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let parsed: ParsedArguments
do {
    parsed = try ParsedArguments(Array(CommandLine.arguments.dropFirst()), spec: spec)
} catch {
    FileHandle.standardError.write(Data(spec.errorText(error).utf8))
    exit(64)
}
if parsed.wantsHelp {
    print(spec.help, terminator: "")
    exit(0)
}

// A child: one workload over the page, its result as one JSON line.
if let name = parsed.value("--child") {
    guard let workload = Workload(rawValue: name), let path = parsed.value("--input") else { exit(64) }
    // The id set workload needs only the page's size, not its bytes in memory.
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard let page = workload == .idSet ? [] : readWhole(path) else { exit(66) }
    var result = workload.run(page: page, pageBytes: size)
    result.peakResident = peakResidentOfThisProcess()
    print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    exit(0)
}

if let url = parsed.value("--claims") {
    exit(
        claimAll(
            url: url, units: Int(parsed.value("--units") ?? "") ?? 1_000,
            workers: Int(parsed.value("--workers") ?? "") ?? 1))
}

let baselines = parsed.value("--baselines") ?? root + "/Benchmarks/Baselines"
let reportPath = parsed.value("--report")
if let tablePath = parsed.value("--baseline-table") {
    // Nothing is measured, so a debug build does as well as a release one.
    for option in ["--save", "--compare", "--quick", "--filter", "--samples", "--report", "--from-baselines"]
    where parsed.has(option) {
        usageError("'\(option)' cannot go with '--baseline-table', which writes a saved baseline's table")
    }
    exit(writeBaselineTable(into: tablePath, baselines: baselines))
}
if parsed.has("--from-baselines") {
    // Nothing is measured, so a debug build does as well as a release one.
    guard let reportPath else { usageError("'--from-baselines' needs '--report <file>'") }
    for option in ["--save", "--compare", "--quick", "--filter", "--samples"] where parsed.has(option) {
        usageError("'\(option)' measures or records a run; '--from-baselines' runs nothing")
    }
    let (sources, unreadable) = savedBaselines(in: baselines)
    guard !sources.isEmpty else {
        FileHandle.standardError.write(Data("Error: no baseline in \(baselines) to report on\n".utf8))
        exit(66)
    }
    exit(writeReport(to: reportPath, sources: sources, unreadable: unreadable) ? 0 : 74)
}

let quick = parsed.has("--quick")
let format: Format
let samples: Int
do {
    format = Format(rawValue: try parsed.choice("--format", default: "text", from: ["text", "markdown", "json"]))!
    samples = try parsed.integer("--samples", default: quick ? 2 : 5, in: 1...100)
} catch {
    FileHandle.standardError.write(Data(spec.errorText(error).utf8))
    exit(64)
}

/// Whether this is a debug build (`DEBUG` defined), whose figures would mean nothing.
func isDebugBuild() -> Bool {
    #if DEBUG
        return true
    #else
        return false
    #endif
}
if isDebugBuild() { exit(runReleaseInstead(root: root, arguments: Array(CommandLine.arguments.dropFirst()))) }

// The binaries the command benchmarks run, built in release beside this one (in the same scratch path).
let location = BuildLocation.current()
let binaries = URL(fileURLWithPath: location.executable).deletingLastPathComponent().path
let build = spawn(location.releaseBuild("notes-page", root: root), captureOutput: false)
let buildGen = spawn(location.releaseBuild("notes-gen", root: root), captureOutput: false)
// `notes-page fetch --transport urlsession` runs it from beside notes-page.
let buildURLSession = spawn(location.releaseBuild("notes-page-urlsession", root: root), captureOutput: false)
guard build.status == 0, buildGen.status == 0, buildURLSession.status == 0 else {
    FileHandle.standardError.write(
        Data("cannot build notes-page, notes-page-urlsession and notes-gen in release\n".utf8))
    exit(1)
}

let count = quick ? 20_000 : 1_000_000
let inputs = Inputs(
    count: count, root: root, binaries: binaries, cache: (location.scratch ?? root + "/.build") + "/benchmarks")
do {
    try inputs.prepare()
} catch {
    FileHandle.standardError.write(Data("cannot prepare the inputs: \(error)\n".utf8))
    exit(1)
}
defer { inputs.stop() }

let harness = Harness(inputs: inputs, samples: samples, executable: location.executable)
let filter = parsed.value("--filter")
let selected = Benchmark.all(inputs).filter { benchmark in
    guard let filter else { return true }
    // A ceiling (or a peer's notes-page benchmark) runs whenever a benchmark that needs it runs.
    return benchmark.name.contains(filter)
        || Benchmark.all(inputs).contains { $0.name.contains(filter) && $0.needs.contains(benchmark.name) }
}
var results: [String: Figures] = [:]
var skipped: [String: String] = [:]
// The machine's speed, judged by yajl's against the saved runs of this processor (``MachineSpeed``): a busy
// machine is said before the targets; with --save, as soon as yajl has run, so that the run can be stopped,
// and again at the end, where a run too slow is written aside, not saved.
let saveName = parsed.value("--save")
// This run's figures with where they were measured; its results, date, toolchain and commit come at the end.
var thisRun = Baseline(results: [:])
thisRun.machine = machine()
thisRun.quick = quick
thisRun.notes = count
let usual = usualSpeeds(in: baselines, like: thisRun, excluding: saveName)
for benchmark in selected {
    if let reason = benchmark.unavailable(inputs) {
        FileHandle.standardError.write(Data("skipping \(benchmark.name): \(reason)\n".utf8))
        skipped[benchmark.name] = reason
        continue
    }
    // Its ceilings (measured above) run again in turn with it, so that their ratio is taken pair by pair.
    let ceilings = benchmark.ceiling.filter { results[$0] != nil }.compactMap { name in
        selected.first { $0.name == name }
    }
    let turns = ceilings.isEmpty ? "" : ", each after " + ceilings.map(\.name).joined(separator: " and ")
    FileHandle.standardError.write(Data("running \(benchmark.name) (\(samples) samples\(turns))\n".utf8))
    let (runs, ceilingRuns) = harness.measure(benchmark, pairedWith: ceilings)
    let ceilingTimes = zip(ceilings, ceilingRuns).map { ceiling, runs in runs.map { harness.time($0, of: ceiling) } }
    results[benchmark.name] = harness.figures(benchmark, runs: runs, ceilingTimes: ceilingTimes)
    if saveName != nil, benchmark.name == "decode/yajl-noop",
        let reason = busyMachine(results[benchmark.name]!.wallP50, usual: usual)
    {
        FileHandle.standardError.write(Data("warning: \(reason); this run will not be saved as a baseline\n".utf8))
    }
}
// yajl once more, as the last benchmark: the slower of its two times judges the run.
var slowReason: String?
if saveName != nil, let yajl = Benchmark.all(inputs).first(where: { $0.name == "decode/yajl-noop" }) {
    FileHandle.standardError.write(Data("running \(yajl.name) again: the machine's speed at the end\n".utf8))
    let again = Pairing.median(harness.measure(yajl).runs.map { harness.time($0, of: yajl) })
    slowReason = busyMachine(max(results[yajl.name]?.wallP50 ?? 0, again), usual: usual)
}
inputs.stop()

let order = selected.map(\.name)
let title =
    "notes-page benchmarks: \(count) notes, \(inputs.pageBytes) bytes, \(samples) samples\(quick ? " (quick)" : "")"
print(render(order, results, format: format, title: title), terminator: "")
if format != .json {
    print(peers(order, results, skipped: skipped, format: format), terminator: "")
    if let yajl = results["decode/yajl-noop"], let reason = busyMachine(yajl.wallP50, usual: usual) {
        print("\nNote: \(reason). The targets below may read worse than the code is.")
    }
    print(targets(results), terminator: "")
}

/// Processor, cores, memory and kernel, e.g. `AMD EPYC 7B13, 2 cores, 23 GiB, Linux 6.1.0`.
func machine() -> String {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .flatMap { $0.split(separator: ":", maxSplits: 1).last }
        .map { $0.trimmingCharacters(in: .whitespaces) + ", " } ?? ""
    return
        "\(model)\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, Linux \(release)"
}

/// The commit measured, `+ local changes` when tracked files differ from it; nil without git or a clone.
func commit() -> String? {
    guard let git = findProgram("git") else { return nil }
    let head = spawn([git, "-C", root, "rev-parse", "--short=12", "HEAD"], mergeStandardError: true)
    let hash = head.output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard head.status == 0, !hash.isEmpty else { return nil }
    let status = spawn([git, "-C", root, "status", "--porcelain", "--untracked-files=no"])
    return status.status == 0 && status.output.isEmpty ? hash : hash + " + local changes"
}

let toolchain = spawn(["swift", "--version"], mergeStandardError: true).output.split(separator: "\n")
    .first { $0.contains("Swift version") }.map(String.init)
thisRun.results = results
thisRun.date = ISO8601DateFormatter().string(from: Date())
thisRun.toolchain = toolchain ?? "unknown"
thisRun.commit = commit() ?? "unknown"
thisRun.skipped = skipped.isEmpty ? nil : skipped
if let name = saveName {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let aside = URL(fileURLWithPath: inputs.directory).deletingLastPathComponent().appendingPathComponent(
        "\(name).json")
    let path = slowReason == nil ? "\(baselines)/\(name).json" : aside.path
    try encoder.encode(thisRun).write(to: URL(fileURLWithPath: path))
    if let slowReason {
        FileHandle.standardError.write(
            Data(
                """
                Error: not saved as a baseline: \(slowReason). Measure again when the machine is quiet. The figures \
                are in \(path); moved into \(baselines)/, they would be a baseline all the same.

                """.utf8))
    } else {
        print("Saved \(path)")
    }
}

/// Writes the HTML report of `sources` to `path`, saying where on standard error.
/// - Returns: Whether it was written.
func writeReport(to path: String, sources: [ReportSource], unreadable: [String]) -> Bool {
    for problem in unreadable { FileHandle.standardError.write(Data("warning: not read: \(problem)\n".utf8)) }
    let thresholds: Thresholds
    do { thresholds = try loadThresholds(in: baselines) } catch {
        FileHandle.standardError.write(Data("Error: cannot read \(baselines)/thresholds.json: \(error)\n".utf8))
        return false
    }
    let report = HTMLReport(sources: sources, thresholds: thresholds, order: Benchmark.names, unreadable: unreadable)
    let html = report.html(generated: ISO8601DateFormatter().string(from: Date()))
    do { try Data(html.utf8).write(to: URL(fileURLWithPath: path)) } catch {
        FileHandle.standardError.write(Data("Error: cannot write the report to \(path): \(error)\n".utf8))
        return false
    }
    let saved = sources.filter { !$0.isCurrent }.count
    let current = sources.contains { $0.isCurrent } ? "this run and " : ""
    FileHandle.standardError.write(
        Data("Wrote the report of \(current)\(saved) saved baseline\(saved == 1 ? "" : "s") to \(path)\n".utf8))
    return true
}

if let reportPath {
    let saved = slowReason == nil ? saveName : nil
    let (sources, unreadable) = savedBaselines(in: baselines, excluding: saved)
    let label = saved.map { "this run (saved as \($0))" } ?? "this run"
    let current = ReportSource(id: "current", label: label, baseline: thisRun)
    if !writeReport(to: reportPath, sources: sources + [current], unreadable: unreadable) { exit(74) }
}

if let name = parsed.value("--compare") {
    let decoder = JSONDecoder()
    guard
        let baseline = try? decoder.decode(
            Baseline.self, from: Data(contentsOf: URL(fileURLWithPath: "\(baselines)/\(name).json"))),
        let thresholds = try? loadThresholds(in: baselines)
    else {
        FileHandle.standardError.write(Data("cannot read \(baselines)/\(name).json or thresholds.json\n".utf8))
        exit(1)
    }
    let (text, worse) = compare(results, with: baseline, thresholds: thresholds, order: order)
    print(text, terminator: "")
    if worse { exit(1) }
}
if slowReason != nil { exit(1) }
