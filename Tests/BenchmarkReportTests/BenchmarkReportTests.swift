import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Runs the built `benchmarks` (beside the test bundle; `--report --from-baselines` runs nothing, so a debug
/// build does it in place) and captures what it did.
private func benchmarks(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    // A bounded wait: a run that measured instead would take minutes (and a debug build would start a
    // release build, which waits for the lock `swift test` holds on the build directory).
    let run = try Finished(
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("benchmarks"),
        arguments, patience: 60)
    return (run.status, run.stdout, run.stderr)
}

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
private struct TemporaryDirectory {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("benchmark-report-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ json: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        try Files.write(data, to: path + "/" + name)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Every element of an XML document: its name and attributes in document order, and the text of each
/// table row that names its source.
private final class Elements: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var rows: [(source: String, cells: [String])] = []
    private var row: (source: String, cells: [String])?
    private var cell: String?

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        elements.append((name, attributes))
        if name == "tr", let source = attributes["data-source"] { row = (source, []) }
        if name == "td", row != nil { cell = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { cell? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "td", let text = cell {
            row?.cells.append(text)
            cell = nil
        }
        if name == "tr", let finished = row {
            rows.append(finished)
            row = nil
        }
    }

    private var errors: [String] = []

    func parser(_ parser: XMLParser, parseErrorOccurred error: any Error) {
        errors.append("line \(parser.lineNumber), column \(parser.columnNumber): \(error)")
    }

    /// Parses `data` as XML.
    /// - Returns: What it held, or nil with the parser's errors when it is not well formed. (On Linux,
    ///   `XMLParser.parse()` returns `true` for some malformed documents, a mismatched end tag among them,
    ///   while it sets `parserError`: both are checked, and every error the delegate hears of.)
    static func parse(_ data: Data) -> (Elements?, String) {
        let parser = XMLParser(data: data)
        let elements = Elements()
        parser.delegate = elements
        parser.shouldProcessNamespaces = true
        let parsed = parser.parse()
        if let error = parser.parserError { elements.errors.append("\(error)") }
        guard parsed && elements.errors.isEmpty else { return (nil, elements.errors.joined(separator: "; ")) }
        return (elements, "")
    }
}

/// A saved baseline as the test reads it, independently of the harness's types. (JSONDecoder, not
/// JSONSerialization: on Linux the latter reads some 17-digit doubles a few units in the last place off.)
private struct SavedBaseline: Decodable {
    var results: [String: [String: Double]]

    init(_ path: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Files.data(URL(fileURLWithPath: path)))
    }

    /// Each peer's benchmark and the notes-page benchmark that does the same job: its figures are shown
    /// over that one's.
    static let references = [
        "fetch/peer-node": "fetch/notes-page", "fetch/peer-python": "fetch/notes-page",
        "store/sqlite-utils": "store/sqlite", "store/dlt": "store/sqlite", "store/dlt-postgres": "store/postgres",
        "sync/dlt-rest": "sync/fanout-8",
    ]

    /// The figure of `metric` for `benchmark` that the report must show.
    func figure(_ benchmark: String, _ metric: String) -> Double? {
        guard let figures = results[benchmark] else { return nil }
        let reference = Self.references[benchmark].flatMap { results[$0] }
        switch metric {
        case "timeVersusReference": return reference.map { figures["wallP50"]! / $0["wallP50"]! }
        case "peakVersusReference": return reference.map { figures["peakResident"]! / $0["peakResident"]! }
        default: return figures[metric]
        }
    }
}

/// The checks every report must pass: well formed, every SVG well formed on its own, nothing from the
/// network, and each bar and trend point showing exactly the figure of the JSON it names.
/// - Returns: The parsed page.
@discardableResult
private func checkReport(_ path: String, baselines: String) throws -> Elements {
    let data = try Files.data(URL(fileURLWithPath: path))
    let text = String(decoding: data, as: UTF8.self)
    let (parsed, error) = Elements.parse(data)
    let page = try #require(parsed, "the report is not well-formed XML: \(error)")
    #expect(page.elements.first?.name == "html")

    var svgCount = 0
    var rest = text[...]
    while let start = rest.range(of: "<svg"),
        let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex)
    {
        let (svg, svgError) = Elements.parse(Data(rest[start.lowerBound..<end.upperBound].utf8))
        #expect(svg?.elements.first?.name == "svg", "SVG \(svgCount) does not parse alone: \(svgError)")
        svgCount += 1
        rest = rest[end.upperBound...]
    }
    #expect(svgCount == page.elements.filter { $0.name == "svg" }.count && svgCount > 0)

    // Self-contained: no script, no stylesheet or font or image fetched, no URL but the namespaces'.
    for element in page.elements {
        #expect(!["script", "link", "img", "iframe", "object", "embed"].contains(element.name), "\(element.name)")
        #expect(element.attributes["src"] == nil && element.attributes["href"]?.hasPrefix("#") ?? true)
    }
    let withoutNamespaces = text.replacingOccurrences(of: "xmlns=\"http://www.w3.org/1999/xhtml\"", with: "")
        .replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
    #expect(!withoutNamespaces.contains("://"), "only the XHTML and SVG namespaces may name a URL")
    #expect(!text.contains("@import") && !text.contains("url("))

    var files: [String: SavedBaseline] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: baselines)
    where name.hasSuffix(".json") && name != "thresholds.json" {
        files[String(name.dropLast(5))] = try SavedBaseline(baselines + "/" + name)
    }
    let figures = page.elements.filter { $0.attributes["data-figure"] != nil }
    #expect(!figures.isEmpty)
    for element in figures {
        let attributes = element.attributes
        let source = try #require(attributes["data-source"])
        let benchmark = try #require(attributes["data-benchmark"])
        let metric = try #require(attributes["data-metric"])
        let shown = try #require(Double(attributes["data-figure"]!))
        let expected = files[source]?.figure(benchmark, metric)
        #expect(shown == expected, "\(source) \(benchmark) \(metric)")
    }
    // Every figure of every baseline is drawn: its peak and its time, as a bar and as a trend point.
    for (source, baseline) in files {
        for benchmark in baseline.results.keys {
            let drawn = figures.filter {
                $0.attributes["data-source"] == source && $0.attributes["data-benchmark"] == benchmark
            }
            for chart in ["bars", "trend"] {
                let metrics = Set(
                    drawn.filter { $0.attributes["data-chart"] == chart }.map { $0.attributes["data-metric"]! })
                let peak = SavedBaseline.references[benchmark] != nil ? "peakVersusReference" : "peakResident"
                #expect(metrics.contains(peak) && metrics.count == 2, "\(source) \(benchmark) \(chart): \(metrics)")
            }
        }
    }
    return page
}

/// Figures of one benchmark as a baseline file holds them.
private func figures(wall: Double, ratio: Double?, peak: Int) -> [String: Any] {
    var figures: [String: Any] = [
        "wallP50": wall, "wallP90": wall * 1.1, "cpuP50": wall, "peakResident": peak, "megabytesPerSecond": 100.5,
        "notesPerSecond": 1e6, "samples": 5,
    ]
    if let ratio { figures["ratio"] = ratio }
    return figures
}

@Suite("benchmarks --report")
struct BenchmarkReportTests {
    @Test("The saved baselines of the repository: well formed, every SVG parses, every figure is its JSON's")
    func repositoryBaselines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let baselines = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/Baselines").path
        let report = directory.path + "/report.html"
        let (status, stdout, stderr) = try benchmarks(["--report", report, "--from-baselines"])
        #expect(status == 0, "\(stderr)")
        #expect(stdout.isEmpty)
        #expect(stderr.hasPrefix("Wrote the report of "), "\(stderr)")
        try checkReport(report, baselines: baselines)
    }

    @Test("Baselines in the order saved, old fields unknown, regressions past thresholds.json marked, peers beside")
    func craftedBaselines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "thresholds.json",
            ["defaults": ["ratio": 1.15, "peakResident": 1.2], "benchmarks": ["decode/typed": ["ratio": 1.5]]])
        // Saved before dates, toolchains and commits were recorded.
        try directory.write(
            "zz-oldest.json",
            [
                "machine": "2 cores", "quick": false, "notes": 1000,
                "results": [
                    "decode/yajl-noop": figures(wall: 0.5, ratio: nil, peak: 100_000),
                    "decode/typed-64k": figures(wall: 1, ratio: 2, peak: 200_000),
                    "decode/typed": figures(wall: 1, ratio: 2, peak: 200_000),
                ],
            ])
        try directory.write(
            "b-second.json",
            [
                "date": "2026-01-02T00:00:00Z", "machine": "2 cores <x86_64> & 8 GiB", "toolchain": "Swift 6.3",
                "commit": "abc",
                "quick": false, "notes": 1000,
                "results": [
                    "decode/yajl-noop": figures(wall: 0.25, ratio: nil, peak: 100_000),
                    // +20 % ratio: past the default +15 %; +10 % peak: within +20 %.
                    "decode/typed-64k": figures(wall: 0.6, ratio: 2.4, peak: 220_000),
                    // +40 % ratio: within decode/typed's own +50 %; +25 % peak: past +20 %.
                    "decode/typed": figures(wall: 0.7, ratio: 2.8, peak: 250_000),
                    "fetch/notes-page": figures(wall: 2, ratio: 3, peak: 50_000_000),
                    "fetch/peer-node": figures(wall: 4.2, ratio: 6.3, peak: 170_000_000),
                ],
                "skipped": ["fetch/peer-python": "python3 not found on PATH"],
            ])
        // Another processor, the same size: compared with nothing before it, though every figure is far worse.
        try directory.write(
            "c-other-cpu.json",
            [
                "date": "2026-01-02T12:00:00Z", "machine": "Other CPU, 2 cores, 8 GiB", "toolchain": "Swift 6.3",
                "commit": "abd", "quick": false, "notes": 1000,
                "results": [
                    "decode/yajl-noop": figures(wall: 0.25, ratio: nil, peak: 100_000),
                    "decode/typed-64k": figures(wall: 2, ratio: 8, peak: 800_000),
                ],
            ])
        // Another size: compared with nothing before it, though every figure is far worse.
        try directory.write(
            "a-third.json",
            [
                "date": "2026-01-03T00:00:00Z", "machine": "2 cores", "toolchain": "Swift 6.3",
                "commit": "def + local changes", "quick": true, "notes": 20,
                "results": [
                    "decode/typed-64k": figures(wall: 1, ratio: 9, peak: 900_000),
                    "fetch/notes-page": figures(wall: 0.5, ratio: 3, peak: 10_000_000),
                    "fetch/peer-node": figures(wall: 1, ratio: 6, peak: 40_000_000),
                    "fetch/peer-python": figures(wall: 7.5, ratio: 45, peak: 20_000_000),
                ],
            ])
        let report = directory.path + "/report.html"
        let (status, _, stderr) = try benchmarks([
            "--report", report, "--from-baselines", "--baselines", directory.path,
        ])
        #expect(status == 0, "\(stderr)")
        #expect(stderr == "Wrote the report of 4 saved baselines to \(report)\n")
        let page = try checkReport(report, baselines: directory.path)

        // In the order saved: undated first, then by date (not by name).
        let order = ["zz-oldest", "b-second", "c-other-cpu", "a-third"]
        #expect(page.rows.map(\.source) == order)
        #expect(Array(page.rows[0].cells[1...4]) == ["unknown", "2 cores", "unknown", "unknown"])
        #expect(page.rows[3].cells[4] == "def + local changes" && page.rows[3].cells[5] == "20 notes, quick")
        #expect(page.rows[1].cells[2] == "2 cores <x86_64> & 8 GiB")
        #expect(page.rows[1].cells[6] == "fetch/peer-python: python3 not found on PATH")
        let typedBars = page.elements.filter {
            $0.attributes["data-chart"] == "bars" && $0.attributes["data-benchmark"] == "decode/typed-64k"
                && $0.attributes["data-metric"] == "ratio"
        }
        #expect(typedBars.map { $0.attributes["data-source"]! } == order)
        let ys = typedBars.map { Double($0.attributes["y"]!)! }
        #expect(ys == ys.sorted())

        let marked = Set(
            page.elements.filter { $0.attributes["data-regression"] == "true" }.map {
                "\($0.attributes["data-chart"]!) \($0.attributes["data-source"]!) \($0.attributes["data-benchmark"]!) "
                    + $0.attributes["data-metric"]!
            })
        let regressions = ["b-second decode/typed-64k ratio", "b-second decode/typed peakResident"]
        #expect(marked == Set(regressions.flatMap { ["bars \($0)", "trend \($0)"] }))

        let skipped = page.elements.filter { $0.attributes["data-skipped"] != nil }.map {
            "\($0.attributes["data-source"]!) \($0.attributes["data-benchmark"]!): \($0.attributes["data-skipped"]!)"
        }
        #expect(skipped == Array(repeating: "b-second fetch/peer-python: python3 not found on PATH", count: 2))
        let text = try Files.text(report)
        #expect(text.contains("2 figures got worse than thresholds.json allows"))
    }

    @Test(
        "Usage errors: --from-baselines needs --report and measures nothing; bad values stop before any build",
        arguments: [
            (["--from-baselines"], 64, "Error: '--from-baselines' needs '--report <file>'\n"),
            (
                ["--report", "r.html", "--from-baselines", "--save", "x"], 64,
                "Error: '--save' measures or records a run; '--from-baselines' runs nothing\n"
            ),
            // Checked before a debug build hands over to the release one: no build starts.
            (
                ["--quick", "--format", "xml"], 64,
                "Error: Invalid value 'xml' for '--format': expected one of text, markdown, json\n"
            ),
        ])
    func usage(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let result = try benchmarks(arguments)
        #expect(result.status == status)
        #expect(result.stderr == message + "See 'benchmarks --help' for more information.\n")
    }

    @Test("A directory without baselines gives no report, exit 66")
    func noBaselines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = directory.path + "/report.html"
        let result = try benchmarks(["--report", report, "--from-baselines", "--baselines", directory.path])
        #expect(result.status == 66)
        #expect(result.stderr == "Error: no baseline in \(directory.path) to report on\n")
        #expect(!FileManager.default.fileExists(atPath: report))
    }
}
