import Foundation
import TestSupport
import Testing

/// `notes-page fetch` against the fixture server behaving as real servers do: stalls, resets on kept-alive
/// connections, rate limits, compression.
@Suite(
    "Real servers: time, retries, rate limits, compression",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct RealServerTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7"]
    static let sanitizer = Run.sanitizer

    /// The targets, connection numbers and arrival times (ms since the server started) of `log`'s requests.
    static func arrivals(_ log: String) -> [(target: String, connection: Int, time: Int)] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("GET /") else { return nil }
            let fields = line.split(separator: " ")
            let connection = fields.first { $0.hasPrefix("c=") }.flatMap { Int($0.dropFirst(2)) }
            let time = fields.first { $0.hasPrefix("t=") }.flatMap { Int($0.dropFirst(2)) }
            guard let connection, let time else { return nil }
            return (String(fields[1]), connection, time)
        }
    }

    @Test("A server that sends a head and a few bytes, then nothing: --timeout 2 gives up within 3 s")
    func stall() async throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--fault", "stall:10@2"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", "--timeout", "2", "--retries", "0", server.url, "-o", "/dev/null"])
        let elapsed = run.seconds
        #expect(run.status == 69, "\(run.stderr)")
        let line = run.messages.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            try Regex(#"Error: page 2 \(cursor [^)]+\): the server is unavailable after 1 attempt: no data for 2 s"#)
                .wholeMatch(in: line) != nil, "\(run.stderr)")
        #expect(elapsed >= 2 && elapsed < (Self.sanitizer == nil ? 3.5 : 6), "gave up after \(elapsed) s")
    }

    @Test("--retries 0 against a reset: the server sees one request for the page, and the message says one")
    func resetCounted() async throws {
        let server = try FixtureServer(Self.notes + ["--fault", "reset@2"])
        let run = try await Run(["fetch", "--all", "--retries", "0", server.url, "-o", "/dev/null"])
        let log = server.stop()
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.messages.contains("the server is unavailable after 1 attempt: "), "\(run.stderr)")
        let page2 = Self.arrivals(log).filter { $0.target != "/notes" }
        #expect(page2.count == 1, "\(log)")

        // With --retries 2, at most three requests of the page reach the server, libcurl's re-sends included.
        let again = try FixtureServer(Self.notes + ["--fault", "reset@2"])
        let three = try await Run(["fetch", "--all", "--retries", "2", again.url, "-o", "/dev/null"])
        let log3 = again.stop()
        #expect(three.status == 69)
        let sent = Self.arrivals(log3).filter { $0.target != "/notes" }.count
        #expect(sent <= 3, "\(log3)")
        #expect(three.messages.contains("the server is unavailable after \(sent) attempts: "), "\(three.stderr)")
    }

    @Test(
        "A spent rate limit is a wait, then the page again",
        arguments: ["ratelimit-github:1@2x1", "ratelimit-ietf:1@2x1", "ratelimit-retry-after:1@2x1"]
    )
    func rateLimit(fault: String) async throws {
        let server = try FixtureServer(Self.notes + ["--fault", fault])
        let run = try await Run(["fetch", "--all", server.url, "--format", "ids"])
        let log = server.stop()
        #expect(run.status == 0, "\(fault): \(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(run.stderr.contains(", resuming in "), "\(fault): \(run.stderr)")
        let page2 = Array(Self.arrivals(log).filter { $0.target.hasPrefix("/notes?cursor=") }.prefix(2))
        try #require(page2.count == 2, "\(log)")
        #expect(page2[1].time - page2[0].time >= 900, "\(log)")
    }

    @Test("A 403 that is not a rate limit is still exit 77; a limit that resets after --max-wait is 69 at once")
    func notRateLimit() async throws {
        let plain = try FixtureServer(Self.notes + ["--quiet", "--fault", "403@2"])
        defer { plain.stop() }
        #expect(try await Run(["fetch", "--all", plain.url, "-o", "/dev/null"]).status == 77)

        let long = try FixtureServer(Self.notes + ["--quiet", "--fault", "ratelimit-github:600@2"])
        defer { long.stop() }
        let run = try await Run(["fetch", "--all", "--max-wait", "60", long.url, "-o", "/dev/null"])
        #expect(run.status == 69)
        #expect(run.seconds < 5)
        #expect(run.messages.contains("longer than --max-wait 60 s: the limit resets at "), "\(run.stderr)")
    }

    @Test("--rate 5 spaces the requests the server sees by a fifth of a second at least, pages in parallel too")
    func rate() async throws {
        let server = try FixtureServer(["--count", "600", "--page-size", "100", "--seed", "7", "--style", "offset"])
        let run = try await Run([
            "fetch", "--all", "--rate", "5", server.url, "-o", "/dev/null", "--paginate", "offset", "--page-size",
            "100", "--items-path", "results", "--total-path", "count", "--parallel", "4",
        ])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let times = Self.arrivals(log).map(\.time).sorted()
        #expect(times.count == 6, "\(log)")
        // The client spaces the starts by 200 ms (tested exactly in process, FetchPageTests); what the server
        // logs also carries each request's own way there (a new connection's set-up, a busy machine), up to
        // `way` ms here. A gap may look shorter by that much, and so may the whole run, when the first request
        // was the slow one: 1,000 ms of spacing is at least 900 at the server, where no limit would give ~0.
        let way = 100
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(later - earlier >= 200 - way, "\(times)") }
        #expect(times.last! - times.first! >= 5 * 200 - way, "\(times)")
    }

    @Test("A gzip page is inflated, counted as decoded bytes, and the summary says the bytes on the wire")
    func compressed() async throws {
        let plain = try FixtureServer(Self.notes + ["--quiet"])
        let expected = try await Run(["fetch", "--all", plain.url])
        plain.stop()
        let server = try FixtureServer(Self.notes + ["--quiet", "--compress", "gzip"])
        defer { server.stop() }
        let run = try await Run(["fetch", "--all", server.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected.stdout)
        let summary = try #require(
            try Regex(#"250 notes, 3 pages, (\d+) bytes \((\d+) on the wire\), "#).firstMatch(in: run.messages))
        let decoded = Int(summary.output[1].substring ?? "") ?? 0
        let wire = Int(summary.output[2].substring ?? "") ?? 0
        #expect(wire > 0 && wire < decoded / 2, "\(run.messages)")
        #expect(expected.messages.hasPrefix("250 notes, 3 pages, \(decoded) bytes, "))
    }

    @Test("A gzip bomb is refused at --max-page-bytes of inflated bytes, memory flat")
    func bomb() async throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--fault", "bomb:1073741824"])
        defer { server.stop() }
        let run = try await Run(
            ["/usr/bin/time", "-f", "rss %M", "--"],
            wrapping: [
                "fetch", "--all", "--retries", "0", "--max-page-bytes", "8M", "--max-string-bytes", "128K",
                server.url, "-o", "/dev/null",
            ])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("document longer than 8388608 bytes (byte 8388608)"), "\(run.stderr)")
        let rss = run.stderr.split(separator: "\n").last.flatMap { Int($0.dropFirst(4)) } ?? Int.max
        if Self.sanitizer == nil {
            #expect(rss < 64 * 1024, "peak \(rss) KB")
            #expect(run.seconds < 10)
        }
    }
}

@Suite(
    "HTTPS end to end",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped"),
    .enabled(
        if: TestCertificates.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true",
        "openssl is not installed: HTTPS tests skipped")
)
struct HTTPSTests {
    @Test("Pages over HTTPS with --cacert; the token stays with the endpoint's origin across a redirect")
    func pages() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let token = "tok-\(UUID().uuidString)"
        let tls = ["--tls-cert", certificates.certificate, "--tls-key", certificates.key]
        let server = try FixtureServer(
            RealServerTests.notes + tls + ["--fault", "auth", "--fault", "redirect@2"],
            environment: ["NOTES_SERVER_TOKEN": token])
        let run = try await Run(
            ["fetch", "--all", "--cacert", certificates.ca, server.url, "--format", "ids"],
            environment: ["NOTES_TOKEN": token])
        let log = server.stop()
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(log.contains("[redirect target] GET /notes"), "\(log)")
        #expect(!run.stderr.contains(token) && !log.contains(token))
    }

    @Test("Pages over HTTP/2: every note once, each page asked for once, the next ones early on a second connection")
    func http2() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try FixtureServer(
            ["--count", "250", "--page-size", "10", "--seed", "7", "--http2"]
                + ["--tls-cert", certificates.certificate, "--tls-key", certificates.key])
        let run = try await Run(["fetch", "--all", "--cacert", certificates.ca, server.url, "--format", "ids"])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(run.stdout.split(separator: "\n")).count == 250)
        let gets = log.split(separator: "\n").filter { $0.hasPrefix("GET /notes") }
        #expect(gets.count == 25, "\(log)")
        #expect(gets.allSatisfy { $0.hasSuffix(" h2") }, "\(log)")
        let connections = Set(gets.compactMap { $0.split(separator: " ").first { $0.hasPrefix("c=") } })
        #expect(connections.count == 2, "the next pages went early on the second handle's connection: \(log)")
    }

    @Test(
        "A certificate from another authority, or for another host name, fails at once and is not retried (69)",
        arguments: ["other-authority", "other-host"]
    )
    func refused(problem: String) async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        var arguments = RealServerTests.notes + ["--tls-cert", certificates.certificate, "--tls-key", certificates.key]
        // 127.0.0.2 is this machine too, but the certificate names only localhost and 127.0.0.1.
        if problem == "other-host" { arguments += ["--host", "127.0.0.2"] }
        let server = try FixtureServer(arguments)
        let authority = problem == "other-authority" ? certificates.otherCA : certificates.ca
        let run = try await Run(["fetch", "--all", "--cacert", authority, server.url, "-o", "/dev/null"])
        let log = server.stop()
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.messages.contains("the TLS handshake failed, not retried: "), "\(run.stderr)")
        #expect(run.seconds < 5)
        #expect(!log.contains("GET /notes"), "\(log)")
    }
}
