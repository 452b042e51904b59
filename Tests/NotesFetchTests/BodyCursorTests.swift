import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

/// A cursor in a POST's JSON body (Notion's `start_cursor`, `next_cursor`, `has_more`), from memory.
@Suite("A cursor in a POST body: the body as given, the cursor at its path, POSTs not sent twice")
struct BodyCursorTests {
    let endpoint = URL(string: "http://127.0.0.1:8080/v1/databases/notes/query")!

    func notion(resendsBody: Bool = false) throws -> BodyCursorPagination {
        try BodyCursorPagination(
            body: #"{"page_size": 2, "filter": {"n": 1.50}}"#, cursorPath: FieldPath("start_cursor"),
            hasMorePath: FieldPath("has_more"), resendsBody: resendsBody)
    }

    func walk(_ transport: MemoryTransport, _ pagination: BodyCursorPagination) async -> (
        ids: [String], error: FetchError?
    ) {
        var configuration = FetchConfiguration()
        configuration.page.itemsPath = FieldPath("results")
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: endpoint, pagination: pagination), configuration: configuration,
            transport: transport, environment: SleepLog().environment())
        var ids: [String] = []
        do {
            _ = try await fetcher.walk(from: .start, ids: IDSet(), visited: IDSet()) { ids += $0.notes.map(\.id) }
            return (ids, nil)
        } catch {
            return (ids, error)
        }
    }

    @Test("The body keeps its members and numbers as written; the cursor is written at its path, made if absent")
    func bodies() throws {
        let pagination = try notion()
        #expect(pagination.body(for: .start) == Array(#"{"page_size":2,"filter":{"n":1.50}}"#.utf8))
        #expect(
            pagination.body(for: .cursor("c\"2"))
                == Array(#"{"page_size":2,"filter":{"n":1.50},"start_cursor":"c\"2"}"#.utf8))
        let nested = try BodyCursorPagination(
            body: #"{"q": {"after": "old"}, "z": [1]}"#, cursorPath: FieldPath("q.after"))
        #expect(nested.body(for: .cursor("new")) == Array(#"{"q":{"after":"new"},"z":[1]}"#.utf8))
        #expect(throws: JSONTree.SyntaxError.self) { try BodyCursorPagination(body: "[1]", cursorPath: FieldPath("a")) }
        #expect(throws: JSONTree.SyntaxError.self) { try BodyCursorPagination(body: "{", cursorPath: FieldPath("a")) }
        #expect(throws: JSONTree.SyntaxError.self) {
            try BodyCursorPagination(body: #"{"a": 3}"#, cursorPath: FieldPath("a.b"))
        }
    }

    @Test("Each page is a POST of the body with the next cursor, until has_more is false")
    func walks() async throws {
        let transport = MemoryTransport { request, _ in
            guard request.method == "POST", let body = request.body,
                let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            else { return .status(400) }
            switch json["start_cursor"] as? String {
            case nil:
                return .json(
                    #"{"object": "list", "results": [{"id": "a", "title": ""}], "next_cursor": "c2", "has_more": true}"#
                )
            case "c2":
                return .json(
                    #"{"object": "list", "results": [{"id": "b", "title": ""}], "next_cursor": null, "has_more": false}"#
                )
            default:
                return .status(400)
            }
        }
        let result = await walk(transport, try notion())
        #expect(result.error == nil)
        #expect(result.ids == ["a", "b"])
        #expect(transport.requests.map(\.method) == ["POST", "POST"])
    }

    @Test("A POST whose fate is unknown (502) is not sent again; with --retry-post it is; a 429 always is")
    func resends() async throws {
        func server(_ first: MemoryTransport.Response) -> MemoryTransport {
            let count = Mutex(0)
            return MemoryTransport { _, _ in
                let n = count.withLock {
                    $0 += 1
                    return $0
                }
                return n == 1
                    ? first : .json(#"{"results": [{"id": "a", "title": ""}], "next_cursor": null, "has_more": false}"#)
            }
        }
        let once = server(.status(502))
        let refused = await walk(once, try notion())
        #expect(refused.error?.description.contains("not sent again: the server may have acted on the POST") == true)
        #expect(once.requests.count == 1)
        let safe = server(.status(502))
        #expect(await walk(safe, try notion(resendsBody: true)).ids == ["a"])
        #expect(safe.requests.count == 2)
        let limited = server(.status(429))
        #expect(await walk(limited, try notion()).ids == ["a"])
        #expect(limited.requests.count == 2)
    }

    @Test("A POST redirected with 307 or 308 is sent again, body and all; 301, 302, 303 are refused")
    func redirects() async throws {
        for status in [301, 302, 303, 307, 308] {
            let transport = MemoryTransport { request, _ in
                if request.url.hasSuffix("/moved") {
                    guard request.method == "POST", request.body != nil else { return .status(400) }
                    return .json(#"{"results": [{"id": "a", "title": ""}], "next_cursor": null, "has_more": false}"#)
                }
                return .status(status, headers: [HTTPHeader("Location", "/moved")])
            }
            let result = await walk(transport, try notion())
            if status >= 307 {
                #expect(result.error == nil && result.ids == ["a"], "\(status): \(String(describing: result.error))")
            } else {
                #expect(result.error?.code == .status(status), "\(status)")
                #expect(transport.requests.count == 1, "\(status)")
            }
        }
    }
}
