import Foundation
import TestSupport
import Testing

/// The same tree kept with `-o DIR`: a file per resource, and for a child resource a file per parent's walk.
extension SyncTreeEndToEndTests {
    /// ``source(_:in:)`` without `include-from-parent` (columns of a table; a file's notes are as served).
    static func fileSource(_ server: FixtureServer, in scratch: Scratch) throws -> String {
        let path = try source(server, in: scratch)
        let text = try Files.text(path).split(separator: "\n").filter { !$0.contains("include-from-parent") }
        try Files.write(text.joined(separator: "\n") + "\n", to: scratch.path("files.yaml"))
        return scratch.path("files.yaml")
    }

    /// Every NDJSON file under `directory`, by its path there, with what it holds.
    static func lines(under directory: String) throws -> [String: String] {
        var found: [String: String] = [:]
        let names = FileManager.default.subpaths(atPath: directory) ?? []
        for name in names where name.hasSuffix(".ndjson") {
            found[name] = try Files.text(directory + "/" + name)
        }
        return found
    }

    /// The JSON objects of NDJSON `text`, one a line.
    static func objects(_ text: String?) throws -> [[String: Any]] {
        try (text ?? "").split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(
        "-o DIR: three levels in files, one per parent's walk; killed ten times and resumed: the lines of a run never killed, every record once"
    )
    func killedIntoFiles() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 120, in: scratch, checksToken: false)
        defer { server.stop() }
        let source = try Self.fileSource(server, in: scratch)
        let clean = try await Run(["sync", source, "-o", scratch.path("clean"), "--parallel", "2", "--quiet"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let directory = scratch.path("out")
        let arguments = ["sync", source, "-o", directory, "--parallel", "2", "--quiet"]
        let (finished, kills, replay) = try KillLoop.run(arguments, rounds: 12, delays: 30_000...300_000)
        if !finished {
            let run = try await Run(arguments)
            #expect(run.status == 0, "\(replay): \(run.stderr)")
        }
        #expect(kills.count >= 10, "\(replay)")
        let files = try Self.lines(under: directory)
        #expect(files == (try Self.lines(under: scratch.path("clean"))), "\(replay)")

        // Every record once, each under its parent, as the server's own counts say.
        let repos = try Self.objects(files["repos.ndjson"])
        #expect(Set(repos.compactMap { $0["id"] as? Int }).count == 120)
        var issues: [Int] = []
        for repo in repos {
            let id = try #require(repo["id"] as? Int)
            for issue in try Self.objects(files["issues/\(id).ndjson"]) {
                let number = try #require(issue["id"] as? Int)
                issues.append(number)
                let comments = try Self.objects(files["comments/\(id)%2F\(number).ndjson"])
                #expect(comments.count == issue["comments"] as? Int, "\(replay): issue \(number)")
                #expect(comments.allSatisfy { ($0["issue_url"] as? String)?.hasSuffix("/\(issue["number"]!)") == true })
            }
        }
        #expect(Set(issues).count == issues.count && issues.max() == 1_000_000 + issues.count, "\(replay)")

        // Run again: every walk is done, and nothing is asked but the top resource's check.
        let again = try await Run(arguments.filter { $0 != "--quiet" })
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.lines(under: directory) == files)
        #expect(again.stderr.contains("  comments  complete           0 walks"), "\(again.stderr)")
    }

    @Test("-o DIR refuses include-from-parent, which adds columns to a table, before any request")
    func filesRefuseIncludes() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try Self.server(repos: 2, in: scratch)
        let source = try Self.source(server, in: scratch)
        let run = try await Run(["sync", source, "-o", scratch.path("out")])
        let log = server.stop()
        #expect(run.status == 64)
        #expect(
            run.stderr.hasPrefix(
                "Error: \(source):11:5: resource 'issues': include-from-parent adds columns to a table (--sqlite FILE or --postgres URL); with -o DIR each parent's notes are in a file named by its key"
            ), "\(run.stderr)")
        #expect(!log.contains("GET"), "\(log)")
    }
}
