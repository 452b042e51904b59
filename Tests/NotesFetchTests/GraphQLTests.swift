import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

/// Reading a query far enough to walk one connection of it, before any request.
@Suite("GraphQL queries: what a walk needs, checked before it starts")
struct GraphQLQueryTests {
    let issues = FieldPath("data.repository.issues")

    func problem(_ text: String, connection: String = "data.repository.issues", variable: String = "after")
        -> String?
    {
        do {
            _ = try GraphQLQuery(text, connection: FieldPath(connection), cursorVariable: variable)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("A query with edges or nodes, pageInfo and totalCount, in either order, aliases and fragments")
    func shapes() throws {
        let edges = try GraphQLQuery(
            """
            # GitHub's issues, pageInfo last
            query Issues($owner: String!, $after: String) {
              repository(owner: $owner, name: "cli") {
                issues(first: 100, after: $after, orderBy: {field: CREATED_AT, direction: ASC}) {
                  totalCount
                  edges { cursor node { id title } }
                  pageInfo { hasNextPage endCursor }
                }
              }
            }
            """, connection: issues)
        #expect(edges.shape == .edges && edges.asksTotalCount && !edges.pageInfoFirst)
        let nodes = try GraphQLQuery(
            #"""
            query($after: String) { viewer { list: notes(first: 10, after: $after) @include(if: true) {
              pageInfo { endCursor, hasNextPage } nodes { ...Fields } } } }
            fragment Fields on Note { id title body(format: "\"md\"") }
            """#, connection: FieldPath("data.viewer.list"))
        #expect(nodes.shape == .nodes && !nodes.asksTotalCount && nodes.pageInfoFirst)
        let spread = try GraphQLQuery(
            """
            query Q($cursor: String) { ...Root }
            fragment Root on Query { notes(after: $cursor) { ... on NoteConnection { nodes { id } }
              pageInfo { ...Page } } }
            fragment Page on PageInfo { hasNextPage endCursor }
            """, connection: FieldPath("data.notes"), cursorVariable: "cursor")
        #expect(spread.shape == .nodes)
    }

    @Test("What cannot be walked is said before any request: kind, variable, connection, shape, pageInfo")
    func problems() {
        let good = "{ notes(after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }"
        #expect(problem("query($after: String) " + good, connection: "data.notes") == nil)
        #expect(problem("mutation($after: String) " + good, connection: "data.notes")?.contains("a mutation") == true)
        #expect(
            problem("subscription($after: String) " + good, connection: "data.notes")?.contains("only queries") == true)
        #expect(problem(good, connection: "data.notes")?.contains("declares no $after") == true)
        #expect(
            problem(
                "query($after: String) { notes(first: 5) { nodes { id } pageInfo { hasNextPage endCursor } } }",
                connection: "data.notes")?.contains("does not take $after") == true)
        #expect(
            problem("query($after: String) " + good, connection: "data.other")?.contains("asks for no 'other'") == true)
        #expect(problem("query($after: String) " + good, connection: "notes")?.contains("must start with data") == true)
        #expect(
            problem(
                "query($after: String) { notes(after: $after) { nodes { id } pageInfo { endCursor } } }",
                connection: "data.notes")?.contains("pageInfo { hasNextPage endCursor }") == true)
        #expect(
            problem(
                "query($after: String) { notes(after: $after) { totalCount pageInfo { hasNextPage endCursor } } }",
                connection: "data.notes")?.contains("neither edges") == true)
        #expect(
            problem(
                "query($after: String) { notes(after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } }",
                connection: "data.notes")?.contains("ask for no node") == true)
        #expect(
            problem("query($after: String) { notes(after: $after) { nodes { id }", connection: "data.notes")?
                .contains("line 1") == true)
        #expect(
            problem("query A($after: String) { a } query B { b }", connection: "data.a")?.contains("2 operations")
                == true)
    }

    @Test("Text that is not GraphQL is a problem with a line and column, never a crash")
    func garbage() {
        for text in [
            "", "{", "}", "query(", "\"", #"""""#, "{ a(b: \"", "query($after: ) {",
            String(repeating: "{a", count: 300),
            "\u{FEFF}{ x }", "fragment", "fragment F", "fragment F on", "...", "{ ... }", "{ @ }", "query Q @",
        ] {
            #expect(problem(text, connection: "data.a") != nil, "\(text.prefix(20))")
        }
    }
}

/// A connection walked over POST, from memory: bodies, records, the next cursor, errors in a 200.
@Suite("GraphQL connections: each page a POST, the records at the connection, errors in a 200")
struct GraphQLWalkTests {
    static let query = """
        query($after: String) { notes(first: 2, after: $after) { totalCount edges { node { id title } } \
        pageInfo { hasNextPage endCursor } } }
        """

    func pagination(variables: String? = nil) throws -> GraphQLPagination {
        try GraphQLPagination(
            query: GraphQLQuery(Self.query, connection: FieldPath("data.notes")), variables: variables)
    }

    /// A GraphQL server over `pages` (each a page's body for the cursor it is asked with), recording the
    /// requests' bodies.
    func server(_ pages: [String?: String]) -> MemoryTransport {
        MemoryTransport { request, _ in
            guard request.method == "POST", let body = request.body,
                request.headers.contains(HTTPHeader("Content-Type", "application/json")),
                let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                let variables = json["variables"] as? [String: Any]
            else { return .status(400) }
            let after = variables["after"] as? String
            return pages[after].map { .json($0) } ?? .status(404)
        }
    }

    func walk(_ transport: MemoryTransport, pagination: GraphQLPagination, sleeps: SleepLog = SleepLog()) async
        -> (ids: [String], error: FetchError?, totals: [Int?])
    {
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: "http://127.0.0.1:8080/graphql")!, pagination: pagination),
            transport: transport, environment: sleeps.environment())
        var ids: [String] = []
        var totals: [Int?] = []
        do {
            _ = try await fetcher.walk(from: .start, ids: IDSet(), visited: IDSet()) { page in
                ids += page.notes.map(\.id)
                totals.append(page.total)
            }
            return (ids, nil, totals)
        } catch {
            return (ids, error, totals)
        }
    }

    @Test("The body is the query and its variables with the cursor; null on the first page")
    func body() throws {
        let plain = try #require(try pagination().body(for: .start))
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
        #expect(sent["query"] as? String == Self.query)
        #expect((sent["variables"] as? [String: Any])?["after"] is NSNull)
        let withVariables = try #require(
            try pagination(variables: #" {"owner": "cli", "n": 12345678901234567890} "#).body(for: .cursor("Y3Vy\"x")))
        let text = String(decoding: withVariables, as: UTF8.self)
        #expect(text.hasSuffix(#","variables":{"owner": "cli", "n": 12345678901234567890,"after":"Y3Vy\"x"}}"#))
        #expect(throws: GraphQLQuery.Problem.self) { try pagination(variables: #"{"after": "x"}"#) }
        #expect(throws: GraphQLQuery.Problem.self) { try pagination(variables: "[1]") }
    }

    @Test("Every record once, the edges' nodes, to hasNextPage false; totalCount is the total")
    func walksToTheEnd() async throws {
        let transport = server([
            nil:
                #"{"data": {"notes": {"totalCount": 3, "edges": [{"node": {"id": "a", "title": "x"}}, {"node": {"id": 2, "title": "y"}}], "pageInfo": {"hasNextPage": true, "endCursor": "c2"}}}}"#,
            "c2":
                #"{"data": {"notes": {"totalCount": 3, "edges": [{"node": {"id": "c", "title": "z"}}], "pageInfo": {"hasNextPage": false, "endCursor": "c3"}}}}"#,
        ])
        let result = await walk(transport, pagination: try pagination())
        #expect(result.error == nil)
        #expect(result.ids == ["a", "2", "c"])
        #expect(result.totals == [3, 3])
        #expect(transport.requests.count == 2, "the last endCursor is not followed: hasNextPage is false")
    }

    @Test("A repeated endCursor is a cycle; hasNextPage true with a null endCursor is a contract error")
    func cycles() async throws {
        let page = #"{"data": {"notes": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": "c1"}}}}"#
        let cycle = await walk(server([nil: page, "c1": page]), pagination: try pagination())
        #expect(cycle.error?.code == .cycle)
        let null = await walk(
            server([nil: #"{"data": {"notes": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": null}}}}"#]),
            pagination: try pagination())
        #expect(null.error?.description.contains("endCursor is null") == true)
    }

    @Test("Errors in a 200 fail the walk with the first message and its path, not retried")
    func errors() async throws {
        let transport = server([
            nil:
                #"{"errors": [{"message": "Field 'x' doesn't exist", "path": ["notes", 0, "x"], "locations": [{"line": 1, "column": 2}]}, {"message": "two"}], "data": null}"#
        ])
        let result = await walk(transport, pagination: try pagination())
        #expect(result.error?.kind == .contract)
        #expect(
            result.error?.description.contains(
                #"the server answered with errors: "Field 'x' doesn't exist" at notes.0.x (and 1 more)"#)
                == true, "\(String(describing: result.error))")
        #expect(transport.requests.count == 1)
        let noData = await walk(server([nil: #"{"data": {"notes": null}}"#]), pagination: try pagination())
        #expect(noData.error?.description.contains("the response has no 'edges' at data.notes") == true)
    }

    @Test("GitHub's RATE_LIMITED is waited out until the reset its headers name, then the page is asked again")
    func rateLimited() async throws {
        let asked = Mutex(0)
        let transport = MemoryTransport { request, _ in
            let count = asked.withLock {
                $0 += 1
                return $0
            }
            if count == 1 {
                return .json(
                    #"{"data": null, "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}"#,
                    headers: [HTTPHeader("X-RateLimit-Remaining", "0"), HTTPHeader("X-RateLimit-Reset", "1000042")])
            }
            return .json(
                #"{"data": {"notes": {"edges": [{"node": {"id": "a", "title": "x"}}], "pageInfo": {"hasNextPage": false, "endCursor": null}}}}"#
            )
        }
        let sleeps = SleepLog()
        let result = await walk(transport, pagination: try pagination(), sleeps: sleeps)
        #expect(result.error == nil && result.ids == ["a"])
        #expect(transport.requests.count == 2)
        #expect(sleeps.all.contains(42), "the walk waited for the reset: \(sleeps.all)")
    }
}
