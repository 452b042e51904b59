import Foundation
import TestSupport
import Testing

/// `notes-page fetch --all` against a real Django REST framework app (`Tools/apps/drf/server.py`): DRF's stock
/// paginators with their defaults, a default model's integer ids with gaps, page sizes the server caps
/// silently, and djangorestframework-jsonapi's documents.
@Suite(
    "Django REST framework end to end",
    .enabled(
        if: DjangoServer.isAvailable,
        "python3 does not import django and rest_framework (Tools/apps/drf/install.sh installs them): Django REST framework tests skipped"
    )
)
struct DjangoRESTFrameworkTests {
    /// Notes inserted; every 97th is then deleted, so 4949 are served, with ids up to 5000.
    static let count = 5000
    static let expected = DjangoServer.ids(count: count)
    static let capped = "Pagination: the server sends 1000 a page (5000 asked)"

    /// How the notes' ids are written: DRF's `ModelSerializer` sends the primary key as a JSON integer,
    /// JSON:API as a string.
    enum IDKind { case integer, string }

    /// Starts a server, runs `notes-page fetch --all URL/PATH -o FILE OPTIONS`, and checks that it exits 0,
    /// having written each of the server's notes once, in id order, its id of `kind`.
    /// - Returns: the run and what the server logged.
    @discardableResult
    static func walk(
        _ path: String, _ options: [String], ids kind: IDKind = .integer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (run: Run, log: String) {
        let server = try DjangoServer(count: count)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let output = scratch.path("notes.ndjson")
        let run = try await Run(["fetch", "--all", server.url + path, "-o", output] + options)
        let log = server.stop()
        let written = PythonAppServer.ids(ofNDJSON: (try? scratch.read("notes.ndjson")) ?? "", digits: kind == .string)
        PythonAppServer.expectEachOnce(
            written, expected: expected, run, context: "\(path) \(options)", sourceLocation: sourceLocation)
        return (run, log)
    }

    static func pagination(_ stderr: String) -> [Substring] { PythonAppServer.pagination(stderr) }

    @Test("LimitOffsetPagination, following its next URLs (--items-path results)")
    func limitOffsetNext() async throws {
        try await Self.walk("/limitoffset/", ["--items-path", "results"])
    }

    @Test("LimitOffsetPagination, --paginate offset asking 5000 a page: the server's 1000 are learned, every note once")
    func limitOffsetCapped() async throws {
        let (run, _) = try await Self.walk(
            "/limitoffset/", ["--paginate", "offset", "--page-size", "5000", "--items-path", "results"])
        #expect(Self.pagination(run.stderr).contains(Substring(Self.capped)), "\(run.stderr)")
    }

    @Test("PageNumberPagination, following its next URLs (--items-path results)")
    func pageNumberNext() async throws {
        try await Self.walk("/pagenumber/", ["--items-path", "results"])
    }

    @Test("PageNumberPagination, --paginate page asking 5000 a page: the server's 1000 are learned, every note once")
    func pageNumberCapped() async throws {
        let (run, _) = try await Self.walk(
            "/pagenumber/",
            ["--paginate", "page", "--page-size", "5000", "--page-size-param", "page_size", "--items-path", "results"])
        #expect(Self.pagination(run.stderr).contains(Substring(Self.capped)), "\(run.stderr)")
    }

    @Test("CursorPagination: opaque cursors in next URLs, no count (--items-path results)")
    func cursor() async throws {
        try await Self.walk("/cursor/", ["--items-path", "results"])
    }

    @Test(
        "djangorestframework-jsonapi: data[] of {type, id, attributes}, links.next, application/vnd.api+json",
        .enabled(if: DjangoServer.hasJSONAPI, "python3 does not import rest_framework_json_api: JSON:API test skipped")
    )
    func jsonAPI() async throws {
        try await Self.walk(
            "/jsonapi/", ["--items-path", "data", "--title-path", "attributes.title", "--next-path", "links.next"],
            ids: .string)
    }

    @Test("No options at all: results, next and count are recognised, and stderr says so")
    func recognised() async throws {
        let (run, _) = try await Self.walk("/limitoffset/", [])
        let said = Self.pagination(run.stderr).joined(separator: "\n")
        for word in ["results", "next", "count"] {
            #expect(said.contains(word), "\(word) is not named: \(run.stderr)")
        }
    }
}
