import Foundation

/// A run's figures with where they were measured: what `--save` writes and `--compare` and `--report`
/// read. Every field but the results may be missing from a file saved before it was recorded; the report
/// shows "unknown" there.
struct Baseline: Codable {
    /// When it was measured, ISO 8601.
    var date: String?
    /// Processor, cores, memory and kernel.
    var machine: String?
    /// `swift --version`'s first line.
    var toolchain: String?
    /// The commit measured (abbreviated hash, `+ local changes` when tracked files differed from it).
    var commit: String?
    var quick: Bool?
    var notes: Int?
    var results: [String: Figures]
    /// The benchmarks that could not run, with why (a peer whose program is missing).
    var skipped: [String: String]?

    /// Figures of an unknown date, machine, toolchain and commit: each is set as it is known.
    init(results: [String: Figures]) {
        self.results = results
    }
}

extension Baseline {
    /// The processor and its core count, from ``machine`` (`AMD EPYC 7B13, 2 cores, 23 GiB, Linux 6.1.0` is
    /// `AMD EPYC 7B13, 2 cores`): what a figure depends on. Memory and kernel are left out; `nil` when the
    /// machine is unknown or names no core count.
    var hardware: String? {
        guard let machine, let cores = machine.firstRange(of: #/\d+ cores?/#) else { return nil }
        return String(machine[..<cores.upperBound])
    }

    /// Whether the figures of `other` can be compared with these: the same processor and core count.
    func isComparable(with other: Baseline) -> Bool {
        hardware != nil && hardware == other.hardware
    }
}

/// Per benchmark and metric, how much worse than the baseline a figure may get before `--compare` fails.
struct Thresholds: Codable {
    struct Limit: Codable {
        /// Most the ratio to the ceiling may grow, e.g. 1.15 for 15 %.
        var ratio: Double?
        /// Most the peak resident memory may grow.
        var peakResident: Double?
    }

    var defaults: Limit
    var benchmarks: [String: Limit]

    func limit(_ name: String) -> (ratio: Double, peakResident: Double) {
        let specific = benchmarks[name]
        return (specific?.ratio ?? defaults.ratio ?? 1.15, specific?.peakResident ?? defaults.peakResident ?? 1.2)
    }
}

enum Format: String {
    case text, markdown, json
}

/// Renders the figures as tables, one per metric.
func render(_ order: [String], _ results: [String: Figures], format: Format, title: String) -> String {
    if format == .json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(results)) ?? Data(), as: UTF8.self) + "\n"
    }
    func table(_ heading: String, _ columns: [String], _ row: (Figures) -> [String]) -> String {
        let rows = order.compactMap { name in results[name].map { [name] + row($0) } }
        return tableText(heading, header: ["benchmark"] + columns, rows: rows, format: format)
    }
    func seconds(_ value: Double) -> String { String(format: value < 1 ? "%.3f s" : "%.2f s", value) }
    var text = format == .markdown ? "## \(title)\n\n" : "\(title)\n\n"
    text += table("Time (wall, measured part)", ["p50", "p90", "× ceiling"]) {
        [seconds($0.wallP50), seconds($0.wallP90), $0.ratio.map { String(format: "%.2f", $0) } ?? "—"]
    }
    text += table("Throughput", ["MB/s", "notes/s"]) {
        [String(format: "%.1f", $0.megabytesPerSecond), String(format: "%.0f", $0.notesPerSecond)]
    }
    text += table("CPU (user + system, whole process)", ["p50"]) { [seconds($0.cpuP50)] }
    text += table("Peak resident memory (each benchmark in its own process)", ["peak"]) {
        [String(format: "%.1f MiB", Double($0.peakResident) / 1_048_576)]
    }
    text += table("Heap allocations (measured part; in-process benchmarks, glibc)", ["count", "per note"]) {
        guard let count = $0.allocations else { return ["—", "—"] }
        let notes = $0.notesPerSecond * $0.wallP50
        return ["\(count)", notes >= 1 ? String(format: "%.2f", Double(count) / notes) : "—"]
    }
    return text
}

/// The issue's targets, checked against this run's figures.
func targets(_ results: [String: Figures]) -> String {
    var lines: [String] = []
    func check(_ what: String, _ value: Double?, atMost limit: Double, _ unit: String) {
        guard let value else { return }
        lines.append("\(value <= limit ? "met    " : "NOT MET") \(what): \(String(format: "%.2f", value))\(unit)")
    }
    func check(_ what: String, _ value: Double?, atLeast limit: Double, _ unit: String) {
        guard let value else { return }
        lines.append("\(value >= limit ? "met    " : "NOT MET") \(what): \(String(format: "%.2f", value))\(unit)")
    }
    let mebibytes = { (name: String) in results[name].map { Double($0.peakResident) / 1_048_576 } }
    let naive = results["decode/jsondecoder"]
    let typed = results["decode/typed-64k"]
    let streamed = results["decode/cli-file"]
    check("typed notes + id set within 1.25× of the yajl no-op ceiling", typed?.ratio, atMost: 1.25, "×")
    // The cost of a record, near yajl's own: CPU as well as wall time, the exact JSON copied rather than
    // re-emitted, the id set at a tenth of a microsecond.
    let ceiling = results["decode/yajl-noop"]
    let cpu = typed.flatMap { typed in ceiling.map { typed.cpuP50 / $0.cpuP50 } }
    check("typed notes + id set within 1.6× of the yajl no-op ceiling's CPU time", cpu, atMost: 1.6, "×")
    check("pass-through JSON within 1.5× of the ceiling", results["decode/passthrough-64k"]?.ratio, atMost: 1.5, "×")
    // What a user runs: the decode command streaming the file, no note's JSON kept.
    check("decode --format none within 1.25× of the ceiling", streamed?.ratio, atMost: 1.25, "×")
    let streamedCPU = streamed.flatMap { streamed in ceiling.map { streamed.cpuP50 / $0.cpuP50 } }
    check("decode --format none within 1.6× of the ceiling's CPU time", streamedCPU, atMost: 1.6, "×")
    if let ids = results["idset/insert"] {
        // The goal is at 1,000,000 ids; a quick run's table is smaller, and its inserts cheaper.
        let count = Int((ids.notesPerSecond * ids.wallP50).rounded())
        check("the id set at 100 ns or less an insert (\(count) ids)", 1e9 / ids.notesPerSecond, atMost: 100, " ns")
    }
    check(
        "integer ids within 1.05× of the string-id decode (typed, 64 KiB chunks)",
        results["decode/typed-64k-int"]?.ratio, atMost: 1.05, "×")
    let memory = naive.flatMap { naive in streamed.map { Double(naive.peakResident) / Double($0.peakResident) } }
    check("a tenth of JSONDecoder's peak memory (streamed decode)", memory, atLeast: 10, "× less")
    check("decode streamed from a file under 48 MiB", mebibytes("decode/cli-file"), atMost: 48, " MiB")
    check("fetch --all under 64 MiB", mebibytes("fetch/notes-page"), atMost: 64, " MiB")
    check(
        "fetch --all within 1.25× of the slower of the ceiling and curl", results["fetch/notes-page"]?.ratio,
        atMost: 1.25, "×")
    // The cost of a record in a walk: every note's JSON kept and written as NDJSON, at most 1.8× the limit.
    check(
        "fetch --all to NDJSON within 1.8× of the slower of the ceiling and curl", results["fetch/notes-page"]?.ratio,
        atMost: 1.8, "×")
    check(
        "fetch --all --format none within 1.5× of the slower of the ceiling and curl",
        results["fetch/notes-page-none"]?.ratio, atMost: 1.5, "×")
    check(
        "fetch --all of pages of 100 notes within 1.5× of curl on the same pages",
        results["fetch/notes-page-100"]?.ratio, atMost: 1.5, "×")
    // Like with like: both write every note's JSON (to /dev/null).
    let perPage = results["fetch/notes-page"].flatMap { fetch in
        results["decode/cli-file-ndjson"].map { fetch.wallP50 / $0.wallP50 }
    }
    check(
        "fetch --all of pages of 1,000 notes within 1.5× of the same notes decoded as one page", perPage, atMost: 1.5,
        "×")
    check("notes-gen at 100 MB/s or more", results["gen/notes-gen"]?.megabytesPerSecond, atLeast: 100, " MB/s")
    check(
        "pages by number, --parallel 8, within 0.2× of the sequential floor (curl, pages × latency)",
        results["latency/parallel-8"]?.ratio, atMost: 0.2, "×")
    check(
        "a chain whose next cursor comes early, within 0.6× of the same walk without the early request",
        results["latency/chain-early"]?.ratio, atMost: 0.6, "×")
    check(
        "a GraphQL connection over POST, within 1.1× of the same pages by GET",
        results["latency/graphql-late"]?.ratio, atMost: 1.1, "×")
    check(
        "a GraphQL connection with pageInfo first, within 0.6× of the same walk with pageInfo last",
        results["latency/graphql-early"]?.ratio, atMost: 0.6, "×")
    // JSONDecoder is a reference, not a target: yajl with no-op callbacks is itself only about 5.6× faster
    // than it on Swift 6.3, so no decoder on yajl could be 6× faster.
    var references: [String] = []
    if let naive, let ratio = naive.ratio {
        var line = String(format: "        JSONDecoder into [Note] + Set<String>: %.2f× the ceiling", ratio)
        if let typed { line += String(format: "; typed notes + id set %.2f× faster", naive.wallP50 / typed.wallP50) }
        references.append(line)
    }
    lines += Benchmark.storeTargets(results)
    lines += Benchmark.postgresTargets(results)
    lines += Benchmark.syncTargets(results)
    lines += Benchmark.workerTargets(results)
    var text = lines.isEmpty ? "" : "Targets\n" + lines.joined(separator: "\n") + "\n"
    if !references.isEmpty { text += "Reference (no target)\n" + references.joined(separator: "\n") + "\n" }
    return text
}

/// The peers beside the notes-page benchmark they do the job of: time and peak memory as ratios to it
/// (above 1: the peer takes longer, or more memory), and the peers that could not run.
func peers(_ order: [String], _ results: [String: Figures], skipped: [String: String], format: Format) -> String {
    var rows: [[String]] = []
    var absent: [String] = []
    for name in order {
        guard let reference = Benchmark.peers[name] else { continue }
        if let reason = skipped[name] {
            absent.append("\(name): skipped, \(reason)")
            continue
        }
        guard let peer = results[name], let base = results[reference] else { continue }
        rows.append([
            name, String(format: peer.wallP50 < 1 ? "%.3f s" : "%.2f s", peer.wallP50),
            String(format: "%.2f", peer.wallP50 / base.wallP50),
            String(format: "%.1f MiB", Double(peer.peakResident) / 1_048_576),
            String(format: "%.2f", Double(peer.peakResident) / Double(max(1, base.peakResident))),
        ])
    }
    guard !rows.isEmpty || !absent.isEmpty else { return "" }
    return tableText(
        "Peers (same pages, same server, same run; ratios to notes-page)",
        header: ["peer", "p50", "× notes-page", "peak", "× notes-page"], rows: rows, format: format, notes: absent)
}

/// A table under `heading`: Markdown, or text with the first column left-aligned and the others right;
/// `notes` follow it a line each; when there are notes and no rows, a text table has no header line.
func tableText(_ heading: String, header: [String], rows: [[String]], format: Format, notes: [String] = [])
    -> String
{
    if format == .markdown {
        return "### \(heading)\n\n| " + header.joined(separator: " | ") + " |\n|"
            + header.map { _ in "---" }.joined(separator: "|") + "|\n"
            + rows.map { "| " + $0.joined(separator: " | ") + " |\n" }.joined()
            + notes.map { "\n\($0)\n" }.joined() + "\n"
    }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            index == 0
                ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[index] - cell.count) + cell
        }.joined(separator: "  ")
    }
    let table = rows.isEmpty && !notes.isEmpty ? [] : [line(header)] + rows.map(line)
    return "\(heading)\n" + (table + notes).joined(separator: "\n") + "\n\n"
}

/// Differences from a baseline; the second value says whether any is worse than its threshold.
func compare(_ results: [String: Figures], with baseline: Baseline, thresholds: Thresholds, order: [String]) -> (
    String, Bool
) {
    var lines = [
        "Compared with the baseline of \(baseline.date ?? "unknown date") (\(baseline.machine ?? "unknown machine"))"
    ]
    // Another processor or core count: the figures are shown, never flagged.
    var here = Baseline(results: [:])
    here.machine = machine()
    let comparable = baseline.isComparable(with: here)
    if !comparable {
        lines.append("Another processor or core count than this machine's (\(machine())): shown, not flagged")
    }
    var worse = false
    // The peers are context: a faster or slower Node or Python is not a regression of notes-page.
    for name in order where Benchmark.peers[name] == nil {
        guard let now = results[name], let then = baseline.results[name] else { continue }
        let limit = thresholds.limit(name)
        if let ratio = now.ratio, let before = then.ratio, before > 0 {
            let change = ratio / before
            let bad = comparable && change > limit.ratio
            worse = worse || bad
            lines.append(
                String(
                    format: "%@ %@ ratio %.2f → %.2f (%+.0f %%, limit %+.0f %%)", bad ? "WORSE" : "ok   ", name, before,
                    ratio,
                    (change - 1) * 100, (limit.ratio - 1) * 100))
        }
        if then.peakResident > 0 {
            let change = Double(now.peakResident) / Double(then.peakResident)
            let bad = comparable && change > limit.peakResident
            worse = worse || bad
            lines.append(
                String(
                    format: "%@ %@ peak %.1f → %.1f MiB (%+.0f %%, limit %+.0f %%)", bad ? "WORSE" : "ok   ", name,
                    Double(then.peakResident) / 1_048_576, Double(now.peakResident) / 1_048_576, (change - 1) * 100,
                    (limit.peakResident - 1) * 100))
        }
    }
    return (lines.joined(separator: "\n") + "\n", worse)
}
