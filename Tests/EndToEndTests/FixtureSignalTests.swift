import Foundation
import TestSupport
import Testing

/// `notes-page fetch --all URL` with no options against `Tools/fixture-server/notes-server.mjs` in the styles that say
/// where the next page is the way a real server does (Kinto's `Next-Page`, pygeoapi's `links`,
/// flask-smorest's `X-Pagination`, Litestar's echoes, Eve's `_links` and `_id`), records without a title:
/// the same 250 notes, each once, as the contract style serves them, and each page asked for once.
@Suite(
    "Every pagination signal against the fixture server, with no options",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct FixtureSignalTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7", "--no-titles"]

    /// The style, and words of the walk's one `Pagination:` line.
    static let styles: [(style: String, says: String)] = [
        ("next-page", "auto follows the Next-Page header, a URL"),
        ("ogc", "next at 'links[rel=next]', total at 'numberMatched' (250)"),
        ("x-pagination", "X-Pagination's next page, a page number sent as ?page="),
        ("page-echo", "'current_page' of 'total_pages' (3), page numbers sent as ?current_page="),
        ("offset-echo", "'offset' before 'total' (250), offsets sent as ?offset="),
        ("eve", "ids at '_id', next at '_links.next.href'"),
    ]

    /// The ids of the 250 notes (string ids, `n0` to `n249`), in order.
    static func expected() -> [String] { (0..<250).map { "n\($0)" } }

    @Test("Every style walks with no options: every note once, in order, each page asked for once")
    func walks() async throws {
        let expected = Self.expected()
        #expect(expected.count == 250)
        for (style, says) in Self.styles {
            let server = try FixtureServer(Self.notes + ["--style", style])
            let run = try await Run(["fetch", "--all", "--format", "ids", server.url])
            // One page after another, so that pages asked for ahead in parallel are not counted.
            let sequence = try await Run(["fetch", "--all", "--format", "none", "--parallel", "1", server.url])
            let log = server.stop()
            #expect(sequence.status == 0 && sequence.stderr.contains("250 notes, 3 pages"), "\(sequence.stderr)")
            #expect(run.status == 0, "\(style): \(run.stderr)")
            #expect(run.stdout.split(separator: "\n").map(String.init) == expected, "\(style): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Pagination: ") }
            #expect(lines.count == 1 && lines[0].contains(says), "\(style): \(run.stderr)")
            // Three pages of 100, 100 and 50, asked for once each by each run: no request to find the way.
            #expect(FetchCommandTests.requests(log).count == 6, "\(style): \(log)")
        }
    }

    @Test("Eve with no total: a next link on every page, and the walk ends at the empty page")
    func eveWithoutTotal() async throws {
        let server = try FixtureServer(Self.notes + ["--style", "eve", "--totals", "none"])
        let run = try await Run(["fetch", "--all", "--format", "ids", server.url])
        server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == Self.expected(), "\(run.stderr)")
    }

    @Test("Kinto's Next-Page named to --paginate header is followed as a URL; a total above the notes is 65")
    func nextPageNamed() async throws {
        let server = try FixtureServer(Self.notes + ["--style", "next-page"])
        let run = try await Run([
            "fetch", "--all", "--format", "ids", "--paginate", "header", "--next-header", "Next-Page", server.url,
        ])
        let log = server.stop()
        #expect(run.status == 0 && run.stdout.split(separator: "\n").count == 250, "\(run.stderr)")
        #expect(!log.contains("cursor="), "\(log)")
        // The server announces 10 notes more than it has.
        let lying = try FixtureServer(Self.notes + ["--style", "next-page", "--total-lie", "10"])
        let short = try await Run(["fetch", "--all", "--format", "ids", lying.url])
        lying.stop()
        #expect(short.status == 65, "\(short.stderr)")
        #expect(short.stderr.contains("the server announced 260 notes"), "\(short.stderr)")
    }

    @Test("DynamoDB's Scan: an x-amz-json body, LastEvaluatedKey carried as JSON into the next POST")
    func dynamoDB() async throws {
        let server = try FixtureServer(Self.notes + ["--style", "dynamodb"])
        let run = try await Run([
            "fetch", "--all", "--format", "ids", "--method", "POST", "--body", #"{"TableName":"notes","Limit":100}"#,
            "--body-cursor", "ExclusiveStartKey", "--next-path", "LastEvaluatedKey", "--items-path", "Items",
            "--header", "Content-Type: application/x-amz-json-1.0", server.url,
        ])
        server.stop()
        let expected = Self.expected()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == expected, "\(run.stderr)")
    }
}
