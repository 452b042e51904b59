import Foundation
import TestSupport
import Testing

/// `notes-page fetch --all` against a real FastAPI app with fastapi-pagination (`Tools/fastapi/server.py`):
/// the library's stock page types with their defaults (50 a page, at most 100, 422 above), `items` and
/// `total` rather than `results` and `count`, its percent-encoded cursors, and links without a host.
@Suite(
    "FastAPI with fastapi-pagination end to end",
    .enabled(
        if: FastAPIServer.isAvailable,
        "python3 does not import fastapi, fastapi_pagination, uvicorn and sqlalchemy (Tools/fastapi/install.sh installs them): FastAPI tests skipped"
    )
)
struct FastAPITests {
    /// Notes inserted; every 97th is then deleted, so 4949 are served, with ids up to 5000.
    static let count = 5000
    static let expected = FastAPIServer.ids(count: count)

    /// Starts a server and runs `notes-page fetch --all URL/PATH -o FILE OPTIONS`.
    /// - Returns: the run, the notes' ids in the order written (`nil` for a line without an integer id) and
    ///   what the server logged.
    static func fetch(_ path: String, _ options: [String]) async throws -> (run: Run, ids: [Int?], log: String) {
        let server = try FastAPIServer(count: count)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let output = scratch.path("notes.ndjson")
        let run = try await Run(["fetch", "--all", server.url + path, "-o", output] + options)
        let log = server.stop()
        let text = (try? scratch.read("notes.ndjson")) ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }  // after the last newline, or an empty file
        let ids = lines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
        return (run, ids, log)
    }

    /// Runs ``fetch(_:_:)`` and checks that it exits 0, having written each of the server's notes once, in
    /// id order.
    /// - Returns: the run and what the server logged.
    @discardableResult
    static func walk(
        _ path: String, _ options: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (run: Run, log: String) {
        let (run, written, log) = try await fetch(path, options)
        let context = "\(path) \(options): \(run.stderr)"
        #expect(run.status == 0, "\(context)", sourceLocation: sourceLocation)
        let ids = written.compactMap { $0 }
        #expect(
            ids.count == written.count, "\(path): \(written.count - ids.count) lines without an integer id",
            sourceLocation: sourceLocation)
        // Compared apart from the expectation, which would print every id of both sides.
        let eachOnce = ids.sorted() == expected
        let inOrder = ids == ids.sorted()
        #expect(eachOnce, "\(path): \(Self.difference(ids)); \(context)", sourceLocation: sourceLocation)
        #expect(inOrder, "\(path): not in id order", sourceLocation: sourceLocation)
        #expect(run.stderr.contains("\(expected.count) notes, "), "\(context)", sourceLocation: sourceLocation)
        return (run, log)
    }

    /// What `ids` lacks of the expected ids, and what it holds twice or should not hold.
    static func difference(_ ids: [Int]) -> String {
        let wanted = Set(expected)
        var seen = Set<Int>()
        var twice: [Int] = []
        for id in ids where !seen.insert(id).inserted { twice.append(id) }
        let missing = expected.filter { !seen.contains($0) }
        let extra = seen.subtracting(wanted).sorted()
        return "\(ids.count) written of \(expected.count); missing \(missing.count) (\(missing.prefix(5))…), "
            + "twice \(twice.count) (\(twice.prefix(5))…), not the server's \(extra.count) (\(extra.prefix(5))…)"
    }

    /// The `Pagination: …` lines of `stderr`.
    static func pagination(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("Pagination: ") }
    }

    /// Whether a `Pagination: found items at 'items'` line names `words` too.
    static func found(_ stderr: String, naming words: [String]) -> Bool {
        pagination(stderr).contains { line in
            line.hasPrefix("Pagination: found items at 'items'") && words.allSatisfy { line.contains($0) }
        }
    }

    @Test("Page, --paginate page with size as the size parameter: items and total are found, every note once")
    func page() async throws {
        let (run, _) = try await Self.walk(
            "/page", ["--paginate", "page", "--page-size", "100", "--page-size-param", "size"])
        #expect(Self.found(run.stderr, naming: ["total at 'total' (\(Self.expected.count))"]), "\(run.stderr)")
    }

    @Test("Page asking 500 a page: the server's 422 ends the run with an error that names it")
    func pageTooLarge() async throws {
        let (run, _, log) = try await Self.fetch(
            "/page", ["--paginate", "page", "--page-size", "500", "--page-size-param", "size"])
        #expect(run.status != 0, "\(run.stderr)")
        #expect(run.stderr.contains("HTTP 422"), "\(run.stderr)")
        #expect(log.contains("size=500"), "the server was not asked for 500: \(log)")
    }

    @Test("LimitOffsetPage, --paginate offset: every note once")
    func limitOffset() async throws {
        let (run, _) = try await Self.walk("/limit-offset", ["--paginate", "offset", "--page-size", "100"])
        #expect(Self.found(run.stderr, naming: ["total at 'total'"]), "\(run.stderr)")
    }

    @Test(
        "CursorPage with no options: items and the percent-encoded next_page cursor are found, every note once",
        .enabled(if: FastAPIServer.hasCursor, "python3 does not import sqlakeyset: CursorPage test skipped")
    )
    func cursor() async throws {
        let (run, _) = try await Self.walk("/cursor", [])
        #expect(Self.found(run.stderr, naming: ["next at 'next_page'"]), "\(run.stderr)")
    }

    @Test("links Page with no options: links.next, a path without the host, is followed, every note once")
    func links() async throws {
        let (run, _) = try await Self.walk("/links", [])
        #expect(Self.found(run.stderr, naming: ["next at 'links.next'"]), "\(run.stderr)")
    }
}
