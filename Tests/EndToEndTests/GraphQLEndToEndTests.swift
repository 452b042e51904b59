import Foundation
import TestSupport
import Testing

/// `notes-page fetch --graphql` against graphql-js (Debian's node-graphql, the reference implementation)
/// executing the fixture server's schema, and `--body-cursor` against its Notion-style query endpoint:
/// the same notes as every REST style, each once, in order.
@Suite(
    "GraphQL connections and POST body cursors against real servers",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct GraphQLEndToEndTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7"]

    static let edgesLast = """
        # pageInfo after the records: the next request waits for the page's end
        query Notes($after: String, $first: Int) {
          notes(first: $first, after: $after) {
            totalCount
            edges { cursor node { id title tags } }
            pageInfo { hasNextPage endCursor }
          }
        }
        """
    static let nodesFirst = """
        query($after: String) {
          viewer { login list: notes(first: 100, after: $after) { pageInfo { endCursor hasNextPage } nodes { id title } } }
        }
        """

    /// The ids the REST walk gives, in order.
    static func restIDs() async throws -> String {
        let server = try FixtureServer(notes + ["--quiet"])
        defer { server.stop() }
        return try await Run(["fetch", "--all", "--quiet", "--format", "ids", server.url]).stdout
    }

    /// The server's `/graphql` (or another path) for its first-line URL.
    static func at(_ server: FixtureServer, _ path: String) -> String {
        server.url.replacingOccurrences(of: "/notes", with: path)
    }

    static func posts(_ log: String, to path: String = "/graphql") -> [Substring] {
        log.split(separator: "\n").filter { $0.hasPrefix("POST \(path) ") }
    }

    func query(_ text: String, in scratch: Scratch) throws -> String {
        try scratch.append(text, to: "query.graphql")
        return scratch.path("query.graphql")
    }

    @Test(
        "Both connection shapes, both field orders, a nested path: every note once, in order; totalCount is the total")
    func walks() async throws {
        let expected = try await Self.restIDs()
        for (text, connection, variables) in [
            (Self.edgesLast, "data.notes", [#"--variables"#, #"{"first": 100}"#]),
            (Self.nodesFirst, "data.viewer.list", []),
        ] {
            let scratch = try Scratch()
            defer { scratch.remove() }
            // The last page streams slowly: a page asked for early past it would surely reach the server.
            let server = try FixtureServer(Self.notes + ["--fault", "drip:256/5@3"])
            let run = try await Run(
                [
                    "fetch", "--all", "--format", "ids", "--graphql", try query(text, in: scratch), "--connection",
                    connection,
                ]
                    + variables + [Self.at(server, "/graphql")])
            let log = server.stop()
            #expect(run.status == 0, "\(connection): \(run.stderr)")
            #expect(run.stdout == expected, "\(connection)")
            #expect(run.messages.hasPrefix("250 notes, 3 pages, "), "\(connection): \(run.stderr)")
            #expect(Self.posts(log).count == 3, "\(connection): one POST a page, none past the last: \(log)")
        }
    }

    @Test("Records are the nodes' exact JSON; ids and titles read at paths relative to the node")
    func records() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(["--count", "3", "--page-size", "3", "--seed", "7", "--quiet"])
        defer { server.stop() }
        let text =
            "query($after: String) { notes(first: 2, after: $after) { edges { node { id title } } pageInfo { hasNextPage endCursor } } }"
        let run = try await Run(
            [
                "fetch", "--all", "--quiet", "--graphql", try query(text, in: scratch), "--connection", "data.notes",
                Self.at(server, "/graphql"),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first == #"{"id":"n0","title":"😀 pair 0"}"#)
    }

    @Test("What the walk cannot follow is a usage error before any request: a mutation, no $after, no such connection")
    func refusedBeforeAnyRequest() async throws {
        let cases = [
            ("mutation($after: String) { deleteNote(id: $after) }", "data.deleteNote", "only queries are walked"),
            (
                "query { notes(first: 10) { nodes { id } pageInfo { hasNextPage endCursor } } }", "data.notes",
                "declares no $after"
            ),
            (Self.edgesLast, "data.viewer.notes", "asks for no 'viewer'"),
            (
                "query($after: String) { notes(first: 10) { nodes { id } pageInfo { hasNextPage endCursor } } }",
                "data.notes", "does not take $after"
            ),
        ]
        for (text, connection, message) in cases {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let server = try FixtureServer(Self.notes)
            let run = try await Run(
                [
                    "fetch", "--all", "--graphql", try query(text, in: scratch), "--connection", connection,
                    Self.at(server, "/graphql"),
                ])
            let log = server.stop()
            #expect(run.status == 64, "\(message): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(Self.posts(log).isEmpty, "nothing was sent: \(log)")
        }
    }

    @Test("Errors in a 200 are exit 65 with the server's message and path; a repeated endCursor is a cycle")
    func errors() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = try query(Self.edgesLast, in: scratch)
        for (fault, pattern) in [
            (
                "graphql-error@2",
                #"page 2 .*: the server answered with errors: "Something went wrong while executing your query\." at notes"#
            ),
            ("graphql-cycle@2", "page 2 .*cycle"),
        ] {
            let server = try FixtureServer(Self.notes + ["--fault", fault])
            let run = try await Run(
                [
                    "fetch", "--all", "--format", "ids", "--graphql", file, "--connection", "data.notes", "--variables",
                    #"{"first": 100}"#, Self.at(server, "/graphql"),
                ])
            server.stop()
            #expect(run.status == 65, "\(fault): \(run.stderr)")
            #expect(run.stderr.firstMatch(of: try Regex(pattern)) != nil, "\(fault): \(run.stderr)")
        }
        // The first page's ids stay written: a failure loses no committed page.
    }

    @Test("GitHub's RATE_LIMITED in a 200 is waited out until the reset, then the walk goes on")
    func rateLimited() async throws {
        let expected = try await Self.restIDs()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(Self.notes + ["--fault", "graphql-ratelimit@2"])
        let run = try await Run(
            [
                "fetch", "--all", "--format", "ids", "--graphql", try query(Self.edgesLast, in: scratch),
                "--connection",
                "data.notes", "--variables", #"{"first": 100}"#, Self.at(server, "/graphql"),
            ])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected)
        #expect(Self.posts(log).count == 4, "page 2 twice: \(log)")
    }

    @Test("A walk stopped after a page resumes from its endCursor: page 1 is not asked again")
    func resumes() async throws {
        let expected = try await Self.restIDs()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = try query(Self.edgesLast, in: scratch)
        let arguments = [
            "fetch", "--all", "--quiet", "--format", "ids", "--graphql", file, "--connection", "data.notes",
            "--variables", #"{"first": 100}"#, "-o", scratch.path("out"), "--state", scratch.path("state"),
        ]
        let server = try FixtureServer(Self.notes)
        let first = try await Run(arguments + ["--max-pages", "1", Self.at(server, "/graphql")])
        let second = try await Run(arguments + [Self.at(server, "/graphql")])
        let log = server.stop()
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        #expect(try scratch.read("out") == expected)
        let posts = Self.posts(log)
        #expect(posts.count == 3, "\(log)")
        #expect(posts.filter { $0.contains(#""after":null"#) }.count == 1, "the first page once: \(log)")
    }

    @Test("A cursor in a POST body (Notion's start_cursor, next_cursor, has_more): every note once")
    func notion() async throws {
        let expected = try await Self.restIDs()
        let server = try FixtureServer(Self.notes)
        let run = try await Run(
            [
                "fetch", "--all", "--format", "ids", "--method", "POST", "--body", #"{"page_size": 100}"#,
                "--body-cursor",
                "start_cursor", "--has-more-path", "has_more", Self.at(server, "/v1/databases/notes/query"),
            ])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected)
        #expect(Self.posts(log, to: "/v1/databases/notes/query").count == 3, "\(log)")
    }

    @Test("A POST body cursor's 500 is not sent again (exit 69 saying why); --retry-post sends it again")
    func postNotResent() async throws {
        let arguments = [
            "fetch", "--all", "--quiet", "--format", "ids", "--method", "POST", "--body", #"{"page_size": 100}"#,
            "--body-cursor", "start_cursor", "--has-more-path", "has_more",
        ]
        let server = try FixtureServer(Self.notes + ["--fault", "500@2x1"])
        let refused = try await Run(arguments + [Self.at(server, "/v1/databases/notes/query")])
        server.stop()
        let again = try FixtureServer(Self.notes + ["--fault", "500@2x1"])
        let retried = try await Run(arguments + ["--retry-post", Self.at(again, "/v1/databases/notes/query")])
        again.stop()
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "not sent again: the server may have acted on the POST (--retry-post if it is safe)"))
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.split(separator: "\n").count == 250)
    }

    /// When each POST to /graphql arrived and ended, in the server's milliseconds, from its log lines
    /// (`… 148.7ms … t=705`).
    static func spans(_ log: String) -> [(arrived: Double, ended: Double)] {
        posts(log).compactMap { line in
            let words = line.split(separator: " ")
            guard let ms = words.first(where: { $0.hasSuffix("ms") }).flatMap({ Double($0.dropLast(2)) }),
                let t = words.first(where: { $0.hasPrefix("t=") }).flatMap({ Double($0.dropFirst(2)) })
            else { return nil }
            return (t, t + ms)
        }
    }

    @Test("With pageInfo before the records, the next page is asked for while the page streams; after them, not")
    func earlyRequest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try query(Self.nodesFirst, in: scratch)
        try scratch.append(Self.edgesLast, to: "last.graphql")
        for (file, connection, early) in [
            (first, "data.viewer.list", true), (scratch.path("last.graphql"), "data.notes", false),
        ] {
            let server = try FixtureServer(Self.notes + ["--fault", "drip:512/30@1"])
            let run = try await Run(
                [
                    "fetch", "--all", "--quiet", "--format", "ids", "--graphql", file, "--connection", connection,
                    "--variables", connection == "data.notes" ? #"{"first": 100}"# : "{}", Self.at(server, "/graphql"),
                ])
            let log = server.stop()
            #expect(run.status == 0, "\(run.stderr)")
            let spans = Self.spans(log)
            #expect(spans.count == 3, "\(log)")
            guard spans.count == 3 else { continue }
            if early {
                #expect(spans[1].arrived < spans[0].ended, "page 2 asked for while page 1 streamed: \(log)")
            } else {
                #expect(spans[1].arrived >= spans[0].ended - 1, "page 2 asked for after page 1 ended: \(log)")
            }
        }
    }
}
