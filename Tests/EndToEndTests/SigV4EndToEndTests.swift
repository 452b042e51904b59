import Foundation
import TestSupport
import Testing

/// `Tools/apps/sigv4/server.py`: notes behind AWS Signature Version 4, each request's signature computed
/// again by botocore and compared.
final class SigV4Server: PythonAppServer {
    static let isAvailable = imports(["botocore"])

    init(count: Int) throws {
        try super.init(script: "Tools/apps/sigv4/server.py", count: count, [])
    }
}

/// `notes-page sync` with `auth: type: aws-sigv4`: libcurl signs each request, and a real implementation
/// of the scheme (botocore) agrees with every signature.
@Suite(
    "sync with AWS Signature Version 4 against botocore's check",
    .enabled(if: SigV4Server.isAvailable, "python3 does not import botocore (make deps installs boto3): skipped"),
    .enabled(if: SQLiteShell.isAvailable, "sqlite3 is not installed (apt-get install sqlite3): skipped")
)
struct SigV4EndToEndTests {
    static func source(_ server: SigV4Server) -> String {
        """
        base-url: \(server.url)/
        auth:
          type: aws-sigv4
          region: us-east-1
          service: execute-api
          access-key-id: ${AWS_ACCESS_KEY_ID}
          secret-access-key: ${AWS_SECRET_ACCESS_KEY}
        resources:
          - name: notes
            path: notes
        """
    }

    @Test("Every page signed as botocore signs it; the wrong secret is refused (exit 77); the secret shown nowhere")
    func signed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try SigV4Server(count: 1000)
        try Files.write(Self.source(server), to: scratch.path("api.yaml"))
        let database = scratch.path("api.db")
        let secret = "notes-page/secret+KEY"
        let run = try await Run(
            ["sync", scratch.path("api.yaml"), "--sqlite", database],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDNOTESPAGE", "AWS_SECRET_ACCESS_KEY": secret])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM notes") == "990|990\n")
        let wrong = try await Run(
            ["sync", scratch.path("api.yaml"), "--sqlite", scratch.path("wrong.db")],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDNOTESPAGE", "AWS_SECRET_ACCESS_KEY": "not-the-secret"])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("session expired (HTTP 403)"), "\(wrong.stderr)")
        let log = server.stop()
        let verdicts = log.split(separator: "\n").compactMap { $0.split(separator: " sigv4=").last.map(String.init) }
        #expect(verdicts.filter { $0 == "ok" }.count >= 10, "\(log)")  // 10 pages, and any asked ahead
        #expect(verdicts.filter { $0 != "ok" } == ["a signature that does not match"], "\(log)")
        for text in [run.stderr, wrong.stderr, log, try SQLiteShell.query(database, ".dump")] {
            #expect(!text.contains(secret) && !text.contains("not-the-secret"))
        }
    }
}
