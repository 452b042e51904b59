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

    /// The change of `metric` for `name` in source `index` since the last earlier source of the same size;
    /// nil for a peer (context, not ours to regress), a metric thresholds.json does not bound, or no such source.
    func change(_ metric: Metric, _ name: String, at index: Int) -> Change? {
        guard Benchmark.peers[name] == nil, metric == .ratio || metric == .peakResident else { return nil }
        let source = sources[index]
        guard let now = metric.value(name, in: source.baseline) else { return nil }
        let earlier = sources[..<index].last {
            $0.baseline.notes == source.baseline.notes && $0.baseline.quick == source.baseline.quick
                && (metric.value(name, in: $0.baseline) ?? 0) > 0
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

    private func size(_ baseline: Baseline) -> String {
        guard let notes = baseline.notes else { return "unknown size" }
        return "\(grouped(notes)) notes\(baseline.quick == true ? ", quick" : "")"
    }

    private func summary() -> String {
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

    private func provenance() -> String {
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

    private func card(_ name: String, metrics: [Metric]) -> String {
        var text = "<div class=\"card\" id=\"\(xmlEscaped(anchor(name)))\">\n<h3>\(xmlEscaped(name))"
        if let summary = Benchmark.summaries[name] { text += " <span class=\"what\">\(xmlEscaped(summary))</span>" }
        text += "</h3>\n<div class=\"charts\">\n"
        for metric in metrics { text += barChart(name, metric) }
        return text + "</div>\n</div>\n"
    }

    /// One horizontal bar per source, in the order saved, this run last.
    private func barChart(_ name: String, _ metric: Metric) -> String {
        let labelWidth = 150.0
        let barWidth = 190.0
        let width = 530.0
        let rowHeight = 22.0
        let top = 30.0
        let values = sources.map { metric.value(name, in: $0.baseline) }
        let reference: (value: Double, label: String)? =
            switch metric {
            case .ratio: (1, "ceiling")
            case .timeVersusReference, .peakVersusReference: (1, "notes-page")
            default: nil
            }
        let largest = max(values.compactMap { $0 }.max() ?? 1, reference?.value ?? 0)
        let scale = largest > 0 ? barWidth / (largest * 1.05) : 0
        let height = top + rowHeight * Double(sources.count) + 8
        var svg = svgOpen(width: width, height: height, label: "\(name): \(metric.title)")
        svg += "<text class=\"title\" x=\"0\" y=\"14\">\(xmlEscaped(metric.title))</text>\n"
        for (index, source) in sources.enumerated() {
            let y = top + rowHeight * Double(index)
            svg += "<text class=\"label\" x=\"\(labelWidth - 6)\" y=\"\(y + 12)\" text-anchor=\"end\">"
            svg += "\(xmlEscaped(shortLabel(source)))</text>\n"
            if let reason = source.baseline.skipped?[name] {
                svg +=
                    "<text class=\"skipped\" x=\"\(labelWidth)\" y=\"\(y + 12)\" data-source=\"\(xmlEscaped(source.id))\""
                svg += " data-benchmark=\"\(xmlEscaped(name))\" data-skipped=\"\(xmlEscaped(reason))\">skipped: "
                svg += "\(xmlEscaped(reason))</text>\n"
                continue
            }
            guard let value = values[index] else {
                svg += "<text class=\"skipped\" x=\"\(labelWidth)\" y=\"\(y + 12)\">not measured</text>\n"
                continue
            }
            let change = change(metric, name, at: index)
            let regression = change?.isRegression == true
            let kind = regression ? "regression" : source.isCurrent ? "current" : "baseline"
            let length = max(1, value * scale)
            svg += "<rect class=\"bar \(kind)\" x=\"\(labelWidth)\" y=\"\(y + 2)\" width=\"\(round(length))\""
            svg += " height=\"14\" data-chart=\"bars\" data-source=\"\(xmlEscaped(source.id))\""
            svg += " data-benchmark=\"\(xmlEscaped(name))\" data-metric=\"\(metric.rawValue)\""
            svg += " data-figure=\"\(figure(value))\" data-regression=\"\(regression)\">"
            svg += "<title>\(xmlEscaped(tooltip(source, name, metric, value, change)))</title></rect>\n"
            var label = metric.text(value)
            if let change, metric != .wallP50 {
                label += regression ? "  ▲ \(change.text)" : String(format: "  %+.0f %%", (change.factor - 1) * 100)
            }
            svg += "<text class=\"value\(regression ? " bad" : "")\" x=\"\(round(labelWidth + length + 4))\""
            svg += " y=\"\(y + 12)\">\(xmlEscaped(label))</text>\n"
        }
        if let reference {
            let x = round(labelWidth + reference.value * scale)
            svg += "<line class=\"reference\" x1=\"\(x)\" y1=\"\(top - 4)\" x2=\"\(x)\" y2=\"\(height - 6)\"/>\n"
            svg += "<text class=\"reference\" x=\"\(x + 3)\" y=\"\(top - 6)\">\(reference.label)</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// One row per benchmark: its time and peak across the sources, in the order saved; one line per size.
    private func trend() -> String {
        var text = "<section id=\"trend\">\n<h2>Trend across the saved baselines</h2>\n"
        text += "<p>One point per baseline in the order saved, this run last (filled); one line per size of run,"
        text += " each on its own scale, which spans at least a fifth of its largest figure.</p>\n"
        text += "<table class=\"trend\">\n<tr><th>benchmark</th><th>time</th><th>peak memory</th></tr>\n"
        for name in benchmarks {
            let peak: Metric = Benchmark.peers[name] == nil ? .peakResident : .peakVersusReference
            text += "<tr><td><a href=\"#\(xmlEscaped(anchor(name)))\">\(xmlEscaped(name))</a></td>"
            text += "<td>\(sparklines(name, timeMetric(name)))</td><td>\(sparklines(name, peak))</td></tr>\n"
        }
        return text + "</table>\n</section>\n"
    }

    /// A sparkline of `metric` for `name` per size of run (notes and quick), points at their source's place.
    private func sparklines(_ name: String, _ metric: Metric) -> String {
        let points = sources.enumerated().compactMap { index, source in
            metric.value(name, in: source.baseline).map { (index: index, source: source, value: $0) }
        }
        guard !points.isEmpty else { return "<span class=\"none\">no figures</span>" }
        var groups: [[(index: Int, source: ReportSource, value: Double)]] = []
        for point in points {
            if let group = groups.firstIndex(where: {
                $0[0].source.baseline.notes == point.source.baseline.notes
                    && $0[0].source.baseline.quick == point.source.baseline.quick
            }) {
                groups[group].append(point)
            } else {
                groups.append([point])
            }
        }
        return groups.map { sparkline(name, metric, $0) }.joined(separator: "<br/>")
    }

    private func sparkline(
        _ name: String, _ metric: Metric, _ points: [(index: Int, source: ReportSource, value: Double)]
    )
        -> String
    {
        let width = 330.0
        let height = 44.0
        let left = 8.0
        let right = 130.0
        var svg = svgOpen(width: width, height: height, label: "\(name): \(metric.title) across the baselines")
        let high = points.map(\.value).max()!
        let low = min(points.map(\.value).min()!, high * 0.8)
        let span = high > low ? high - low : 1
        let step = sources.count > 1 ? (width - left - right) / Double(sources.count - 1) : 0
        func x(_ index: Int) -> Double { round(left + step * Double(index)) }
        func y(_ value: Double) -> Double { round(6 + (height - 12) * (1 - (value - low) / span)) }
        for (previous, point) in zip(points, points.dropFirst()) {
            svg += "<line class=\"trend\" x1=\"\(x(previous.index))\" y1=\"\(y(previous.value))\""
            svg += " x2=\"\(x(point.index))\" y2=\"\(y(point.value))\"/>\n"
        }
        for point in points {
            let change = change(metric, name, at: point.index)
            let regression = change?.isRegression == true
            let kind = regression ? "regression" : point.source.isCurrent ? "current" : "baseline"
            svg += "<circle class=\"point \(kind)\" cx=\"\(x(point.index))\" cy=\"\(y(point.value))\" r=\"4\""
            svg += " data-chart=\"trend\" data-source=\"\(xmlEscaped(point.source.id))\""
            svg += " data-benchmark=\"\(xmlEscaped(name))\" data-metric=\"\(metric.rawValue)\""
            svg += " data-figure=\"\(figure(point.value))\" data-regression=\"\(regression)\"><title>"
            svg += "\(xmlEscaped(tooltip(point.source, name, metric, point.value, change)))</title></circle>\n"
        }
        let last = points.last!
        svg += "<text class=\"value\" x=\"\(width - right + 10)\" y=\"\(height / 2 - 2)\">"
        svg += "\(xmlEscaped(metric.text(last.value)))</text>\n"
        svg += "<text class=\"label\" x=\"\(width - right + 10)\" y=\"\(height / 2 + 11)\">"
        svg += "\(xmlEscaped(size(last.source.baseline)))</text>\n"
        return svg + "</svg>"
    }

    private func thresholdTable() -> String {
        func percent(_ limit: Double?) -> String {
            limit.map { String(format: "%+.0f %%", ($0 - 1) * 100) } ?? "default"
        }
        var text = "<section id=\"thresholds\">\n<h2>Thresholds (Benchmarks/Baselines/thresholds.json)</h2>\n"
        text += "<table>\n<tr><th>benchmark</th><th>ratio may grow</th><th>peak may grow</th></tr>\n"
        text += "<tr><td>every other benchmark</td><td>\(percent(thresholds.defaults.ratio ?? 1.15))</td>"
        text += "<td>\(percent(thresholds.defaults.peakResident ?? 1.2))</td></tr>\n"
        for (name, limit) in thresholds.benchmarks.sorted(by: { $0.key < $1.key }) {
            text += "<tr><td>\(xmlEscaped(name))</td><td>\(percent(limit.ratio))</td>"
            text += "<td>\(percent(limit.peakResident))</td></tr>\n"
        }
        return text + "</table>\n</section>\n"
    }

    // MARK: - Pieces

    private func svgOpen(width: Double, height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\""
            + " viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(xmlEscaped(label))\">\n"
    }

    /// The source's name as a chart's row label (the provenance table has the rest).
    private func shortLabel(_ source: ReportSource) -> String {
        source.label.count > 24 ? source.label.prefix(23) + "…" : source.label
    }

    private func tooltip(_ source: ReportSource, _ name: String, _ metric: Metric, _ value: Double, _ change: Change?)
        -> String
    {
        let baseline = source.baseline
        var lines = [
            "\(name), \(metric.title): \(metric.text(value))",
            "\(source.label): \(size(baseline)), \(baseline.results[name].map { "\($0.samples) samples" } ?? "")",
            "date: \(baseline.date ?? "unknown")", "machine: \(baseline.machine ?? "unknown")",
            "toolchain: \(baseline.toolchain ?? "unknown")", "commit: \(baseline.commit ?? "unknown")",
        ]
        if let change {
            lines.append("\(metric.text(change.before)) in \(change.against.label): \(change.text)")
        }
        return lines.joined(separator: "\n")
    }

    private func anchor(_ name: String) -> String {
        "b-" + String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    private func grouped(_ number: Int) -> String {
        let digits = String(number)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }

    private static let style = """
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; margin: 24px 32px;
          max-width: 1240px; }
        h1 { font-size: 24px; margin: 0 0 8px; }
        h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d5dbe5; padding-bottom: 4px; }
        h3 { font-size: 15px; margin: 0 0 6px; }
        .what { font-weight: normal; color: #5a6475; }
        .lede { color: #3b4452; max-width: 1100px; }
        .ok { color: #1b6e3a; font-weight: 600; }
        .bad { color: #b3261e; font-weight: 600; }
        ul.regressions li { color: #b3261e; }
        table { border-collapse: collapse; font-size: 13px; }
        th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #e6e9ef; vertical-align: middle; }
        tr.current td { font-weight: 600; }
        .card { border: 1px solid #d5dbe5; border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
        .charts { display: flex; flex-wrap: wrap; gap: 8px 24px; }
        svg text { font: 11px system-ui, sans-serif; fill: #1d2430; }
        svg text.title { font-weight: 600; font-size: 12px; }
        svg text.label { fill: #3b4452; }
        svg text.skipped { fill: #7a8394; font-style: italic; }
        svg text.bad { fill: #b3261e; font-weight: 600; }
        svg text.reference { fill: #6b7380; font-size: 10px; }
        rect.baseline { fill: #9db3d3; }
        rect.current { fill: #1f5fbf; }
        rect.regression { fill: #d93a2f; }
        line.reference { stroke: #6b7380; stroke-dasharray: 3 3; }
        line.trend { stroke: #9db3d3; stroke-width: 2; }
        circle.baseline { fill: #ffffff; stroke: #5d7fb0; stroke-width: 2; }
        circle.current { fill: #1f5fbf; }
        circle.regression { fill: #d93a2f; }
        table.trend td { padding: 4px 16px 4px 0; }
        .none { color: #7a8394; font-style: italic; }
        """
}

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
