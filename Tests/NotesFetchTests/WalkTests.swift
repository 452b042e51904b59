import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import TestSupport
import Testing

@Suite("Walking every page")
struct WalkTests {
    /// Walks to the end, collecting ids per page, or the error.
    func walk(_ fetcher: NotesFetcher, from start: PageLocation = .start, maxPages: Int? = nil) async
        -> (pages: [[String]], stoppedAt: PageLocation?, error: FetchError?)
    {
        var pages: [[String]] = []
        do {
            let stop = try await fetcher.walk(
                from: start, ids: IDSet(), visited: IDSet(), span: WalkSpan(maxPages: maxPages)
            ) { page in
                pages.append(page.notes.map(\.id))
            }
            return (pages, stop, nil)
        } catch {
            return (pages, nil, error)
        }
    }

    @Test("Opaque cursors are percent-encoded into ?cursor= on the endpoint's URL")
    func tokens() async {
        let transport = MemoryTransport { request, _ in
            switch request.url {
            case "http://127.0.0.1:8080/notes?limit=2":
                return .json(#"{"notes": [{"id": "a", "title": ""}], "next_cursor": "q+/=x y"}"#)
            case "http://127.0.0.1:8080/notes?limit=2&cursor=q%2B%2F%3Dx%20y":
                return .json(#"{"next_cursor": "", "notes": [{"id": "b", "title": ""}]}"#)
            default:
                return .status(404)
            }
        }
        let result = await walk(fetcher(transport, endpoint: URL(string: "http://127.0.0.1:8080/notes?limit=2")!))
        #expect(result.error == nil)
        #expect(result.pages == [["a"], ["b"]])
    }

    @Test("Next URLs (Django REST framework) are followed as they are; relative ones are resolved")
    func drf() async {
        var configuration = FetchConfiguration()
        configuration.page.itemsPath = FieldPath("results")
        configuration.page.nextPath = FieldPath("next")
        let transport = MemoryTransport { request, _ in
            switch request.url {
            case "http://127.0.0.1:8080/notes":
                return .json(
                    #"{"next": "http://127.0.0.1:8080/notes?cursor=cD0y", "previous": null, "results": [{"id": "a", "title": ""}]}"#
                )
            case "http://127.0.0.1:8080/notes?cursor=cD0y":
                return .json(#"{"next": "/notes?cursor=cD0z", "results": [{"id": "b", "title": ""}]}"#)
            case "http://127.0.0.1:8080/notes?cursor=cD0z":
                return .json(#"{"next": null, "results": []}"#)
            default:
                return .status(404)
            }
        }
        let result = await walk(fetcher(transport, configuration: configuration))
        #expect(result.error == nil)
        #expect(result.pages == [["a"], ["b"], []])
    }

    @Test("A bare array with a Link rel=next header is followed, as GitHub's REST API pages")
    func link() async {
        let transport = MemoryTransport { request, _ in
            switch request.url {
            case "http://127.0.0.1:8080/notes":
                return .json(
                    #"[{"id": "a", "title": ""}]"#,
                    headers: [
                        HTTPHeader(
                            "Link",
                            #"<http://127.0.0.1:8080/notes?page=2>; rel="next", <http://127.0.0.1:8080/notes?page=9>; rel="last""#
                        )
                    ]
                )
            case "http://127.0.0.1:8080/notes?page=2":
                return .json(
                    #"[{"id": "b", "title": ""}]"#,
                    headers: [HTTPHeader("Link", #"<http://127.0.0.1:8080/notes>; rel="first""#)])
            default:
                return .status(404)
            }
        }
        let result = await walk(fetcher(transport))
        #expect(result.error == nil)
        #expect(result.pages == [["a"], ["b"]])
    }

    @Test("A cursor the run has seen is a cycle, reported, not followed forever")
    func cycle() async throws {
        let transport = MemoryTransport { request, _ in
            request.url.hasSuffix("cursor=2")
                ? .json(#"{"notes": [{"id": "b", "title": ""}], "next_cursor": "1"}"#)
                : request.url.hasSuffix("cursor=1")
                    ? .json(#"{"notes": [{"id": "c", "title": ""}], "next_cursor": "2"}"#)
                    : .json(#"{"notes": [{"id": "a", "title": ""}], "next_cursor": "1"}"#)
        }
        let result = await walk(fetcher(transport))
        let error = try #require(result.error)
        #expect(error.code == .cycle)
        #expect(error.page == 3)
        #expect(result.pages == [["a"], ["c"]])
        #expect(transport.requests.count == 3)
    }

    @Test(
        "A next URL with another scheme, or no host, is a contract error at once: never requested, never retried",
        arguments: [
            ("file:///etc/passwd", "the next URL has scheme file; only http and https are followed"),
            ("ftp://h/notes", "the next URL has scheme ftp; only http and https are followed"),
            ("http:///notes?page=2", "the next URL has no host"),
            ("https://user@:8/n", "the next URL has no host"),
        ])
    func nextURLNotFollowed(next: String, message: String) async throws {
        let transport = MemoryTransport { _, _ in
            .json(#"{"notes": [{"id": "a", "title": ""}], "next_cursor": "\#(next)"}"#)
        }
        let result = await walk(fetcher(transport))
        let error = try #require(result.error)
        #expect(error.description == "page 1 (the first page): \(message)")
        #expect(error.kind == .contract)
        #expect(transport.requests.count == 1)
        #expect(result.pages.isEmpty)
    }

    @Test("A redirect to another scheme is a contract error at once, not a retried failure")
    func redirectToFile() async throws {
        let transport = MemoryTransport { _, _ in .status(302, headers: [HTTPHeader("Location", "file:///etc/passwd")])
        }
        let result = await walk(fetcher(transport))
        let error = try #require(result.error)
        #expect(
            error.description
                == "page 1 (the first page): the redirect's target has scheme file; only http and https are followed")
        #expect(transport.requests.count == 1)
    }

    @Test("A duplicate id across pages is a contract error naming both pages")
    func duplicateAcrossPages() async throws {
        let transport = MemoryTransport { request, _ in
            request.url.hasSuffix("cursor=2")
                ? .json(#"{"notes": [{"id": "x", "title": ""}, {"id": "a", "title": ""}], "next_cursor": null}"#)
                : .json(#"{"notes": [{"id": "a", "title": ""}], "next_cursor": "2"}"#)
        }
        let result = await walk(fetcher(transport))
        let error = try #require(result.error)
        guard case .contract(let pageError) = error.code.base else {
            Issue.record("expected a contract error, got \(error)")
            return
        }
        #expect(pageError.code == .duplicateID(firstPage: 0))
        #expect(error.page == 2)
        #expect(error.description.hasPrefix(#"page 2 (cursor 2): duplicate id "a", seen on page 1 (note 1, byte "#))
        #expect(result.pages == [["a"]])
    }

    @Test("Pages past 32 KiB decode on their lane's second thread page after page, a page cut mid-body included")
    func largePages() async throws {
        /// Page `number` (1-based): 400 notes of about 100 bytes; the last page repeats an id of the first.
        @Sendable func body(_ number: Int) -> [UInt8] {
            let notes = (0..<400).map { index in
                let id = number == 4 && index == 250 ? "p1-7" : "p\(number)-\(index)"
                return #"{"id":"\#(id)","title":"\#(String(repeating: "t", count: 40 + index % 50))","n":\#(index)}"#
            }
            let next = number == 4 ? "null" : #""c\#(number + 1)""#
            return Array(#"{"notes":[\#(notes.joined(separator: ","))],"next_cursor":\#(next)}"#.utf8)
        }
        let transport = MemoryTransport { request, index in
            let number =
                request.url.hasSuffix("cursor=c2")
                ? 2
                : request.url.hasSuffix("cursor=c3")
                    ? 3
                    : request.url.hasSuffix("cursor=c4") ? 4 : 1
            let bytes = body(number)
            let head = HTTPResponseHead(
                status: 200,
                headers: [
                    HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Length", "\(bytes.count)"),
                ])
            let chunks = stride(from: 0, to: bytes.count, by: 4000).map {
                Array(bytes[$0..<min(bytes.count, $0 + 4000)])
            }
            // Page 3's first attempt breaks off mid-body, well past the threshold.
            if index == 2 {
                return .cut(head, chunks: Array(chunks.prefix(chunks.count / 2)), TransportError(.broken, "reset"))
            }
            return .reply(head, chunks: chunks)
        }
        let walker = fetcher(transport)
        let result = await walk(walker)
        #expect(body(1).count > 32 << 10)
        #expect(result.pages.count == 3)
        for (index, ids) in result.pages.enumerated() {
            #expect(ids == (0..<400).map { "p\(index + 1)-\($0)" }, "page \(index + 1)")
        }
        let error = try #require(result.error)
        guard case .contract(let pageError) = error.code.base else {
            Issue.record("expected a contract error, got \(error)")
            return
        }
        #expect(pageError.code == .duplicateID(firstPage: 0))
        #expect(error.page == 4 && pageError.noteIndex == 250)
        // The offset lies within the note that repeats the id.
        let text = String(decoding: body(4), as: UTF8.self)
        let note = try #require(text.range(of: #"{"id":"p1-7""#))
        let start = text.utf8.distance(from: text.startIndex, to: note.lowerBound)
        #expect(
            pageError.offset > start && pageError.offset < start + 120, "offset \(pageError.offset), note at \(start)")
        // Pages 1, 2, 3 (cut), 3 and 4, each on the lane's one second thread.
        #expect(walker.pagesDecodedOnTwoThreads == 5)
        #expect(transport.requests.count == 5)
    }

    @Test("A sequential walk's pages run on the thread the walk runs on: no hop to the transport's and back")
    func oneThread() async {
        let threads = Mutex<[pthread_t]>([])
        let names = Mutex<Set<String>>([])
        let transport = MemoryTransport { request, index in
            threads.withLock { $0.append(pthread_self()) }
            let name = (try? Files.text("/proc/thread-self/comm")) ?? "?"
            names.withLock { _ = $0.insert(name.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return .json(
                #"{"notes": [{"id": "n\#(index)", "title": ""}], "next_cursor": \#(index < 4 ? "\"c\(index)\"" : "null")}"#
            )
        }
        var bodies: [pthread_t] = []
        let walker = fetcher(transport)
        do {
            _ = try await walker.walk(from: .start, ids: IDSet(), visited: IDSet()) { _ in bodies.append(pthread_self())
            }
        } catch {
            Issue.record("\(error)")
        }
        let all = threads.withLock { $0 } + bodies
        #expect(all.count == 10)
        #expect(all.allSatisfy { pthread_equal($0, all[0]) != 0 }, "the pages and the walk on one thread")
        // Named, so that perf and a debugger tell it from the concurrency pool's.
        #expect(names.withLock { $0 } == ["notes-lane-0"])
    }

    @Test("--max-pages stops early and says where to go on")
    func maxPages() async {
        let transport = MemoryTransport { request, index in
            .json(#"{"notes": [{"id": "n\#(index)", "title": ""}], "next_cursor": "c\#(index + 1)"}"#)
        }
        let result = await walk(fetcher(transport), maxPages: 3)
        #expect(result.pages == [["n0"], ["n1"], ["n2"]])
        #expect(result.stoppedAt == .cursor("c3"))
    }

    @Test("Link header parsing follows RFC 8288")
    func linkParsing() {
        #expect(
            PageLocator.nextLink(in: #"<https://a/x?page=2>; rel="next", <https://a/x?page=5>; rel="last""#)
                == "https://a/x?page=2")
        #expect(PageLocator.nextLink(in: #"<https://a/1>; rel="prev", <https://a/3>; rel="next""#) == "https://a/3")
        #expect(PageLocator.nextLink(in: #"<https://a/3>; rel="prev next""#) == "https://a/3")
        #expect(PageLocator.nextLink(in: "<https://a/3>; rel=next") == "https://a/3")
        #expect(PageLocator.nextLink(in: #"<https://a/3>; title="a, b"; rel="next""#) == "https://a/3")
        #expect(PageLocator.nextLink(in: #"<https://a/3>; rel="nextish""#) == nil)
        #expect(PageLocator.nextLink(in: "") == nil)
    }

    @Test("Backoff: full jitter under a doubling ceiling")
    func backoff() {
        let backoff = Backoff()
        #expect((1...9).map { backoff.ceiling(forRetry: $0) } == [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        var random = SystemRandomNumberGenerator()
        for attempt in 1...20 {
            let delay = backoff.delay(forRetry: attempt, retryAfter: nil, using: &random)
            #expect(delay >= 0 && delay <= backoff.ceiling(forRetry: attempt))
        }
        #expect(backoff.delay(forRetry: 1, retryAfter: 3, using: &random) == 3)
        #expect(backoff.delay(forRetry: 1, retryAfter: 1_000, using: &random) == 120)
    }
}
