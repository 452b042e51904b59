import Foundation

// `benchmarks --baseline-table FILE` (`make perf-table`): the newest saved baseline of full size as one
// Markdown table, written into FILE between its two marker lines. Nothing is measured, and nothing in the
// table depends on when it was written, so running it again on the same baselines changes no byte.

/// The lines that enclose the generated table in a Markdown file; what is between them is replaced.
enum BaselineTableMarkers {
    static let begin = "<!-- baseline-table: begin (written by `make perf-table`; edits here are lost) -->"
    static let end = "<!-- baseline-table: end -->"
}

/// The newest of `sources` that measured the full inputs (not `--quick`): the last in the order saved, which
/// ``savedBaselines(in:excluding:)`` sorts by the date recorded inside each file, then by name.
func newestFullBaseline(_ sources: [ReportSource]) -> ReportSource? {
    sources.last { $0.baseline.quick != true }
}

/// The Markdown of `source`: where and when it was measured, then one row per benchmark in the order they
/// run (benchmarks no longer run come last, by name).
/// - Parameters:
///   - source: A saved baseline.
///   - directory: How the file links to the baselines' folder, e.g. `../Benchmarks/Baselines`.
/// - Returns: The lines between the markers, each ending in a newline.
func baselineTable(_ source: ReportSource, linkingTo directory: String) -> String {
    let baseline = source.baseline
    let benchmarks = Benchmark.all(Inputs(count: 0, root: "", binaries: "", cache: ""))
    let known = benchmarks.map(\.name)
    let order =
        known.filter { baseline.results[$0] != nil }
        + baseline.results.keys.filter { !known.contains($0) }.sorted()
    let samples = Set(order.compactMap { baseline.results[$0]?.samples })
    func seconds(_ value: Double) -> String { String(format: value < 1 ? "%.3f s" : "%.2f s", value) }
    func reference(_ name: String) -> String {
        let ceilings = benchmarks.first { $0.name == name }?.ceiling ?? []
        switch ceilings.count {
        case 0: return ""
        case 1: return " `\(ceilings[0])`"
        default: return " the slower of " + ceilings.map { "`\($0)`" }.joined(separator: " and ")
        }
    }

    var text = "Newest saved baseline: [`\(source.id)`](\(directory)/\(source.id).json), measured "
    text += "\(baseline.date ?? "at an unknown date") on \(baseline.machine ?? "an unknown machine") with "
    text += "\(baseline.toolchain ?? "an unknown toolchain"), commit \(baseline.commit ?? "unknown"); "
    text += baseline.notes.map { "\(thousands($0)) notes" } ?? "unknown size"
    if samples.count == 1, let count = samples.first { text += ", \(count) samples a benchmark" }
    text += ".\n\n"
    text += "| benchmark | what it measures | p50 | p90 | × its reference | MB/s | peak |\n"
    text += "|---|---|---|---|---|---|---|\n"
    for name in order {
        guard let figures = baseline.results[name] else { continue }
        let ratio = figures.ratio.map { String(format: "%.2f ×", $0) + reference(name) } ?? "—"
        let cells = [
            "`\(name)`", markdownText(Benchmark.summaries[name] ?? ""), seconds(figures.wallP50),
            seconds(figures.wallP90), ratio,
            String(format: "%.1f", figures.megabytesPerSecond),
            String(format: "%.1f MiB", Double(figures.peakResident) / 1_048_576),
        ]
        text += "| " + cells.joined(separator: " | ") + " |\n"
    }
    for (name, reason) in (baseline.skipped ?? [:]).sorted(by: { $0.key < $1.key }) {
        text += "\nNot measured in that run: `\(name)`, \(markdownText(reason)).\n"
    }
    return text
}

/// Why a table cannot be written into a file.
struct BaselineTableError: Error, CustomStringConvertible {
    var description: String
}

/// `text` with the lines between its markers replaced by `table`.
/// - Throws: ``BaselineTableError`` when the markers are missing, repeated or out of order.
func replacingBaselineTable(in text: String, with table: String) throws -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let begins = lines.indices.filter { lines[$0] == BaselineTableMarkers.begin }
    let ends = lines.indices.filter { lines[$0] == BaselineTableMarkers.end }
    guard begins.count == 1, ends.count == 1, let begin = begins.first, let end = ends.first, begin < end else {
        throw BaselineTableError(
            description: "needs the line \(BaselineTableMarkers.begin) and, after it, the line "
                + "\(BaselineTableMarkers.end), once each")
    }
    var body = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if body.last == "" { body.removeLast() }
    lines.replaceSubrange((begin + 1)..<end, with: body)
    return lines.joined(separator: "\n")
}

/// Writes the table of the newest full baseline in `baselines` into the Markdown file at `path`.
/// - Returns: The exit status: 0 when written, 66 without a baseline, 65 without markers, 74 when the file
///   cannot be read or written.
func writeBaselineTable(into path: String, baselines: String) -> Int32 {
    func fail(_ message: String, _ status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return status
    }
    let (sources, unreadable) = savedBaselines(in: baselines)
    for problem in unreadable { FileHandle.standardError.write(Data("warning: not read: \(problem)\n".utf8)) }
    guard let newest = newestFullBaseline(sources) else {
        return fail("no baseline of full size in \(baselines) to write a table of", 66)
    }
    let file = URL(fileURLWithPath: path).standardizedFileURL
    guard let data = FileManager.default.contents(atPath: file.path) else {
        return fail("cannot read \(path)", 74)
    }
    let folder = URL(fileURLWithPath: baselines).standardizedFileURL
    let table = baselineTable(newest, linkingTo: relativePath(from: file.deletingLastPathComponent(), to: folder))
    let updated: String
    do { updated = try replacingBaselineTable(in: String(decoding: data, as: UTF8.self), with: table) } catch {
        return fail("\(path) \(error)", 65)
    }
    if Data(updated.utf8) != data {
        do { try Data(updated.utf8).write(to: file, options: .atomic) } catch {
            return fail("cannot write \(path): \(error)", 74)
        }
    }
    FileHandle.standardError.write(Data("Wrote the table of \(newest.id) into \(path)\n".utf8))
    return 0
}

/// `target` as a path relative to the folder `base` (both absolute), e.g. `../Benchmarks/Baselines`.
func relativePath(from base: URL, to target: URL) -> String {
    let from = base.pathComponents
    let to = target.pathComponents
    let common = zip(from, to).prefix { $0 == $1 }.count
    let parts = Array(repeating: "..", count: from.count - common) + to.dropFirst(common)
    return parts.isEmpty ? "." : parts.joined(separator: "/")
}

/// `number` with a comma between each group of three digits, e.g. `1,000,000`.
func thousands(_ number: Int) -> String {
    let digits = Array(String(number.magnitude))
    let groups = stride(from: digits.count, to: 0, by: -3).reversed().map { end in
        String(digits[max(0, end - 3)..<end])
    }
    return (number < 0 ? "-" : "") + groups.joined(separator: ",")
}

/// `text` as Markdown shows it literally in a table cell: `<`, `>` and `&` as entities (`Set<String>` is
/// no HTML tag), `|` escaped.
func markdownText(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "|", with: "\\|")
}
