import Foundation
import NotesFetch
import NotesPage
import NotesURLSession
import TestSupport
import Testing

/// The README, read as the tests read it.
enum Readme {
    static let path = FixtureServer.repository.appendingPathComponent("README.md").path

    static func readmeLines() throws -> [String] {
        try Files.text(path).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The names of the `<!-- recipe: NAME -->` markers, in order.
    static func recipeNames() throws -> [String] {
        try readmeLines().compactMap { line in
            guard line.hasPrefix("<!-- recipe: "), line.hasSuffix(" -->") else { return nil }
            return String(line.dropFirst("<!-- recipe: ".count).dropLast(" -->".count))
        }
    }

    /// The fenced `sh` block right after `<!-- recipe: NAME -->`.
    static func recipe(_ name: String) throws -> String {
        let lines = try readmeLines()
        let marker = try #require(lines.firstIndex(of: "<!-- recipe: \(name) -->"), "README has no recipe \(name)")
        try #require(lines.indices.contains(marker + 1) && lines[marker + 1] == "```sh", "recipe \(name): no sh block")
        let block = try #require(lines[(marker + 2)...].firstIndex(of: "```"), "recipe \(name): unterminated")
        return lines[(marker + 2)..<block].joined(separator: "\n") + "\n"
    }

    /// The first `swift` block under `heading` in the Markdown file at `path` (the README's "Using it from
    /// Swift" by default): its import lines, and the rest with `local(…)` written as the test writes it,
    /// so that the two compare line for line.
    static func swiftExample(
        in path: String = Readme.path, under title: String = "## Using it from Swift"
    ) throws -> (imports: [String], code: [String]) {
        let lines = try Files.text(path).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let heading = try #require(lines.firstIndex(of: title), "\(path) has no \(title)")
        let start = try #require(lines[heading...].firstIndex(of: "```swift"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        let block = lines[(start + 1)..<end].filter { !$0.isEmpty }
        let code = block.filter { !$0.hasPrefix("import ") }.map { line in
            line.replacingOccurrences(
                of: #"URL(string: "https://api.example.com/api/notes/")"#,
                with: #"URL(string: local("https://api.example.com/api/notes/"))"#)
        }
        return (block.filter { $0.hasPrefix("import ") }, code)
    }

    /// The lines of `text` strictly between the lines `begin` and `end` (trimmed), less their common
    /// indentation; empty lines left out.
    static func lines(between begin: String, and end: String, in text: String) throws -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == begin })
        let last = try #require(lines[(first + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == end })
        let body = lines[(first + 1)..<last].filter { !$0.isEmpty }
        let indent = body.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { String($0.dropFirst(indent)) }
    }
}

extension ReadmeRecipeTests {
    /// docs/performance.md holds one table of figures, the newest saved baseline's, as `make perf-table`
    /// writes it: saving a baseline without rewriting the table fails here.
    @Suite("docs/performance.md's table")
    struct PerformanceTable {
        @Test("It is what `benchmarks --baseline-table` writes from Benchmarks/Baselines, byte for byte")
        func current() async throws {
            let repository = FixtureServer.repository
            let document = repository.appendingPathComponent("docs/performance.md").path
            let saved = try Files.read(document)
            // The same layout as the repository's, so that the table links to the baselines the same way.
            let scratch = try Scratch()
            defer { scratch.remove() }
            let manager = FileManager.default
            try manager.createDirectory(atPath: scratch.path("docs"), withIntermediateDirectories: true)
            try manager.createDirectory(atPath: scratch.path("Benchmarks"), withIntermediateDirectories: true)
            try manager.createSymbolicLink(
                atPath: scratch.path("Benchmarks/Baselines"),
                withDestinationPath: repository.appendingPathComponent("Benchmarks/Baselines").path)
            try Files.write(saved, to: scratch.path("docs/performance.md"))
            let benchmarks = Run.binary.deletingLastPathComponent().appendingPathComponent("benchmarks")
            let arguments = ["--baseline-table", "docs/performance.md", "--baselines", "Benchmarks/Baselines"]
            let directory = scratch.url
            let run = try await offPool { try Finished(benchmarks, arguments, directory: directory, patience: 60) }
            #expect(run.status == 0, "\(run.stderr)")
            let written = try Files.read(scratch.path("docs/performance.md"))
            // Compared apart from the expectation, which would print every byte of both.
            let same = written == saved
            #expect(same, "docs/performance.md is not the newest baseline's table: run make perf-table")
        }
    }
}
