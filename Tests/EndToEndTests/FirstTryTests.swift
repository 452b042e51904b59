import Foundation
import TestSupport
import Testing

/// A new user's first try: `notes-page fetch --all URL` with no options at all against real server
/// software run with its own defaults (the apps of `Tools/`), each of which says how to reach its next
/// page in its own way: a `Next-Page` header (Kinto), `X-Pagination` (flask-smorest), `_links.next.href`
/// relative without a slash and `_id` ids (Eve), a count and nothing else (django-ninja, Wagtail),
/// `meta.next` (tastypie), page and offset echoes and a bare cursor (Litestar, fastapi-pagination), a
/// `links` array with `rel: next` (pygeoapi). Each must give every record once, or fail.
@Suite("A first try with no options, against real frameworks")
struct FirstTryTests {
    /// One endpoint of one app, and what its first page must make the walk say.
    struct Endpoint: Sendable, CustomStringConvertible {
        /// The app's script, relative to the repository.
        var script: String
        /// The Python modules it needs.
        var modules: Set<String>
        var path: String
        /// The record member that holds the note's number (its id, unless the framework makes its own).
        var number = "id"
        /// Words of the `Pagination:` line.
        var says: [String]
        var count = 2000

        var description: String { "\(script.split(separator: "/")[1]) \(path)" }
    }

    static let endpoints: [Endpoint] = [
        Endpoint(
            script: "Tools/apps/kinto/server.py", modules: ["kinto"],
            path: "/v1/buckets/notes/collections/notes/records",
            number: "number", says: ["items at 'data'", "follows the Next-Page header, a URL"]),
        Endpoint(
            script: "Tools/apps/smorest/server.py", modules: ["flask_smorest"], path: "/notes",
            says: ["X-Pagination's next page, a page number sent as ?page="]),
        Endpoint(
            script: "Tools/apps/eve/server.py", modules: ["eve", "mongomock"], path: "/notes", number: "number",
            says: ["items at '_items'", "ids at '_id'", "next at '_links.next.href'"]),
        Endpoint(
            script: "Tools/apps/django-apis/server.py", modules: ["ninja"], path: "/ninja/notes",
            says: ["total at 'count' (1980)", "offsets sent as ?offset="]),
        Endpoint(
            script: "Tools/apps/django-apis/server.py", modules: ["tastypie"], path: "/tastypie/api/v1/note/",
            says: ["items at 'objects'", "next at 'meta.next'"]),
        Endpoint(
            script: "Tools/apps/django-apis/server.py", modules: ["wagtail"], path: "/wagtail/api/v2/pages/",
            says: ["total at 'meta.total_count' (1980)", "offsets sent as ?offset="]),
        Endpoint(
            script: "Tools/apps/litestar/server.py", modules: ["litestar"], path: "/classic",
            says: ["'current_page' of 'total_pages' (20), page numbers sent as ?current_page="]),
        Endpoint(
            script: "Tools/apps/litestar/server.py", modules: ["litestar"], path: "/offset",
            says: ["'offset' before 'total' (1980), offsets sent as ?offset="]),
        Endpoint(
            script: "Tools/apps/litestar/server.py", modules: ["litestar"], path: "/cursor",
            says: ["next at 'cursor'", "a cursor sent as ?cursor="]),
        Endpoint(
            script: "Tools/apps/pygeoapi/server.py", modules: ["pygeoapi"], path: "/collections/notes/items?f=json",
            says: ["items at 'features'", "next at 'links[rel=next]'", "total at 'numberMatched' (1980)"]),
        Endpoint(
            script: "Tools/apps/fastapi/server.py", modules: ["fastapi_pagination"], path: "/page",
            says: ["'page' of 'pages'", "page numbers sent as ?page="]),
        Endpoint(
            script: "Tools/apps/fastapi/server.py", modules: ["fastapi_pagination"], path: "/limit-offset",
            says: ["'offset' before 'total'"]),
        Endpoint(
            script: "Tools/apps/drf/server.py", modules: ["rest_framework_json_api"], path: "/jsonapi/",
            says: ["items at 'data'", "next at 'links.next'"]),
        Endpoint(
            script: "Tools/apps/datasette/server.py", modules: ["datasette"], path: "/notes/notes.json?_shape=objects",
            says: ["items at 'rows'", "next at 'next_url'"]),
    ]

    /// The numbers of an NDJSON output's records, in order (`nil` for a line without an integer there).
    static func numbers(ofNDJSON text: String, member: String) -> [Int?] {
        text.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            // JSON:API writes its ids as strings of digits.
            return object?[member] as? Int ?? (object?[member] as? String).flatMap { Int($0) }
        }
    }

    @Test("Every record once, with no options", arguments: endpoints)
    func firstTry(_ endpoint: Endpoint) async throws {
        guard PythonAppServer.imports(endpoint.modules) else {
            print("python3 does not import \(endpoint.modules.sorted()): \(endpoint) skipped (make deps installs it)")
            return
        }
        let server = try PythonAppServer(script: endpoint.script, count: endpoint.count, ["--quiet"])
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Run(["fetch", "--all", server.url + endpoint.path, "-o", scratch.path("out.ndjson")])
        let written = Self.numbers(
            ofNDJSON: (try? scratch.read("out.ndjson")) ?? "", member: endpoint.number)
        PythonAppServer.expectEachOnce(
            written, expected: PythonAppServer.ids(count: endpoint.count), run, context: "\(endpoint)",
            sourceLocation: #_sourceLocation)
        let lines = PythonAppServer.pagination(run.stderr)
        #expect(lines.count == 1, "one Pagination: line: \(run.stderr)")
        for words in endpoint.says {
            #expect(lines.first?.contains(words) == true, "\(endpoint): '\(words)' in \(run.stderr)")
        }
    }

    @Test("DynamoDB's Scan as moto serves it: x-amz-json, and LastEvaluatedKey carried as JSON into the body")
    func dynamoDB() async throws {
        guard PythonAppServer.imports(["moto", "boto3"]) else {
            print("python3 does not import moto and boto3: the DynamoDB test skipped (make deps installs them)")
            return
        }
        let server = try PythonAppServer(script: "Tools/apps/moto/server.py", count: 2000, ["--quiet"])
        defer { server.stop() }
        let run = try await Run([
            "fetch", "--all", "--format", "ids", "--method", "POST", "--body", #"{"TableName":"notes","Limit":100}"#,
            "--body-cursor", "ExclusiveStartKey", "--next-path", "LastEvaluatedKey", "--items-path", "Items",
            "--id-path", "id.N", "--header", "X-Amz-Target: DynamoDB_20120810.Scan", "--header",
            "Content-Type: application/x-amz-json-1.0", "--header",
            "Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request",
            server.url + "/",
        ])
        let ids = run.stdout.split(separator: "\n").map { Int($0) }
        PythonAppServer.expectEachOnce(
            ids, expected: PythonAppServer.ids(count: 2000), run, context: "DynamoDB Scan",
            sourceLocation: #_sourceLocation)
        #expect(run.stderr.contains("20 pages"), "\(run.stderr)")
    }
}
