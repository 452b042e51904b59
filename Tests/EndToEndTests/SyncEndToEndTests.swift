import Foundation
import TestSupport
import Testing

/// `notes-page sync`: a source file's resources walked from fixture servers into one SQLite file (a table
/// each) or a directory (a file each), and the source's mistakes refused before any request.
@Suite(
    "notes-page sync against the fixture server",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct SyncEndToEndTests {
    /// Two servers of different notes: `projects` (300 in pages of 50) and `notes` (1,000 in pages of 100).
    static func servers() throws -> (projects: FixtureServer, notes: FixtureServer) {
        (
            try FixtureServer(["--count", "300", "--page-size", "50", "--seed", "3"]),
            try FixtureServer(["--count", "1000", "--page-size", "100", "--seed", "7"])
        )
    }

    /// A source over the two servers: `projects` by a path relative to the base URL, `notes` by its URL.
    static func source(projects: FixtureServer, notes: FixtureServer, extra: String = "") -> String {
        let base = projects.url.replacingOccurrences(of: "/notes", with: "/")
        return """
            base-url: \(base)
            defaults:
              retries: 2
            resources:
              - name: projects
                path: notes
              - name: notes
                path: \(notes.url)
                max-page-notes: 500
            \(extra)
            """
    }

    /// The rows and distinct ids of `table`.
    static func count(_ database: String, _ table: String) throws -> String {
        try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM \(table)")
    }

    @Test("Every resource into its own table of one SQLite file, every record once; run again: each refreshed whole")
    func sqlite() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (projects, notes) = try Self.servers()
        try Files.write(Self.source(projects: projects, notes: notes), to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let run = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", database])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.count(database, "projects") == "300|300\n")
        #expect(try Self.count(database, "notes") == "1000|1000\n")
        #expect(run.stderr.contains("Resource 'projects': \(projects.url)\n"), "\(run.stderr)")
        #expect(
            syncSummary(run.stderr) == [
                "Sync: 2 of 2 resources complete", "  projects  complete           6 pages, 300 notes, S s",
                "  notes     complete           10 pages, 1000 notes, S s",
            ], "\(run.stderr)")
        let again = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", database])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("\n300 notes, 6 pages, "), "\(again.stderr)")
        #expect(again.stderr.contains("\n1000 notes, 10 pages, "), "\(again.stderr)")
        #expect(try Self.count(database, "projects") == "300|300\n")
        #expect(try Self.count(database, "notes") == "1000|1000\n")
        _ = projects.stop()
        _ = notes.stop()
    }

    @Test("A base URL is a folder, with or without its last slash; a path's first slash is dropped")
    func baseURL() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(["--count", "100", "--page-size", "50"])
        defer { server.stop() }
        // The fixture serves /notes: a base of the origin with no slash, and a path with one.
        let origin = server.url.replacingOccurrences(of: "/notes", with: "")
        try Files.write(
            "base-url: \(origin)\nresources:\n  - name: notes\n    path: /notes\n", to: scratch.path("api.yaml"))
        let run = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", scratch.path("api.db")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Resource 'notes': \(origin)/notes\n"), "\(run.stderr)")
        let none = try await Run([
            "sync", scratch.path("api.yaml"), "--sqlite", scratch.path("api.db"), "--resources", ",",
        ])
        #expect(none.status == 64 && none.stderr.contains("--resources names no resource"), "\(none.stderr)")
    }

    @Test("-o DIR: a file each, with its state; --resources picks some, in the source's order")
    func directory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (projects, notes) = try Self.servers()
        defer {
            projects.stop()
            notes.stop()
        }
        try Files.write(Self.source(projects: projects, notes: notes), to: scratch.path("api.yaml"))
        let run = try await Run(["sync", scratch.path("api.yaml"), "-o", scratch.path("out"), "--resources", "notes"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try scratch.read("out/notes.ndjson").split(separator: "\n")
        #expect(lines.count == 1000)
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/notes.state")))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/projects.ndjson")))
    }

    @Test(
        "A mistake in a resource's options is a usage error naming the file, line and column, before any request",
        arguments: [
            (
                "    max-page: 3",
                "api.yaml:10:5: unknown key 'max-page' in resource 'notes' (did you mean 'max-pages'?)"
            ),
            ("    no-title: yes", "api.yaml:10:5: 'no-title' is a flag: true or false, not 'yes'"),
            ("    sqlite: other.db", "api.yaml:10:5: 'sqlite' is set by sync for each resource, not by the source"),
            ("    max-pages: [1, 2]", "api.yaml:10:5: 'max-pages' takes a value, not a list"),
            (
                "    max-pages: 0",
                "api.yaml:10:16: resource 'notes': Invalid value '0' for '--max-pages': expected an integer of at least 1"
            ),
            ("    header: \"X-Api-Key ${HOME}\"", "api.yaml:10:13: a header is 'Name: value'"),
            (
                "    header: \"Authorization: Bearer abc${HOME}\"",
                "api.yaml:10:13: header 'Authorization' carries a secret written in the source"
            ),
        ])
    func mistakes(_ line: String, _ message: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (projects, notes) = try Self.servers()
        try Files.write(Self.source(projects: projects, notes: notes, extra: line), to: scratch.path("api.yaml"))
        let run = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", scratch.path("api.db")])
        let logs = projects.stop() + notes.stop()
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: \(scratch.path("api.yaml")):"), "\(run.stderr)")
        #expect(run.stderr.contains(message.dropFirst("api.yaml".count)), "\(run.stderr)")
        #expect(!logs.contains("GET /"), "\(logs)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("api.db")))
    }

    @Test("A token written in the source is refused without being printed; one from the environment is sent")
    func token() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(
            ["--count", "100", "--page-size", "50", "--fault", "auth"],
            environment: ["NOTES_SERVER_TOKEN": "s3cret-token"])
        defer { server.stop() }
        let inline =
            "auth:\n  type: bearer\n  token: s3cret-token\nresources:\n  - name: notes\n    path: \(server.url)\n"
        try Files.write(inline, to: scratch.path("inline.yaml"))
        let refused = try await Run(["sync", scratch.path("inline.yaml"), "--sqlite", scratch.path("a.db")])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("inline.yaml:3:10: the token is written in the source"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("s3cret") && !refused.stdout.contains("s3cret"))
        let fromEnvironment = inline.replacingOccurrences(of: "token: s3cret-token", with: "token: ${API_TOKEN}")
        try Files.write(fromEnvironment, to: scratch.path("api.yaml"))
        let unset = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", scratch.path("a.db")])
        #expect(
            unset.status == 64 && unset.stderr.contains("the token's variable API_TOKEN is not set"), "\(unset.stderr)")
        let run = try await Run(
            ["sync", scratch.path("api.yaml"), "--sqlite", scratch.path("a.db")],
            environment: ["API_TOKEN": "s3cret-token"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.count(scratch.path("a.db"), "notes") == "100|100\n")
        #expect(!run.stderr.contains("s3cret"))

        // A header that carries a secret takes it from the environment too, never from the source.
        let header =
            "resources:\n  - name: notes\n    path: \(server.url)\n    header: \"Authorization: Bearer s3cret-token\"\n"
        try Files.write(header, to: scratch.path("header.yaml"))
        let written = try await Run(["sync", scratch.path("header.yaml"), "--sqlite", scratch.path("b.db")])
        #expect(written.status == 64)
        #expect(
            written.stderr.contains("header.yaml:4:13: header 'Authorization' carries a secret written in the source"),
            "\(written.stderr)")
        #expect(!written.stderr.contains("s3cret"))
        try Files.write(
            header.replacingOccurrences(of: "Bearer s3cret-token", with: "Bearer ${API_TOKEN}"),
            to: scratch.path("header.yaml"))
        let sent = try await Run(
            ["sync", scratch.path("header.yaml"), "--sqlite", scratch.path("b.db")],
            environment: ["API_TOKEN": "s3cret-token"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try Self.count(scratch.path("b.db"), "notes") == "100|100\n")
    }

    @Test("SIGINT stops the resource being walked, keeping its committed pages; the same sync again goes on")
    func interrupt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Page 1 of projects arrives at once, page 2 drips: the signal lands while it does.
        let projects = try FixtureServer(["--count", "300", "--page-size", "100", "--fault", "drip:64/20@2x1"])
        let notes = try FixtureServer(["--count", "1000", "--page-size", "100", "--seed", "7"])
        defer {
            projects.stop()
            notes.stop()
        }
        try Files.write(Self.source(projects: projects, notes: notes), to: scratch.path("api.yaml"))
        let directory = scratch.path("out")
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["sync", scratch.path("api.yaml"), "-o", directory]
        let errors = Spawning.pipe()
        process.standardError = errors
        try Spawning.run(process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? Files.read(directory + "/projects.state"))?.isEmpty ?? true { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: directory + "/projects.state"), "page 1 never committed")
        kill(process.processIdentifier, SIGINT)
        let hang = waitOrKill(process, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        let stderr = PipeReader(errors).text()
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(
            stderr.contains(
                "Interrupted after 1 committed page (100 notes). Run the same sync again to go on: notes-page sync \(scratch.path("api.yaml")) -o \(directory)\n"
            ), "\(stderr)")
        #expect(
            syncSummary(stderr) == [
                "Sync: 0 of 2 resources complete", "  projects  failed (exit 130)  1 page, 100 notes, S s",
                "  notes     not run",
            ], "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/notes.ndjson"))

        let again = try await Run(["sync", scratch.path("api.yaml"), "-o", directory])
        #expect(again.status == 0, "\(again.stderr)")
        for (name, count) in [("projects", 300), ("notes", 1000)] {
            let ids = try Files.text(directory + "/\(name).ndjson").split(separator: "\n")
            #expect(ids.count == count && Set(ids).count == count, "\(name)")
        }
    }

    @Test("A resource that fails is said with its exit status; the others are walked; the sync exits with its status")
    func oneFails() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (projects, notes) = try Self.servers()
        // The projects at a port that refuses connections for the whole test: the server's own port, once
        // stopped, could go to another test's server before the second run.
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let base = projects.url.replacingOccurrences(of: "/notes", with: "/")
        let source = Self.source(projects: projects, notes: notes).replacingOccurrences(
            of: "base-url: \(base)", with: "base-url: \(refusing.baseURL)")
        _ = projects.stop()
        defer { notes.stop() }
        try Files.write(source, to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let run = try await Run(["sync", scratch.path("api.yaml"), "--sqlite", database])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(try Self.count(database, "notes") == "1000|1000\n")
        #expect(
            syncSummary(run.stderr) == [
                "Sync: 1 of 2 resources complete", "  projects  failed (exit 69)   0 pages, 0 notes, S s",
                "  notes     complete           10 pages, 1000 notes, S s",
            ], "\(run.stderr)")
        let failFast = try await Run([
            "sync", scratch.path("api.yaml"), "--sqlite", scratch.path("b.db"), "--fail-fast",
        ])
        #expect(failFast.status == 69)
        #expect(
            syncSummary(failFast.stderr) == [
                "Sync: 0 of 2 resources complete", "  projects  failed (exit 69)   0 pages, 0 notes, S s",
                "  notes     not run",
            ], "\(failFast.stderr)")
    }
}
