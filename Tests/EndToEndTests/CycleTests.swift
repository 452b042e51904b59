import Foundation
import TestSupport
import Testing

/// A page whose next reference leads back to a page the walk visited is a cycle, refused before any
/// request for it: early requests (from a head, from a next value before the notes, from the bytes of
/// the last chunk) check the visited pages too.
@Suite(
    "A cycle costs no request",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct CycleTests {
    @Test(
        "Page 3 names page 2 again: exit 65 naming the cycle, and the server saw 3 requests, not 4",
        arguments: [
            // The next cursor after the notes: the next request made from the last chunk's bytes.
            (["--style", "contract"], [String]()),
            // The next URL before the results (Django REST framework): an early page on another lane.
            (["--style", "drf"], ["--items-path", "results", "--next-path", "next", "--parallel", "1"]),
            // The Link header: an early page from the head.
            (["--style", "page"], ["--paginate", "link", "--items-path", "results", "--parallel", "1"]),
        ])
    func noRequestForACycle(server style: [String], client: [String]) async throws {
        let server = try FixtureServer(
            ["--count", "500", "--page-size", "100", "--seed", "7", "--fault", "cycle@3"] + style)
        let run = try await Run(["fetch", "--all", "--format", "ids", server.url] + client)
        let log = server.stop()
        #expect(run.status == 65, "\(style): \(run.stderr)")
        #expect(run.stderr.contains("page 3"), "\(style): \(run.stderr)")
        #expect(run.stderr.lowercased().contains("cycle"), "\(style): \(run.stderr)")
        #expect(FetchCommandTests.requests(log).count == 3, "\(style): \(log)")
    }
}
