import ArgumentParsing
import Foundation

// `swift run -c release benchmarks`: throughput and peak memory of the decoder, the id set, notes-gen and
// fetch, each benchmark in its own child process, side by side with baselines measured in the same run.

let spec = CommandSpec(
    name: "benchmarks",
    overview: "Measure notes-page: time, throughput, CPU and peak memory, as ratios to baselines of the same run.",
    options: [
        .init("--filter", value: "text", help: "Run only the benchmarks whose name contains this."),
        .init("--quick", help: "Small inputs (20,000 notes) and 2 samples: for CI, never for figures of record."),
        .init("--samples", value: "n", help: "Measured runs per benchmark, after one warm-up. Default: 5."),
        .init("--save", value: "name", help: "Write the figures to Benchmarks/Baselines/<name>.json."),
        .init(
            "--compare", value: "name",
            help: "Compare with Benchmarks/Baselines/<name>.json; exit 1 if worse than the thresholds."),
        .init("--format", value: "format", help: "text, markdown or json. Default: text."),
        .init("--child", value: "workload", help: "(internal) run one workload and print its result."),
        .init("--input", value: "file", help: "(internal) the page the workload reads."),
    ]
)

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

#if DEBUG
    FileHandle.standardError.write(
        Data(
            """
            This is a debug build: its figures would mean nothing, so none are recorded.
            Run: swift run -c release benchmarks\n
            """.utf8))
    exit(1)
#endif

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

// The binaries the command benchmarks run, built in release beside this one.
let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let build = spawn(
    ["swift", "build", "-c", "release", "--package-path", root, "--product", "notes-page"], captureOutput: false)
let buildGen = spawn(
    ["swift", "build", "-c", "release", "--package-path", root, "--product", "notes-gen"], captureOutput: false)
guard build.status == 0, buildGen.status == 0 else {
    FileHandle.standardError.write(Data("cannot build notes-page and notes-gen in release\n".utf8))
    exit(1)
}

let count = quick ? 20_000 : 1_000_000
let inputs = Inputs(count: count, root: root, binaries: binaries)
do {
    try inputs.prepare()
} catch {
    FileHandle.standardError.write(Data("cannot prepare the inputs: \(error)\n".utf8))
    exit(1)
}
defer { inputs.stop() }

let harness = Harness(inputs: inputs, samples: samples, executable: CommandLine.arguments[0])
let filter = parsed.value("--filter")
let selected = Benchmark.all(inputs).filter { benchmark in
    guard let filter else { return true }
    // A ceiling runs whenever a benchmark that needs it runs.
    return benchmark.name.contains(filter)
        || Benchmark.all(inputs).contains { $0.name.contains(filter) && $0.ceiling.contains(benchmark.name) }
}
var results: [String: Figures] = [:]
for benchmark in selected {
    FileHandle.standardError.write(Data("running \(benchmark.name) (\(samples) samples)\n".utf8))
    let runs = harness.measure(benchmark)
    results[benchmark.name] = harness.figures(benchmark, runs: runs, known: results)
}
inputs.stop()

let order = selected.map(\.name)
let title =
    "notes-page benchmarks: \(count) notes, \(inputs.pageBytes) bytes, \(samples) samples\(quick ? " (quick)" : "")"
print(render(order, results, format: format, title: title), terminator: "")
if format != .json { print(targets(results), terminator: "") }

func machine() -> String {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    return
        "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, Linux \(release)"
}

let baselines = root + "/Benchmarks/Baselines"
if let name = parsed.value("--save") {
    let toolchain = spawn(["swift", "--version"]).output.split(separator: "\n").first.map(String.init) ?? "unknown"
    let baseline = Baseline(
        date: ISO8601DateFormatter().string(from: Date()),
        machine: machine(),
        toolchain: toolchain,
        quick: quick,
        notes: count,
        results: results
    )
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(baseline).write(to: URL(fileURLWithPath: "\(baselines)/\(name).json"))
    print("Saved Benchmarks/Baselines/\(name).json")
}
if let name = parsed.value("--compare") {
    let decoder = JSONDecoder()
    guard
        let baseline = try? decoder.decode(
            Baseline.self, from: Data(contentsOf: URL(fileURLWithPath: "\(baselines)/\(name).json"))),
        let thresholds = try? decoder.decode(
            Thresholds.self, from: Data(contentsOf: URL(fileURLWithPath: "\(baselines)/thresholds.json")))
    else {
        FileHandle.standardError.write(Data("cannot read Benchmarks/Baselines/\(name).json or thresholds.json\n".utf8))
        exit(1)
    }
    let (text, worse) = compare(results, with: baseline, thresholds: thresholds, order: order)
    print(text, terminator: "")
    if worse { exit(1) }
}
