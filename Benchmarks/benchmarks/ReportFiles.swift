import BenchmarkPairs
import Foundation

/// `text` with the five characters XML reserves escaped, for text and attribute values.
func xmlEscaped(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// A figure exactly as a JSON reader gets it back: the shortest text that reads back as the same double.
func figure(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
}

/// The baselines in `directory` (every `.json` file but thresholds.json) in the order they were saved: by
/// their date, undated ones (saved before dates were recorded) first, by name.
/// - Parameters:
///   - directory: Where baselines are saved.
///   - excluded: A baseline not to list (this run's, just saved), or nil.
/// - Returns: The sources, and the files that could not be read, each with why.
func savedBaselines(in directory: String, excluding excluded: String? = nil) -> (
    sources: [ReportSource], unreadable: [String]
) {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasSuffix(".json") && $0 != "thresholds.json" && $0 != excluded.map { "\($0).json" } }
    var sources: [ReportSource] = []
    var unreadable: [String] = []
    for file in names {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            let baseline = try JSONDecoder().decode(Baseline.self, from: data)
            let id = String(file.dropLast(5))
            sources.append(ReportSource(id: id, label: id, baseline: baseline))
        } catch {
            unreadable.append("\(file): \(error)")
        }
    }
    sources.sort { ($0.baseline.date ?? "", $0.id) < ($1.baseline.date ?? "", $1.id) }
    return (sources, unreadable.sorted())
}

/// thresholds.json in `directory`, or the defaults (+15 % ratio, +20 % peak) where there is none.
/// - Throws: When the file is there but does not decode.
func loadThresholds(in directory: String) throws -> Thresholds {
    let path = directory + "/thresholds.json"
    guard FileManager.default.fileExists(atPath: path) else {
        return Thresholds(defaults: .init(ratio: 1.15, peakResident: 1.2), benchmarks: [:])
    }
    return try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}

/// yajl's own decode (`decode/yajl-noop`, p50) in each baseline in `directory` that `run` can be compared
/// with: the same processor and core count, the same notes, quick or not alike. What `--save` judges the
/// machine's speed by (``MachineSpeed``).
func usualSpeeds(in directory: String, like run: Baseline, excluding excluded: String?) -> [(
    id: String, seconds: Double
)] {
    savedBaselines(in: directory, excluding: excluded).sources.compactMap { source in
        let baseline = source.baseline
        guard baseline.isComparable(with: run), baseline.notes == run.notes, (baseline.quick ?? false) == run.quick,
            let yajl = baseline.results["decode/yajl-noop"]
        else { return nil }
        return (source.id, yajl.wallP50)
    }
}

/// Why the machine reads as busy when yajl took `seconds` (and a run is not saved as a baseline), or nil when
/// it ran at the usual speed.
func busyMachine(_ seconds: Double, usual: [(id: String, seconds: Double)]) -> String? {
    guard let slowdown = MachineSpeed.slowdown(seconds, saved: usual.map(\.seconds)),
        let fastest = usual.min(by: { $0.seconds < $1.seconds })
    else { return nil }
    let times = { (value: Double) in String(format: "%.3f s", value) }
    return
        "yajl's own decode took \(times(seconds)), \(String(format: "%.2f", slowdown)) × the \(times(fastest.seconds))"
        + " of \(fastest.id) on this processor (at most \(MachineSpeed.mostSlowdown) ×): other work is slowing"
        + " the machine, and ratios measured on a busy machine drift"
}
