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
    let directory: String
    let scratch: String
    var curlConfig = ""
    var serverURL = ""
    /// The Python interpreter itself (`sys.executable`), not a shim such as pyenv's, whose start-up would
    /// count against Python; `python3` when there is none.
    var python = "python3"
    var pageBytes = 0
    var directoryBytes = 0
    private var server: Process?

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
        directory = cache + "/pages"
        scratch = cache + "/scratch"
    }

    /// Generates what is missing and starts the fixture server.
    func prepare() throws {
        let files = FileManager.default
        try files.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        if !files.fileExists(atPath: pagePath) {
            try run([notesGen, "--count", "\(count)", "--format", "page", "--out", pagePath])
        }
        if !files.fileExists(atPath: directory + "/manifest.json") {
            try run([notesGen, "--count", "\(count)", "--page-size", "1000", "--out", directory])
        }
        pageBytes = (try files.attributesOfItem(atPath: pagePath)[.size] as? Int) ?? 0
        let manifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json")))
            as? [String: Any] ?? [:]
        directoryBytes = manifest["total_bytes"] as? Int ?? 0

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["node", root + "/Tools/notes-server.mjs", "--dir", directory, "--quiet"]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        self.server = server
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        serverURL = String(decoding: line, as: UTF8.self)

        if let python3 = findProgram("python3") {
            let executable = spawn([python3, "-c", "import sys; print(sys.executable)"])
            let path = executable.output.trimmingCharacters(in: .whitespacesAndNewlines)
            python = executable.status == 0 && !path.isEmpty ? path : python3
        }

        // curl's config: every page URL in order, over one keep-alive connection.
        var config = ""
        for page in manifest["pages"] as? [[String: Any]] ?? [] {
            var url = serverURL
            if let cursor = page["cursor"] as? String {
                url += "?cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)
            }
            config += "url = \"\(url)\"\noutput = \"/dev/null\"\n"
        }
        curlConfig = scratch + "/curl.cfg"
        try config.write(toFile: curlConfig, atomically: true, encoding: .utf8)
    }

    func stop() {
        server?.terminate()
        server?.waitUntilExit()
    }

    private func run(_ arguments: [String]) throws {
        let result = spawn(arguments, captureOutput: false)
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
