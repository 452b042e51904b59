import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

@Suite("Fetching one page")
struct FetchPageTests {
    @Test("One note")
    func oneNote() async throws {
        let transport = MemoryTransport { _, _ in .json(onePage) }
        let page = try #require(await firstPage(fetcher(transport)).page)
        #expect(page.notes.map(\.id) == ["n1"])
        #expect(page.next == nil)
        #expect(page.attempts == 1)
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:8080/notes"])
    }

    @Test("An empty page is a success with no notes, not an error")
    func emptyPage() async throws {
        for body in [#"{"notes": [], "next_cursor": null}"#, "[]"] {
            let page = try #require(await firstPage(fetcher(MemoryTransport { _, _ in .json(body) })).page)
            #expect(page.notes.isEmpty && page.next == nil)
        }
    }

    @Test(
        "Bodies that break the contract fail at once, not retried",
        arguments: [
            (
                #"{"notes": [{"id": "a", "title": "x"}, {"id": "a", "title": "y"}], "next_cursor": null}"#,
                "duplicate-id"
            ),
            (#"{"notes": [{"title": "x"}], "next_cursor": null}"#, "missing-id"),
            (#"{"notes": [{"id": "a", "title": "x"}"#, "truncated"),
            (#"{"notes": [}"#, "invalid-json"),
        ]
    )
    func contractErrors(_ body: String, code: String) async throws {
        let transport = MemoryTransport { _, _ in .json(body) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        guard case .contract(let pageError) = error.code.base else {
            Issue.record("expected a contract error, got \(error)")
            return
        }
        #expect(pageError.code.name == code)
        #expect(error.kind == .contract)
        #expect(transport.requests.count == 1)
    }

    @Test("An HTML login page with 200 is a content-type error, before any byte of it is parsed")
    func htmlPage() async throws {
        let html = MemoryTransport.Response.reply(
            HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")]),
            chunks: [Array("<!DOCTYPE html><html>".utf8)]
        )
        let transport = MemoryTransport { _, _ in html }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .contentType("text/html; charset=utf-8"))
        #expect(error.description == "page 1 (the first page): the response is 'text/html; charset=utf-8', not JSON")
    }

    /// Each content type with the refusal it must get (`nil`: accepted), naming the type as the server sent it.
    @Test(
        "JSON content types are accepted, others refused with a content-type error naming the type",
        arguments: [
            ("application/json", nil), ("application/json; charset=utf-8", nil),
            ("Application/JSON;charset=UTF-8", nil),
            ("application/vnd.api+json", nil), ("application/problem+json", nil),
            ("application/json; charset=latin1", "the response is 'application/json; charset=latin1', not JSON"),
            ("text/json", "the response is 'text/json', not JSON"),
            ("text/plain", "the response is 'text/plain', not JSON"),
            ("", "the response is without a Content-Type, not JSON"),
        ] as [(String, String?)]
    )
    func contentTypes(_ type: String, refusal: String?) async throws {
        let head = HTTPResponseHead(status: 200, headers: type.isEmpty ? [] : [HTTPHeader("Content-Type", type)])
        let transport = MemoryTransport { _, _ in .reply(head, chunks: [Array(onePage.utf8)]) }
        let result = await firstPage(fetcher(transport))
        guard let refusal else {
            let page = try #require(result.page, "refused: \(result)")
            #expect(page.notes.map(\.id) == ["n1"])
            return
        }
        let error = try #require(result.error, "accepted")
        #expect(error.code == .contentType(type))
        #expect(error.kind == .contract)
        #expect(error.description == "page 1 (the first page): \(refusal)")
        #expect(transport.requests.count == 1, "a content-type error is not retried")
    }

    @Test("A Content-Length over the page cap fails before the body is read")
    func contentLength() async throws {
        var configuration = FetchConfiguration()
        configuration.page.limits.maxDocumentBytes = 1_000
        let head = HTTPResponseHead(
            status: 200,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Length", "5000")]
        )
        let transport = MemoryTransport { _, _ in .reply(head, chunks: [Array(onePage.utf8)]) }
        let error = try #require(await firstPage(fetcher(transport, configuration: configuration)).error)
        #expect(error.code == .tooLarge(contentLength: 5_000, limit: 1_000))
    }

    @Test("Redirect loops stop after the limit")
    func redirectLoop() async throws {
        let transport = MemoryTransport { _, _ in .status(302, headers: [HTTPHeader("Location", "/notes")]) }
        let error = try #require(await firstPage(fetcher(transport)).error)
        #expect(error.code == .redirects(5))
        #expect(transport.requests.count == 6)
    }

    @Test("Cancelling the task stops a slow page at the next chunk and takes its ids back")
    func cancellation() async throws {
        let chunks =
            [Array(#"{"notes": [{"id": "a", "title": "x"},"#.utf8)]
            + Array(repeating: Array(" ".utf8), count: 10_000)
        let head = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
        // 100 s to the end, 10 ms a chunk: a test starved for seconds on a loaded machine still cancels midway.
        let transport = MemoryTransport { _, _ in .drip(head, chunks: chunks, pause: 0.01) }
        let fetcher = fetcher(transport)
        let task = Task {
            let ids = IDSet()
            let result = await firstPage(fetcher, ids: ids)
            return (result.error, ids.count)
        }
        while transport.requests.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        let (error, idCount) = await task.value
        #expect(error?.code == .cancelled)
        #expect(idCount == 0)
        #expect(transport.requests.count == 1)
    }
}
