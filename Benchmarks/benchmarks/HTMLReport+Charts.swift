import Foundation

// The report's drawings: a bar chart per benchmark and figure, the trends, the thresholds, and the
// pieces they are made of.

extension HTMLReport {
    /// One horizontal bar per source, in the order saved, this run last.
    func barChart(_ name: String, _ metric: Metric) -> String {
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
    func trend() -> String {
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
    func sparklines(_ name: String, _ metric: Metric) -> String {
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

    func sparkline(
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

    func thresholdTable() -> String {
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

    func svgOpen(width: Double, height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\""
            + " viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(xmlEscaped(label))\">\n"
    }

    /// The source's name as a chart's row label (the provenance table has the rest).
    func shortLabel(_ source: ReportSource) -> String {
        source.label.count > 24 ? source.label.prefix(23) + "…" : source.label
    }

    func tooltip(_ source: ReportSource, _ name: String, _ metric: Metric, _ value: Double, _ change: Change?)
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

    func anchor(_ name: String) -> String {
        "b-" + String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    func grouped(_ number: Int) -> String {
        let digits = String(number)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }

    static let style = """
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
