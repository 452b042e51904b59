import Foundation
import TestSupport
import Testing

/// A walk that follows a URL on another origin (a redirect, a next URL) sends no credentials there, and
/// says so once.
@Suite(
    "Another origin: followed without credentials, said once",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct OriginTests {
    @Test("Every page redirected to another port: the notes, and one line saying no credentials go there")
    func saidOnce() async throws {
        let server = try FixtureServer(["--count", "250", "--page-size", "100", "--seed", "7", "--fault", "redirect"])
        let run = try await Run(["fetch", "--all", "--format", "ids", server.url])
        let quiet = try await Run(["fetch", "--all", "--quiet", "--format", "ids", server.url])
        server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("another origin than the endpoint's") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.hasPrefix("The walk follows a URL on http://127.0.0.1:") == true, "\(run.stderr)")
        #expect(lines.first?.hasSuffix(": no credentials go there") == true, "\(run.stderr)")
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }
}
