import Foundation
import TestSupport
import Testing

// The same suite: running a recipe of the README in a scratch directory, and checking what it wrote.

extension ReadmeRecipeTests {
    /// `http://127.0.0.1:PORT` of a fixture server, whose URL names its `/notes`.
    static func base(_ server: FixtureServer) -> String { String(server.url.dropLast("/notes".count)) }

    /// Runs recipe `name` with `replacing` applied and checks that it exits 0 having written each of
    /// `expected` once, in order, to `output`.
    static func expectRecipe(
        _ name: String, replacing: [String: String], environment: [String: String] = [:], output: String,
        expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runRecipe(name, replacing: replacing, environment: environment, in: scratch)
        #expect(run.status == 0, "\(name): exit \(run.status)\n\(run.stderr)", sourceLocation: sourceLocation)
        let written = (try? scratch.read(output)) ?? ""
        expectEachOnce(ids(ofNDJSON: written), expected: expected, context: name, sourceLocation: sourceLocation)
        #expect(
            run.stderr.contains("\(expected.count) notes, "), "\(name): \(run.stderr)", sourceLocation: sourceLocation)
    }

    /// Recipe `name` of the README with each key of `replacing` (which must occur in it) replaced by its
    /// value, run by `/bin/sh -e` in `scratch` with the built notes-page first on `PATH`.
    static func runRecipe(
        _ name: String, replacing: [String: String], environment: [String: String] = [:], in scratch: Scratch
    ) async throws -> Finished {
        var script = try Readme.recipe(name)
        for (hosted, local) in replacing.sorted(by: { $0.key.count > $1.key.count }) {
            try #require(script.contains(hosted), "recipe \(name) no longer has \(hosted)")
            script = script.replacingOccurrences(of: hosted, with: local)
        }
        let command = script
        var inherited = ProcessInfo.processInfo.environment
        inherited["NOTES_TOKEN"] = nil
        inherited["NOTES_URL"] = nil
        inherited["PATH"] = Run.binary.deletingLastPathComponent().path + ":" + (inherited["PATH"] ?? "/usr/bin:/bin")
        let variables = inherited.merging(environment) { $1 }
        let directory = scratch.url
        return try await offPool {
            try Finished(
                URL(fileURLWithPath: "/bin/sh"), ["-e", "-c", command], directory: directory, environment: variables,
                patience: 300)
        }
    }

    /// The lines `sqlite3 FILE SQL` prints, `FILE` in `scratch`.
    static func sqlite(_ scratch: Scratch, _ file: String, _ sql: String) async throws -> [String] {
        let database = scratch.path(file)
        return try await offPool { try SQLiteShell.query(database, sql) }.split(separator: "\n").map(String.init)
    }

    /// The `id` of each line of NDJSON, as text (an integer's digits, or the string); `nil` for a line
    /// without one.
    static func ids(ofNDJSON text: String) -> [String?] {
        text.split(separator: "\n").map { line in
            let id = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
            return (id as? String) ?? (id as? Int).map(String.init)
        }
    }

    /// Expects `written` to be `expected`: each once, in order; says what differs, not every id.
    static func expectEachOnce(
        _ written: [String?], expected: [String], context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ids = written.compactMap { $0 }
        #expect(ids.count == written.count, "\(context): lines without an id", sourceLocation: sourceLocation)
        guard ids != expected else { return }
        var seen = Set<String>()
        let twice = ids.filter { !seen.insert($0).inserted }
        let missing = expected.filter { !seen.contains($0) }
        let difference =
            "\(context): \(ids.count) written of \(expected.count); missing \(missing.count) "
            + "(\(missing.prefix(5))…), twice \(twice.count) (\(twice.prefix(5))…)"
        Issue.record(Comment(rawValue: difference), sourceLocation: sourceLocation)
    }
}
