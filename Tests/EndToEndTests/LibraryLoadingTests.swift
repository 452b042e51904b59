import Foundation
import TestSupport
import Testing

/// libcurl and libpq are loaded by the first request and the first connection, not when notes-page starts:
/// what the dynamic linker reports (`LD_DEBUG=files`, every library it initializes, those opened later
/// included) for a decode, a fetch and a fetch into Postgres, and the error when the library is not there.
@Suite(
    "Libraries loaded when first needed",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct LibraryLoadingTests {
    /// The libraries the dynamic linker initialized during `run`, by file name (`libcurl.so.4`).
    static func initialized(_ run: Run) -> Set<String> {
        Set(
            run.stderr.split(separator: "\n").compactMap { line in
                line.range(of: "calling init: ").map { String(line[$0.upperBound...].split(separator: "/").last ?? "") }
            })
    }

    @Test("decode maps neither libcurl nor libpq; fetch loads libcurl, and --postgres libpq")
    func loadedWhenNeeded() async throws {
        let decode = try await Run(
            ["decode", "valid-page.json", "--format", "none"], environment: ["LD_DEBUG": "files"])
        #expect(decode.status == 0, "\(decode.stderr)")
        let decoded = Self.initialized(decode)
        #expect(decoded.contains("libyajl.so.2"), "the linker's report is read: \(decoded.sorted())")
        #expect(!decoded.contains("libcurl.so.4") && !decoded.contains("libpq.so.5"), "\(decoded.sorted())")

        let server = try FixtureServer(["--count", "30", "--page-size", "10", "--quiet"])
        defer { server.stop() }
        let fetch = try await Run(
            ["fetch", "--all", "--format", "none", server.url], environment: ["LD_DEBUG": "files"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let fetched = Self.initialized(fetch)
        #expect(fetched.contains("libcurl.so.4") && !fetched.contains("libpq.so.5"), "\(fetched.sorted())")

        // No server listens on port 1: libpq is loaded, then the connection is refused.
        let postgres = try await Run(
            ["fetch", "--all", "--postgres", "postgresql://127.0.0.1:1/none?connect_timeout=2", server.url],
            environment: ["LD_DEBUG": "files"])
        #expect(postgres.status == 69, "\(postgres.stderr)")
        #expect(Self.initialized(postgres).contains("libpq.so.5"), "\(Self.initialized(postgres).sorted())")
    }

    @Test("A libcurl that cannot be loaded is exit 69, saying which file and why, before any request")
    func missingLibcurl() async throws {
        let server = try FixtureServer(["--count", "30", "--page-size", "10"])
        let missing = try await Run(
            ["fetch", "--all", server.url], environment: ["NOTES_PAGE_LIBCURL": "/nonexistent/libcurl.so.4"])
        #expect(missing.status == 69)
        #expect(
            missing.stderr.hasPrefix(
                "Error: libcurl could not be loaded: /nonexistent/libcurl.so.4: cannot open shared object file"),
            "\(missing.stderr)")
        #expect(missing.stderr.contains("NOTES_PAGE_LIBCURL"))
        // Another library in its place: the first function it lacks.
        let other = try await Run(["fetch", "--all", server.url], environment: ["NOTES_PAGE_LIBCURL": "libyajl.so.2"])
        #expect(other.status == 69)
        #expect(other.stderr.hasPrefix("Error: libyajl.so.2 is not libcurl: it has no curl_"), "\(other.stderr)")
        let log = server.stop()
        #expect(!log.contains("GET "), "no request went out: \(log)")
    }

    @Test("A libpq that cannot be loaded is exit 69, saying which file and why")
    func missingLibpq() async throws {
        let server = try FixtureServer(["--count", "30", "--page-size", "10", "--quiet"])
        defer { server.stop() }
        let run = try await Run(
            ["fetch", "--all", "--postgres", "postgresql://127.0.0.1:1/none", server.url],
            environment: ["NOTES_PAGE_LIBPQ": "/nonexistent/libpq.so.5"])
        #expect(run.status == 69)
        #expect(
            run.stderr.contains("libpq could not be loaded: /nonexistent/libpq.so.5: cannot open shared object file"),
            "\(run.stderr)")
        #expect(run.stderr.contains("NOTES_PAGE_LIBPQ"))
    }
}
