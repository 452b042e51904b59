import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// Repositories, their issues and the issues' comments, in memory: `/repos` (`?since=T` keeps those
/// updated at or after T), `/repos/NAME/issues` in two pages, and each issue's `comments_url`.
final class TreeAPI: Sendable {
    static let origin = "http://127.0.0.1:9"

    struct Repo: Sendable {
        var id: Int
        var name: String?
        var updatedAt: String
    }

    let repos: Mutex<[Repo]>
    /// Comments URLs that answer 500.
    let broken = Mutex<Set<String>>([])

    init(names: [String?]) {
        repos = Mutex(
            names.enumerated().map {
                Repo(id: $0.offset + 1, name: $0.element, updatedAt: "2026-11-0\($0.offset + 1)T00:00:00Z")
            })
    }

    static func page(_ items: [String], next: String?) -> MemoryTransport.Response {
        .json(#"{"notes":[\#(items.joined(separator: ","))],"next_cursor":\#(next.map { "\"\($0)\"" } ?? "null")}"#)
    }

    func transport() -> MemoryTransport {
        MemoryTransport { [self] request, _ in
            guard let components = URLComponents(string: request.url) else { return .status(400) }
            let path = components.percentEncodedPath
            let query = components.queryItems ?? []
            if path == "/repos" {
                let since = query.first { $0.name == "since" }?.value ?? ""
                let items = repos.withLock { $0 }.filter { $0.updatedAt >= since }.map { repo in
                    let name = repo.name.map { #","name":"\#($0.replacing("\"", with: "\\\""))""# } ?? ""
                    return #"{"id":\#(repo.id),"title":"repo \#(repo.id)"\#(name),"updated_at":"\#(repo.updatedAt)"}"#
                }
                return Self.page(items, next: nil)
            }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.count == 4, parts[1] == "repos", parts[3] == "issues" {
                let repo = parts[2]
                let second = query.contains { $0.name == "cursor" && $0.value == "2" }
                let number = second ? 2 : 1
                let issue =
                    #"{"id":"\#(repo)-i\#(number)","title":"issue \#(number)","comments_url":"\#(Self.origin)/comments/\#(repo)-i\#(number)"}"#
                return Self.page([issue], next: second ? nil : "2")
            }
            if parts.count == 3, parts[1] == "comments" {
                if broken.withLock({ $0.contains(request.url) }) { return .status(500) }
                let issue = parts[2]
                return Self.page(
                    (1...2).map { #"{"id":"\#(issue)-c\#($0)","title":"comment \#($0)"}"# }, next: nil)
            }
            return .status(404)
        }
    }

    /// Sets repository `id`'s `updated_at`.
    func touch(_ id: Int, at time: String) {
        repos.withLock { repos in
            for index in repos.indices where repos[index].id == id { repos[index].updatedAt = time }
        }
    }
}

/// `sync` of a source whose resources have parents, in process: each child walked once for each parent,
/// only for the parents written since, each walk resumable on its own.
@Suite("sync's child resources, in process")
struct SyncChildrenTests {
    static let source = """
        base-url: \(TreeAPI.origin)
        defaults:
          retries: 0
        resources:
          - name: repos
            path: repos
            since-path: updated_at
            since-param: since
          - name: issues
            parent: repos
            path: repos/{parent.name}/issues
            include-from-parent: [id]
          - name: comments
            parent: issues
            path: "{parent.comments_url}"
            include-from-parent: [id, title]
        """

    /// `sync` of `source` with `arguments` after it, through `transport`; its exit status and standard error.
    /// The clock stands still; each wait asked for is added to `sleeps`.
    static func sync(
        _ source: String = source, in scratch: Scratch, _ arguments: [String] = [], transport: MemoryTransport,
        sleeps: Sleeps = Sleeps()
    ) async throws -> (status: ArgumentParsing.ExitStatus, stderr: String) {
        try await runSync(source, in: scratch, arguments, transport: transport, sleeps: sleeps)
    }

    static func paths(_ transport: MemoryTransport, from start: Int = 0) -> [String] {
        transport.requests.dropFirst(start).map { String($0.url.dropFirst(TreeAPI.origin.count)) }
    }

    @Test("Three levels: each child walked once per parent, a parent's field one path segment, rows joined to parents")
    func threeLevels() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = TreeAPI(names: ["a", "b/../x", "c"])
        let transport = api.transport()
        let run = try await Self.sync(in: scratch, transport: transport)
        #expect(run.status == .success, "\(run.stderr)")
        let paths = Self.paths(transport)
        #expect(paths.count == 13)  // repos, two pages of issues for each of 3 repos, 6 issues' comments
        #expect(paths.contains("/repos/b%2F..%2Fx/issues?cursor=2"), "\(paths)")
        #expect(Set(paths).count == paths.count)
        let database = scratch.path("api.db")
        #expect(try SQLiteShell.query(database, "SELECT count(*) FROM issues") == "6\n")
        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM comments") == "12|12\n")
        // Every comment's row names its issue's row, and its issue's id and title.
        #expect(
            try SQLiteShell.query(
                database,
                """
                SELECT count(*) FROM comments c JOIN issues i ON c.parent_id = i.id
                WHERE c.parent = i.parent || '/' || replace(replace(i.id, '%', '%25'), '/', '%2F')
                AND c.parent_title = i.title AND c.id LIKE i.id || '-c_'
                """) == "12\n")
        #expect(try SQLiteShell.query(database, "SELECT DISTINCT parent_id FROM issues WHERE parent = '2'") == "2\n")
        #expect(
            syncSummary(run.stderr) == [
                "Sync: 3 of 3 resources complete", "  repos     complete           1 page, 3 notes, S s",
                "  issues    complete           3 walks, 6 pages, 6 notes, S s",
                "  comments  complete           6 walks, 6 pages, 12 notes, S s",
            ], "\(run.stderr)")
        #expect(run.stderr.contains("[comments 1/a-i1] 2 notes, 1 page, "), "\(run.stderr)")
        // How a resource paginates is said once, by its first walk (of one page, repos and comments say nothing).
        #expect(
            run.stderr.split(separator: "\n").filter { $0.contains("Pagination: auto follows") } == [
                "[issues 1] Pagination: auto follows the body's 'next_cursor', a cursor sent as ?cursor="
            ])
    }

    @Test("Run again: only the parents that changed have their children walked; --full walks them all")
    func changedOnly() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = TreeAPI(names: ["a", "b", "c"])
        let transport = api.transport()
        #expect(try await Self.sync(in: scratch, transport: transport).status == .success)
        let first = transport.requests.count
        api.touch(2, at: "2026-11-20T00:00:00Z")
        let again = try await Self.sync(in: scratch, transport: transport)
        #expect(again.status == .success, "\(again.stderr)")
        // Repos since the newest updated_at: c's (the newest before, unchanged) and b's (changed). b's
        // issues and their comments again; c's and a's nothing.
        #expect(
            Set(Self.paths(transport, from: first)) == [
                "/repos?since=2026-11-03T00%3A00%3A00Z", "/repos/b/issues", "/repos/b/issues?cursor=2",
                "/comments/b-i1", "/comments/b-i2",
            ])
        let database = scratch.path("api.db")
        #expect(try SQLiteShell.query(database, "SELECT parent, max(run) FROM issues GROUP BY 1") == "1|1\n2|2\n3|1\n")

        let untouched = transport.requests.count
        #expect(try await Self.sync(in: scratch, transport: transport).status == .success)
        // b alone is at the newest updated_at, written again unchanged: its children are left as they are.
        #expect(Self.paths(transport, from: untouched) == ["/repos?since=2026-11-20T00%3A00%3A00Z"])
        let full = transport.requests.count
        #expect(try await Self.sync(in: scratch, ["--full"], transport: transport).status == .success)
        #expect(Self.paths(transport, from: full).count == 13)
        #expect(
            try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT parent || id) FROM comments") == "12|12\n")
    }

    @Test("Walks of one origin, parallel or not, keep one --rate between them")
    func oneRate() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let sleeps = Sleeps()
        let source = Self.source.replacing("defaults:\n  retries: 0\n", with: "defaults:\n  retries: 0\n  rate: 10\n")
        let run = try await Self.sync(
            source, in: scratch, ["--parallel", "4"], transport: TreeAPI(names: ["a", "b", "c"]).transport(),
            sleeps: sleeps)
        #expect(run.status == .success, "\(run.stderr)")
        // The clock stands still: the 13 requests of 10 walks are let through 0.1 s apart, the last after 1.2 s.
        let waits = sleeps.seconds.withLock { $0 }.sorted()
        #expect(waits.count == 12 && abs((waits.last ?? 0) - 1.2) < 1e-9, "\(waits)")
    }

    @Test("Two children of a parent not walked in the run: each child's walks once")
    func twoChildrenOfParentLeftOut() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let transport = TreeAPI(names: ["a", "b"]).transport()
        let source = Self.source + "\n  - name: again\n    parent: repos\n    path: repos/{parent.name}/issues\n"
        #expect(try await Self.sync(source, in: scratch, transport: transport).status == .success)
        let first = transport.requests.count
        let run = try await Self.sync(
            source, in: scratch, ["--resources", "issues,again", "--full"], transport: transport)
        #expect(run.status == .success, "\(run.stderr)")
        // Two pages of issues for each of 2 repos, for each of the two resources.
        let paths = Self.paths(transport, from: first)
        #expect(paths.count == 8 && Set(paths).count == 4, "\(paths)")
    }

    @Test("A parent walked whole each run (not incremental) has every child walked again, changed or not")
    func wholeParent() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let transport = TreeAPI(names: ["a", "b"]).transport()
        let source = Self.source.replacing("    since-path: updated_at\n    since-param: since\n", with: "")
        #expect(try await Self.sync(source, in: scratch, transport: transport).status == .success)
        let first = transport.requests.count
        #expect(first == 1 + 2 * 2 + 4)
        #expect(try await Self.sync(source, in: scratch, transport: transport).status == .success)
        #expect(Self.paths(transport, from: first) == Self.paths(transport).prefix(first).map { $0 })
    }

    @Test("A parent without the field a placeholder reads: an error naming it, no request for it, the others walked")
    func missingField() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = TreeAPI(names: ["a", nil, "c"])
        let transport = api.transport()
        let run = try await Self.sync(in: scratch, transport: transport)
        #expect(run.status == .dataError)
        #expect(
            run.stderr.contains(
                "[issues] Error: resource 'repos' record 2: field name is missing; no request was made for its issues\n"
            ),
            "\(run.stderr)")
        #expect(!Self.paths(transport).contains { $0.contains("None") || $0.contains("//") || $0.contains("null") })
        #expect(Self.paths(transport).count == 9)
        #expect(
            syncSummary(run.stderr).dropFirst(2) == [
                "  issues    failed (exit 65)   2 walks, 4 pages, 4 notes, S s",
                "  comments  complete           4 walks, 4 pages, 8 notes, S s",
            ], "\(run.stderr)")
    }

    @Test("A child walk that fails is walked again by the next run, alone: nothing committed is asked again")
    func failedWalkAgain() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = TreeAPI(names: ["a", "b"])
        api.broken.withLock { $0 = ["\(TreeAPI.origin)/comments/b-i2"] }
        let transport = api.transport()
        let run = try await Self.sync(in: scratch, transport: transport)
        #expect(run.status == .unavailable, "\(run.stderr)")
        #expect(run.stderr.contains("[comments 2/b-i2] Error: "), "\(run.stderr)")
        #expect(
            syncSummary(run.stderr).last == "  comments  failed (exit 69)   4 walks (1 failed), 3 pages, 6 notes, S s")
        api.broken.withLock { $0 = [] }
        let first = transport.requests.count
        let again = try await Self.sync(in: scratch, transport: transport)
        #expect(again.status == .success, "\(again.stderr)")
        // The failed walk alone: the repos are not walked again while a child of theirs is unfinished.
        #expect(Self.paths(transport, from: first) == ["/comments/b-i2"])
        #expect(try SQLiteShell.query(scratch.path("api.db"), "SELECT count(*) FROM comments") == "8\n")
        #expect(
            syncSummary(again.stderr) == [
                "Sync: 3 of 3 resources complete",
                "  repos     complete           as walked before: its children's unfinished walks first",
                "  issues    complete           0 walks, 0 pages, 0 notes, S s",
                "  comments  complete           1 walk, 1 page, 2 notes, S s",
            ], "\(again.stderr)")
    }

    @Test(
        "Refused before any request: a parent not listed before its child, a placeholder where none is taken, a parent's columns into files"
    )
    func refusals() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let transport = TreeAPI(names: ["a"]).transport()
        func error(_ source: String, _ arguments: [String] = []) async -> String? {
            do {
                _ = try await Self.sync(source, in: scratch, arguments, transport: transport)
                return nil
            } catch {
                return (error as? UsageError)?.message ?? "\(error)"
            }
        }
        let misplaced =
            "resources:\n  - name: issues\n    parent: repo\n    path: x/{parent.id}\n  - name: repo\n    path: http://127.0.0.1:9/r\n"
        #expect(
            await error(misplaced)?.hasSuffix(
                "api.yaml:3:13: resource 'issues': its parent 'repo' is not a resource listed before it") == true)
        let typo =
            "resources:\n  - name: repos\n    path: http://127.0.0.1:9/r\n  - name: issues\n    parent: repo\n    path: x\n"
        #expect(
            await error(typo)?.hasSuffix("its parent 'repo' is not a resource listed before it (did you mean 'repos'?)")
                == true)
        let orphan = "resources:\n  - name: issues\n    path: http://127.0.0.1:9/x/{parent.id}\n"
        #expect(await error(orphan)?.contains("has no 'parent', and 'path' has a {parent.…} placeholder") == true)
        let option = Self.source + "\n    since-param: \"{parent.id}\"\n"
        let optionError = await error(option)
        #expect(
            optionError?.contains(
                "'since-param' takes no {parent.…} placeholder (the path, header, body and variables do)")
                == true, "\(String(describing: optionError))")
        let open = Self.source.replacing("{parent.comments_url}", with: "{parent.comments_url")
        #expect(await error(open)?.contains("resource 'comments': '{parent.' with no '}'") == true)
        try Files.write(Self.source, to: scratch.path("api.yaml"))
        let directory = try ParsedArguments(
            [scratch.path("api.yaml"), "-o", scratch.path("out")], spec: SyncCommand.spec)
        #expect {
            try SyncCommand(directory, environment: [:])
        } throws: { error in
            (error as? UsageError)?.message.hasSuffix(
                "api.yaml:9:5: resource 'issues': include-from-parent adds columns to a table (--sqlite FILE or --postgres URL); with -o DIR each parent's notes are in a file named by its key"
            )
                == true
        }
        // Into files: a parent whose lines are not its records, and --full, which files cannot do.
        let plain = Self.source.split(separator: "\n").filter { !$0.contains("include-from-parent") }
            .joined(separator: "\n")
        try Files.write(
            plain.replacing("    path: repos\n", with: "    path: repos\n    format: ids\n"),
            to: scratch.path("api.yaml"))
        #expect {
            try SyncCommand(directory, environment: [:])
        } throws: { error in
            (error as? UsageError)?.message
                == "resource 'repos' has children ('issues'): with -o DIR its records are their parents, so its format is ndjson, not ids"
        }
        try Files.write(plain, to: scratch.path("api.yaml"))
        let full = try ParsedArguments(
            [scratch.path("api.yaml"), "-o", scratch.path("out"), "--full"], spec: SyncCommand.spec)
        #expect {
            try SyncCommand(full, environment: [:])
        } throws: { error in
            (error as? UsageError)?.message
                == "--full walks again into tables (--sqlite, --postgres); files (-o DIR) are a copy that resumes: remove DIR to start over"
        }
        #expect(transport.requests.isEmpty)
    }
}
