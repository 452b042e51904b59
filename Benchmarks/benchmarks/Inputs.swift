import Foundation

/// The inputs every benchmark reads, made by `notes-gen` (deterministic) and cached under
/// `<scratch path>/benchmarks/` (`.build/benchmarks/` by default).
final class Inputs: @unchecked Sendable {
    // Written once while preparing, read afterwards.
    let count: Int
    let root: String
    let notesPage: String
    let notesGen: String
    let pagePath: String
    /// The same notes with integer ids (`notes-gen --id-kind int`).
    let integerPagePath: String
    let directory: String
    let scratch: String
    var curlConfig = ""
    var serverURL = ""
    /// A second fixture server that takes `latency` seconds before each answer (`--count` mode, so it also
    /// serves page numbers and header cursors), and curl's config for walking its pages one after another.
    var latencyURL = ""
    var latencyCurlConfig = ""
    /// Notes the latency scenarios walk, 1,000 a page (100 pages at most).
    var latencyNotes: Int { min(count, 100_000) }
    /// Pages of 100 notes (GitHub's largest) the GraphQL scenarios walk on the latency server, and their
    /// queries: the fields the latency server's notes have (as many bytes as its REST pages), `pageInfo`
    /// after the records or before them.
    var graphQLPages: Int { max(1, min(count, 10_000) / 100) }
    var graphQLLate = ""
    var graphQLEarly = ""
    /// Server time per request in the latency scenarios, in milliseconds.
    let latency = 20
    /// The Python interpreter itself (`sys.executable`), not a shim such as pyenv's, whose start-up would
    /// count against Python; `python3` when there is none.
    var python = "python3"
    var pageBytes = 0
    var integerPageBytes = 0
    var directoryBytes = 0
    private var server: Process?
    private var latencyServer: Process?
    /// The same pages gzip-compressed by a third server, and curl's config for them (`--compressed`).
    var gzipURL = ""
    var gzipCurlConfig = ""
    private var gzipServer: Process?
    /// The same notes in pages of 100 (GitHub's largest), from a fourth server, and curl's config for them:
    /// what a page costs besides its bytes.
    let smallPages: String
    var smallPagesURL = ""
    var smallPagesCurlConfig = ""
    private var smallPagesServer: Process?
    /// A GitHub-shaped API (`--repos`) of `fanoutParents` repositories of 300 issues each, 20 ms a response:
    /// its base URL, a sync's source over it, and curl's config for its pages one after another.
    var fanoutBase = ""
    var fanoutSource = ""
    var fanoutCurlConfig = ""
    private var fanoutServer: Process?
    /// A GitHub-shaped API of `workerParents` repositories of 100 issues each (one page), 20 ms a response,
    /// and a source over it: the units of a sync drained by workers (`sync/workers-N`).
    var workersSource = ""
    /// The same server's repositories as one resource of a page each (`paginate: page`, one page in flight),
    /// whole and split into ranges of 10 pages (`pages-per-unit`): `sync/ranges-N`.
    var rangesSource = ""
    var wholeSource = ""
    private var workersServer: Process?
    /// Its repositories: 399 for a million notes (with the repositories' walk, 400 units), fewer for a quick run.
    var workerParents: Int { max(39, min(399, count / 2_500)) }
    /// Its pages: the repositories' (100 a page), then one of issues for each.
    var workerPages: Int { (workerParents + 99) / 100 + workerParents }

    /// The repositories of the fan-out: 200 for a million notes, fewer for a quick run.
    var fanoutParents: Int { max(10, min(200, count / 5_000)) }
    /// Its pages: the repositories' (100 a page), then three of issues for each.
    var fanoutPages: Int { (fanoutParents + 99) / 100 + fanoutParents * 3 }

    /// - Parameters:
    ///   - count: Notes in the run.
    ///   - root: The package directory.
    ///   - binaries: Where the release `notes-page` and `notes-gen` are.
    ///   - cache: Where the inputs are kept between runs (`<scratch path>/benchmarks`).
    init(count: Int, root: String, binaries: String, cache: String) {
        self.count = count
        self.root = root
        notesPage = binaries + "/notes-page"
        notesGen = binaries + "/notes-gen"
        let cache = cache + "/\(count)"
        pagePath = cache + "/page.json"
        integerPagePath = cache + "/page-int.json"
        directory = cache + "/pages"
        smallPages = cache + "/pages-100"
        scratch = cache + "/scratch"
    }

    /// Generates what is missing and starts the fixture server.
    func prepare() throws {
        let files = FileManager.default
        try files.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        if !files.fileExists(atPath: pagePath) {
            try run([notesGen, "--count", "\(count)", "--format", "page", "--out", pagePath])
        }
        if !files.fileExists(atPath: integerPagePath) {
            try run([
                notesGen, "--count", "\(count)", "--format", "page", "--id-kind", "int", "--out", integerPagePath,
            ])
        }
        if !files.fileExists(atPath: directory + "/manifest.json") {
            try run([notesGen, "--count", "\(count)", "--page-size", "1000", "--out", directory])
        }
        if !files.fileExists(atPath: smallPages + "/manifest.json") {
            try run([notesGen, "--count", "\(count)", "--page-size", "100", "--out", smallPages])
        }
        pageBytes = (try files.attributesOfItem(atPath: pagePath)[.size] as? Int) ?? 0
        integerPageBytes = (try files.attributesOfItem(atPath: integerPagePath)[.size] as? Int) ?? 0
        let manifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json")))
            as? [String: Any] ?? [:]
        directoryBytes = manifest["total_bytes"] as? Int ?? 0

        (server, serverURL) = try startServer(["--dir", directory])
        (gzipServer, gzipURL) = try startServer(["--dir", directory, "--compress", "gzip"])
        (smallPagesServer, smallPagesURL) = try startServer(["--dir", smallPages])
        (latencyServer, latencyURL) = try startServer([
            "--count", "\(latencyNotes)", "--page-size", "1000", "--seed", "7", "--fault", "delay:\(latency)",
        ])
        let fanoutURL: String
        (fanoutServer, fanoutURL) = try startServer([
            "--count", "1", "--repos", "\(fanoutParents)", "--issues", "300", "--comments", "0", "--fixed", "--latency",
            "\(latency)",
        ])
        fanoutBase = fanoutURL.replacingOccurrences(of: "/notes", with: "")
        fanoutSource = scratch + "/fanout.yaml"
        try """
        base-url: \(fanoutBase)/
        defaults:
          no-title: true
        resources:
          - name: repos
            path: repos?per_page=100
          - name: issues
            parent: repos
            path: repos/octo/{parent.name}/issues?per_page=100
        """.write(toFile: fanoutSource, atomically: true, encoding: .utf8)
        let workersURL: String
        (workersServer, workersURL) = try startServer([
            "--count", "1", "--repos", "\(workerParents)", "--issues", "100", "--comments", "0", "--fixed", "--latency",
            "\(latency)",
        ])
        workersSource = scratch + "/workers.yaml"
        try """
        base-url: \(workersURL.replacingOccurrences(of: "/notes", with: ""))/
        defaults:
          no-title: true
        resources:
          - name: repos
            path: repos?per_page=100
          - name: issues
            parent: repos
            path: repos/octo/{parent.name}/issues?per_page=100
        """.write(toFile: workersSource, atomically: true, encoding: .utf8)
        (rangesSource, wholeSource) = (scratch + "/ranges.yaml", scratch + "/whole.yaml")
        for (path, split) in [(rangesSource, "\n    pages-per-unit: 10"), (wholeSource, "")] {
            try """
            base-url: \(workersURL.replacingOccurrences(of: "/notes", with: ""))/
            defaults:
              no-title: true
            resources:
              - name: repos
                path: repos
                paginate: page
                page-size: 1
                parallel: 1\(split)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        }
        fanoutCurlConfig = scratch + "/fanout-curl.cfg"
        let repoPages = (1...((fanoutParents + 99) / 100)).map { "\(fanoutBase)/repos?per_page=100&page=\($0)" }
        let issuePages = (1...fanoutParents).flatMap { repo in
            (1...3).map { "\(fanoutBase)/repos/octo/repo-\(repo)/issues?per_page=100&page=\($0)" }
        }
        try (repoPages + issuePages).map { "url = \"\($0)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(toFile: fanoutCurlConfig, atomically: true, encoding: .utf8)
        let fields = "id title rank pinned"
        graphQLLate = scratch + "/late.graphql"
        try
            "query($after: String) { notes(first: 100, after: $after) { nodes { \(fields) } pageInfo { hasNextPage endCursor } } }"
            .write(toFile: graphQLLate, atomically: true, encoding: .utf8)
        graphQLEarly = scratch + "/early.graphql"
        try
            "query($after: String) { notes(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { \(fields) } } }"
            .write(toFile: graphQLEarly, atomically: true, encoding: .utf8)
        let pages = max(1, (latencyNotes + 999) / 1000)
        latencyCurlConfig = scratch + "/latency-curl.cfg"
        try (1...pages).map { "url = \"\(latencyURL)?style=page&page=\($0)&per_page=1000\"\noutput = \"/dev/null\"\n" }
            .joined().write(toFile: latencyCurlConfig, atomically: true, encoding: .utf8)

        if let python3 = findProgram("python3") {
            let executable = spawn([python3, "-c", "import sys; print(sys.executable)"])
            let path = executable.output.trimmingCharacters(in: .whitespacesAndNewlines)
            python = executable.status == 0 && !path.isEmpty ? path : python3
        }

        // curl's config: every page URL in order, over one keep-alive connection.
        func curlConfig(_ manifest: [String: Any], _ serverURL: String) -> String {
            var config = ""
            for page in manifest["pages"] as? [[String: Any]] ?? [] {
                var url = serverURL
                if let cursor = page["cursor"] as? String {
                    url += "?cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)
                }
                config += "url = \"\(url)\"\noutput = \"/dev/null\"\n"
            }
            return config
        }
        let config = curlConfig(manifest, serverURL)
        self.curlConfig = scratch + "/curl.cfg"
        try config.write(toFile: self.curlConfig, atomically: true, encoding: .utf8)
        let smallManifest =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: smallPages + "/manifest.json")))
            as? [String: Any] ?? [:]
        smallPagesCurlConfig = scratch + "/curl-100.cfg"
        try curlConfig(smallManifest, smallPagesURL).write(
            toFile: smallPagesCurlConfig, atomically: true, encoding: .utf8)
        gzipCurlConfig = scratch + "/curl-gzip.cfg"
        try ("compressed\n" + config.replacingOccurrences(of: serverURL, with: gzipURL))
            .write(toFile: gzipCurlConfig, atomically: true, encoding: .utf8)
    }

    func stop() {
        for process in [server, latencyServer, gzipServer, smallPagesServer, fanoutServer, workersServer].compactMap({
            $0
        }) {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Starts `Tools/fixture-server/notes-server.mjs` with `arguments` and reads the URL it prints first.
    private func startServer(_ arguments: [String]) throws -> (Process, String) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["node", root + "/Tools/fixture-server/notes-server.mjs"] + arguments + ["--quiet"]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return (server, String(decoding: line, as: UTF8.self))
    }

    private func run(_ arguments: [String]) throws {
        let result = spawn(arguments, captureOutput: false)
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
