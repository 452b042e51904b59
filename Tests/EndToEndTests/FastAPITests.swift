import Foundation
import TestSupport
import Testing

/// `notes-page fetch --all` against a real FastAPI app with fastapi-pagination (`Tools/apps/fastapi/server.py`):
/// the library's stock page types with their defaults (50 a page, at most 100, 422 above), `items` and
/// `total` rather than `results` and `count`, its percent-encoded cursors, and links without a host.
@Suite(
    "FastAPI with fastapi-pagination end to end",
    .enabled(
        if: FastAPIServer.isAvailable,
        "python3 does not import fastapi, fastapi_pagination, uvicorn and sqlalchemy (Tools/apps/fastapi/install.sh installs them): FastAPI tests skipped"
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
        let ids = PythonAppServer.ids(ofNDJSON: (try? scratch.read("notes.ndjson")) ?? "")
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
        PythonAppServer.expectEachOnce(
            written, expected: expected, run, context: "\(path) \(options)", sourceLocation: sourceLocation)
        return (run, log)
    }

    static func pagination(_ stderr: String) -> [Substring] { PythonAppServer.pagination(stderr) }

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
