import Foundation

// `--report FILE.html`: one self-contained page (inline CSS and SVG, no script, no font or anything else
// from the network) of this run beside every saved baseline. The markup is XHTML-compatible, so an XML
// parser reads it whole. Every bar and trend point carries the figure it was drawn from, exactly as the
// JSON holds it: `data-source` (a baseline's file name without `.json`, or `current`), `data-benchmark`,
// `data-metric` (`ratio`, `wallP50` and `peakResident` as in the JSON; `timeVersusReference` and
// `peakVersusReference`, a peer's figure over its notes-page benchmark's) and `data-figure`.

/// One column of figures in the report: a saved baseline, or this run.
struct ReportSource {
    /// A baseline's file name without `.json`, or `current` for this run.
    var id: String
    /// What the page calls it.
    var label: String
    var baseline: Baseline

    var isCurrent: Bool { id == "current" }
}

/// The figures the report draws.
enum Metric: String {
    /// p50 time over the slower ceiling's, as the JSON has it.
    case ratio
    /// p50 wall time in seconds, for benchmarks without a ceiling.
    case wallP50
    /// Peak resident memory in bytes.
    case peakResident
    /// A peer's p50 time over that of the notes-page benchmark it does the job of.
    case timeVersusReference
    /// A peer's peak memory over that of its notes-page benchmark.
    case peakVersusReference

    /// The figure of benchmark `name` in `baseline`, or nil where it was not measured.
    func value(_ name: String, in baseline: Baseline) -> Double? {
        guard let figures = baseline.results[name] else { return nil }
        switch self {
        case .ratio: return figures.ratio
        case .wallP50: return figures.wallP50
        case .peakResident: return Double(figures.peakResident)
        case .timeVersusReference, .peakVersusReference:
            guard let reference = Benchmark.peers[name].flatMap({ baseline.results[$0] }) else { return nil }
            if self == .timeVersusReference {
                return reference.wallP50 > 0 ? figures.wallP50 / reference.wallP50 : nil
            }
            return reference.peakResident > 0 ? Double(figures.peakResident) / Double(reference.peakResident) : nil
        }
    }

    /// The figure as the page shows it.
    func text(_ value: Double) -> String {
        switch self {
        case .ratio, .timeVersusReference, .peakVersusReference: return String(format: "%.2f×", value)
        case .wallP50: return String(format: value < 1 ? "%.3f s" : "%.2f s", value)
        case .peakResident: return String(format: "%.1f MiB", value / 1_048_576)
        }
    }

    /// The chart's title.
    var title: String {
        switch self {
        case .ratio: return "time × ceiling (lower is better)"
        case .wallP50: return "p50 time (no ceiling)"
        case .peakResident: return "peak resident memory"
        case .timeVersusReference: return "time × notes-page"
        case .peakVersusReference: return "peak memory × notes-page"
        }
    }
}

/// How a figure moved from the last earlier one of the same size (notes and quick alike).
struct Change {
    /// This figure over the earlier one.
    var factor: Double
    /// The most thresholds.json allows.
    var limit: Double
    /// The earlier figure and where it came from.
    var before: Double
    var against: ReportSource

    var isRegression: Bool { factor > limit }
    var text: String { String(format: "%+.0f %% (limit %+.0f %%)", (factor - 1) * 100, (limit - 1) * 100) }
}

/// The report's figures and their comparisons, drawn into one page by ``html(generated:)``.
struct HTMLReport {
    /// In the order saved, this run last.
    var sources: [ReportSource]
    var thresholds: Thresholds
    /// Benchmark names in the order they run.
    var order: [String]
    /// Baseline files that could not be read, with why.
    var unreadable: [String] = []

    /// Every benchmark some source measured or skipped, in the order they run, unknown names last.
    var benchmarks: [String] {
        let measured = Set(
            sources.flatMap { Array($0.baseline.results.keys) + Array(($0.baseline.skipped ?? [:]).keys) })
        return order.filter(measured.contains) + measured.subtracting(order).sorted()
    }

    /// The change of `metric` for `name` in source `index` since the last earlier source of the same size,
    /// measured on the same processor and core count (``Baseline/isComparable(with:)``); nil for a peer
    /// (context, not ours to regress), a metric thresholds.json does not bound, or no such source: a
    /// baseline of another machine is shown, never flagged.
    func change(_ metric: Metric, _ name: String, at index: Int) -> Change? {
        guard Benchmark.peers[name] == nil, metric == .ratio || metric == .peakResident else { return nil }
        let source = sources[index]
        guard let now = metric.value(name, in: source.baseline) else { return nil }
        let earlier = sources[..<index].last {
            $0.baseline.notes == source.baseline.notes && $0.baseline.quick == source.baseline.quick
                && $0.baseline.isComparable(with: source.baseline) && (metric.value(name, in: $0.baseline) ?? 0) > 0
        }
        guard let earlier, let before = metric.value(name, in: earlier.baseline) else { return nil }
        let limit = thresholds.limit(name)
        return Change(
            factor: now / before, limit: metric == .ratio ? limit.ratio : limit.peakResident, before: before,
            against: earlier)
    }

    /// Every regression past thresholds.json, this run's first.
    var regressions: [(name: String, metric: Metric, source: ReportSource, change: Change)] {
        var found: [(String, Metric, ReportSource, Change)] = []
        for index in sources.indices.reversed() {
            for name in benchmarks {
                for metric in [Metric.ratio, .peakResident] {
                    if let change = change(metric, name, at: index), change.isRegression {
                        found.append((name, metric, sources[index], change))
                    }
                }
            }
        }
        return found
    }

    /// The time metric drawn for `name`: its ratio to the ceiling where any source has one, else p50 time.
    func timeMetric(_ name: String) -> Metric {
        if Benchmark.peers[name] != nil { return .timeVersusReference }
        return sources.contains { $0.baseline.results[name]?.ratio != nil } ? .ratio : .wallP50
    }

    // MARK: - The page

    /// The whole page.
    /// - Parameter generated: When it was written, as the page says.
    func html(generated: String) -> String {
        let current = sources.last { $0.isCurrent }
        let ours = benchmarks.filter { Benchmark.peers[$0] == nil }
        let peers = benchmarks.filter { Benchmark.peers[$0] != nil }
        var page = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>notes-page benchmarks</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <h1>notes-page benchmarks</h1>

            """
        let baselines = sources.filter { !$0.isCurrent }.count
        var lede = "Written \(xmlEscaped(generated)) from "
        lede += current.map { "this run (\(size($0.baseline))) and " } ?? ""
        lede += "\(baselines) saved baseline\(baselines == 1 ? "" : "s") in Benchmarks/Baselines/, in the order saved."
        lede += " Times are ratios to ceilings measured in the same run, so that figures from a noisy machine"
        lede += " hold; a figure is compared only with the last earlier one of the same size."
        page += "<p class=\"lede\">\(lede)</p>\n"
        page += summary()
        page += provenance()
        page += "<section id=\"benchmarks\">\n<h2>Per benchmark</h2>\n"
        for name in ours { page += card(name, metrics: [timeMetric(name), .peakResident]) }
        page += "</section>\n"
        if !peers.isEmpty {
            page += "<section id=\"peers\">\n<h2>Peers: the clients people would write instead</h2>\n"
            page += "<p>The same pages from the same server in the same run, the same job (every note's id"
            page += " checked, each note written out); time and peak memory as ratios to notes-page, so above 1"
            page += " the peer takes longer or more memory. Context, not targets: never marked as regressions.</p>\n"
            for name in peers { page += card(name, metrics: [.timeVersusReference, .peakVersusReference]) }
            page += "</section>\n"
        }
        page += trend()
        page += thresholdTable()
        page += "</body>\n</html>\n"
        return page
    }

    func size(_ baseline: Baseline) -> String {
        guard let notes = baseline.notes else { return "unknown size" }
        return "\(grouped(notes)) notes\(baseline.quick == true ? ", quick" : "")"
    }

    func summary() -> String {
        let found = regressions
        var text = "<section id=\"summary\">\n"
        if let current = sources.last(where: \.isCurrent),
            !sources.contains(where: {
                !$0.isCurrent && $0.baseline.notes == current.baseline.notes
                    && $0.baseline.quick == current.baseline.quick
            })
        {
            text += "<p>No saved baseline has this run's size (\(xmlEscaped(size(current.baseline)))): its figures"
            text += " are shown beside the others, compared with none.</p>\n"
        }
        if found.isEmpty {
            text += "<p class=\"ok\">No figure got worse than thresholds.json allows.</p>\n"
        } else {
            text += "<p class=\"bad\">\(found.count) figure\(found.count == 1 ? "" : "s") got worse than"
            text += " thresholds.json allows:</p>\n<ul class=\"regressions\">\n"
            for (name, metric, source, change) in found {
                text +=
                    "<li><strong>\(xmlEscaped(name))</strong>, \(xmlEscaped(metric.title)): \(metric.text(change.before))"
                text += " in \(xmlEscaped(change.against.label)) → \(metric.text(change.factor * change.before)) in"
                text += " \(xmlEscaped(source.label)), \(xmlEscaped(change.text))</li>\n"
            }
            text += "</ul>\n"
        }
        return text + "</section>\n"
    }

    func provenance() -> String {
        var text = "<section id=\"sources\">\n<h2>Where each figure came from</h2>\n<table>\n"
        text += "<tr><th>figures</th><th>date</th><th>machine</th><th>toolchain</th><th>commit</th>"
        text += "<th>size</th><th>skipped</th></tr>\n"
        for source in sources {
            let baseline = source.baseline
            let skipped = (baseline.skipped ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            text += "<tr data-source=\"\(xmlEscaped(source.id))\"\(source.isCurrent ? " class=\"current\"" : "")>"
            text += "<td>\(xmlEscaped(source.label))</td>"
            for field in [baseline.date, baseline.machine, baseline.toolchain, baseline.commit] {
                text += "<td>\(xmlEscaped(field ?? "unknown"))</td>"
            }
            text +=
                "<td>\(xmlEscaped(size(baseline)))</td><td>\(xmlEscaped(skipped.joined(separator: "; ")))</td></tr>\n"
        }
        text += "</table>\n"
        for problem in unreadable { text += "<p class=\"bad\">Not read: \(xmlEscaped(problem))</p>\n" }
        return text + "</section>\n"
    }

    func card(_ name: String, metrics: [Metric]) -> String {
        var text = "<div class=\"card\" id=\"\(xmlEscaped(anchor(name)))\">\n<h3>\(xmlEscaped(name))"
        if let summary = Benchmark.summaries[name] { text += " <span class=\"what\">\(xmlEscaped(summary))</span>" }
        text += "</h3>\n<div class=\"charts\">\n"
        for metric in metrics { text += barChart(name, metric) }
        return text + "</div>\n</div>\n"
    }
}
