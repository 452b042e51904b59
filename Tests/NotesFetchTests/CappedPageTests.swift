import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

/// Servers that send fewer notes a page than asked: offset and page-number walks learn the server's page
/// size from the first page and never take a short page for the last.
@Suite("Pages never cut short: a server that caps the page size, hides notes, or says nothing")
struct CappedPageTests {
    /// What a list endpoint announces besides its notes.
    struct Shape: Sendable, CustomStringConvertible {
        /// A `count` in the body.
        var total = false
        /// A `next` URL in the body (null on the last page).
        var next = false
        /// The count announced, when not the notes' own.
        var announced: Int?
        var description: String { "total \(total), next \(next)" }
    }

    /// A list of `count` notes served by offset (`offset`, `limit`) or page number (`page`, `per_page`), at
    /// most `cap` a page, the ids in `hidden` left out of the pages they fall on (as a server's permission
    /// filter does), integer ids.
    static func server(count: Int, cap: Int, shape: Shape, hidden: Set<Int> = []) -> MemoryTransport {
        MemoryTransport { request, _ in
            let items = URLComponents(string: request.url)?.queryItems ?? []
            func value(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
            let byPage = value("page") != nil || value("per_page") != nil
            let size = min(value(byPage ? "per_page" : "limit") ?? 10, cap)
            let start = byPage ? ((value("page") ?? 1) - 1) * size : value("offset") ?? 0
            guard start >= 0 else { return .status(400) }
            let end = min(count, start + size)
            let notes = (start..<max(start, end)).filter { !hidden.contains($0) }.map {
                #"{"id": \#($0), "title": "t"}"#
            }
            var fields: [String] = []
            if shape.total { fields.append(#""count": \#(shape.announced ?? count)"#) }
            if shape.next {
                let next =
                    byPage
                    ? "http://127.0.0.1:8080/notes?page=\((value("page") ?? 1) + 1)&per_page=\(size)"
                    : "http://127.0.0.1:8080/notes?limit=\(size)&offset=\(end)"
                fields.append(#""next": \#(end < count ? "\"\(next)\"" : "null")"#)
            }
            fields.append(#""results": [\#(notes.joined(separator: ", "))]"#)
            return .json("{" + fields.joined(separator: ", ") + "}")
        }
    }

    func walk(_ transport: MemoryTransport, _ pagination: any Pagination, parallel: Int) async
        -> (ids: [String], error: FetchError?)
    {
        var configuration = FetchConfiguration()
        configuration.page.itemsPath = FieldPath("results")
        configuration.page.nextPath = FieldPath("next")
        configuration.parallel = parallel
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: "http://127.0.0.1:8080/notes")!, pagination: pagination),
            configuration: configuration, transport: transport, environment: SleepLog().environment())
        var ids: [String] = []
        do {
            _ = try await fetcher.walk(from: pagination.start(endpoint: endpoint), ids: IDSet(), visited: IDSet()) {
                ids += $0.notes.map(\.id)
            }
            return (ids, nil)
        } catch {
            return (ids, error)
        }
    }

    static let shapes = [Shape(), Shape(total: true), Shape(next: true), Shape(total: true, next: true)]

    @Test(
        "Offsets and page numbers: 50 asked, 10 served: every note once, in order, whatever the page says, one lane or four",
        arguments: shapes, [("offset", 1), ("offset", 4), ("page", 1), ("page", 4)])
    func capped(shape: Shape, walk scheme: (name: String, parallel: Int)) async {
        let server = Self.server(count: 95, cap: 10, shape: shape)
        let pagination: any Pagination =
            scheme.name == "offset"
            ? OffsetPagination(limit: 50, totalPath: nil) : PageNumberPagination(pageSize: 50, totalPath: nil)
        let parallel = scheme.parallel
        let result = await walk(server, pagination, parallel: parallel)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.ids == (0..<95).map(String.init))
        // A total (or, one page at a time, the server's next reference) ends the walk at the last page;
        // without either, the empty page after it does.
        if shape.total || (shape.next && parallel == 1) {
            #expect(server.requests.count == 10, "\(server.requests.map(\.url))")
        } else if parallel == 1 {
            #expect(server.requests.count == 11, "\(server.requests.map(\.url))")
        } else {
            // Probes past the end, at most one round of them.
            #expect(server.requests.count <= 11 + parallel - 1, "\(server.requests.map(\.url))")
        }
    }

    @Test(
        "A page the server filtered short in the middle does not move the next offset", arguments: shapes, [1, 4])
    func filteredShort(shape: Shape, parallel: Int) async {
        let hidden: Set<Int> = [13, 14, 17, 40]
        let server = Self.server(count: 60, cap: 10, shape: shape, hidden: hidden)
        let result = await walk(server, OffsetPagination(limit: 10, totalPath: nil), parallel: parallel)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.ids == (0..<60).filter { !hidden.contains($0) }.map(String.init))
        let offsets = Set(
            server.requests.map(\.url).compactMap {
                URLComponents(string: $0)?.queryItems?.first { $0.name == "offset" }?.value
            })
        #expect(offsets.isSuperset(of: ["0", "10", "20", "30", "40", "50"]) && !offsets.contains("17"), "\(offsets)")
    }

    @Test("Told the end while the total says more, or an empty page before the total: a contract error, not exit 0")
    func totalSaysMore() async {
        // The server's next reference ends at 30 while its count says 95.
        let lying = MemoryTransport { request, _ in
            let offset = URLComponents(string: request.url)?.queryItems?.first { $0.name == "offset" }?.value ?? "0"
            let next = offset == "20" ? "null" : #""http://127.0.0.1:8080/notes?limit=10&offset=\#(Int(offset)! + 10)""#
            let notes = (Int(offset)!..<Int(offset)! + 10).map { #"{"id": \#($0), "title": ""}"# }
            return .json(#"{"count": 95, "next": \#(next), "results": [\#(notes.joined(separator: ","))]}"#)
        }
        let result = await walk(lying, OffsetPagination(limit: 10, totalPath: nil), parallel: 1)
        #expect(result.ids.count == 20, "the page that contradicts the count is not delivered")
        #expect(
            result.error?.description
                == "page 3 (offset 20): the page says it is the last, at offset 20, but 'count' says 95 notes")
        // Nothing but a count, and the notes run out before it.
        let counted = Self.server(count: 40, cap: 10, shape: Shape(total: true, announced: 45))
        let empty = await walk(counted, OffsetPagination(limit: 10, totalPath: nil), parallel: 1)
        #expect(empty.ids.count == 40)
        #expect(empty.error?.description == "page 5 (offset 40): an empty page at offset 40, but 'count' says 45 notes")
    }
}

/// A server that answers every offset with the same notes, with no total: skipping duplicates, the walk ends
/// at the first page with nothing new rather than walking forever.
@Suite("A server that ignores the offset")
struct RepeatingServerTests {
    @Test(
        "With --on-duplicate skip and no total, a page with nothing new ends the walk, one lane or four",
        arguments: [1, 4])
    func repeating(parallel: Int) async {
        let server = MemoryTransport { _, _ in
            .json(#"{"results": [\#((0..<10).map { #"{"id": \#($0), "title": ""}"# }.joined(separator: ","))]}"#)
        }
        var configuration = FetchConfiguration()
        configuration.page.itemsPath = FieldPath("results")
        configuration.page.duplicates = .skip
        configuration.parallel = parallel
        let pagination = OffsetPagination(limit: 10, totalPath: nil)
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: endpoint, pagination: pagination), configuration: configuration,
            transport: server, environment: SleepLog().environment())
        var ids: [String] = []
        do {
            // A bound of its own, so that a walk that would not end fails here, at once.
            _ = try await fetcher.walk(from: .offset(0), ids: IDSet(), visited: IDSet(), span: WalkSpan(maxPages: 50)) {
                ids += $0.notes.map(\.id)
            }
        } catch {
            Issue.record("\(error)")
        }
        #expect(ids == (0..<10).map(String.init))
        #expect(server.requests.count <= 2 + parallel, "\(server.requests.count) requests")
    }
}
