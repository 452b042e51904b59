import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import TestSupport
import Testing

@testable import NotesCLI

/// `auth: type: api-key` with `query`: the key in a query parameter of each request to the source's
/// origin, and nowhere else: not in a request to another origin, not in any output or table, even when the
/// server echoes it in its next links.
@Suite("sync with an API key in the query, in process")
struct SyncQueryKeyTests {
    static let key = "k3y-\(UUID().uuidString)"

    @Test("The key goes with each request to the source's origin, once; a next link's copy is kept out of every URL")
    func queryKey() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Page 1 echoes the key in its next link, page 2 sends the walk to another origin with it.
        let transport = MemoryTransport { request, _ in
            if request.url.contains("127.0.0.2") {
                return .json(#"{"notes":[{"id":"c","title":"c"}],"next":null}"#)
            }
            if request.url.contains("cursor=2") {
                return .json(
                    #"{"notes":[{"id":"b","title":"b"}],"next":"http://127.0.0.2:9/api/notes?cursor=3&api_key=\#(Self.key)"}"#
                )
            }
            return .json(
                #"{"notes":[{"id":"a","title":"a"}],"next":"http://127.0.0.1:9/api/notes?api_key=\#(Self.key)&cursor=2"}"#
            )
        }
        let source = """
            base-url: http://127.0.0.1:9/api/
            auth:
              type: api-key
              query: api_key
              key: ${API_KEY}
            resources:
              - name: notes
                path: notes?limit=1
            """
        let (status, output) = try await runSync(
            source, in: scratch, transport: transport, environment: ["API_KEY": Self.key])
        #expect(status == .success, "\(output)")
        #expect(
            transport.requests.map(\.url) == [
                "http://127.0.0.1:9/api/notes?limit=1&api_key=\(Self.key)",
                "http://127.0.0.1:9/api/notes?cursor=2&api_key=\(Self.key)",
                "http://127.0.0.2:9/api/notes?cursor=3",
            ])
        #expect(!output.contains(Self.key))
        #expect(!(try SQLiteShell.query(scratch.path("api.db"), ".dump")).contains(Self.key))
        #expect(try SQLiteShell.query(scratch.path("api.db"), "SELECT count(*) FROM notes") == "3\n")
    }

    @Test(
        "Refused before any request: a header and a query both, a name that cannot be a parameter's, a key written out")
    func refusals() async throws {
        func error(_ auth: String, base: String = "https://api.example.com/") -> String? {
            do {
                let source = "base-url: \(base)\nauth:\n\(auth)\nresources:\n  - name: notes\n    path: notes\n"
                _ = try SyncCommandTests.sync(source, environment: ["K": "x"])
                return nil
            } catch {
                return (error as? UsageError)?.message ?? "\(error)"
            }
        }
        #expect(
            error("  type: api-key\n  query: k\n  header: X-Key\n  key: ${K}")?.contains(
                "a 'header' or a 'query', not both")
                == true)
        #expect(
            error("  type: api-key\n  query: 'a&b'\n  key: ${K}")?.contains("cannot name a query parameter") == true)
        #expect(error("  type: api-key\n  query: k\n  key: k3y")?.contains("the key is written in the source") == true)
    }

    @Test("aws-sigv4: requests to the source's origin are signed, one to another origin is not")
    func signedOnOrigin() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let transport = MemoryTransport { request, _ in
            request.url.contains("127.0.0.2")
                ? .json(#"{"notes":[{"id":"b","title":"b"}],"next":null}"#)
                : .json(#"{"notes":[{"id":"a","title":"a"}],"next":"http://127.0.0.2:9/api/notes?cursor=2"}"#)
        }
        let source = """
            base-url: http://127.0.0.1:9/api/
            auth:
              type: aws-sigv4
              region: eu-west-1
              service: execute-api
              access-key-id: ${ID}
              secret-access-key: ${SECRET}
            resources:
              - name: notes
                path: notes
            """
        let (status, output) = try await runSync(
            source, in: scratch, transport: transport, environment: ["ID": "AKID", "SECRET": "s3cret"])
        #expect(status == .success, "\(output)")
        #expect(
            transport.requests.map(\.awsSigV4) == [
                AWSSigV4(
                    region: "eu-west-1", service: "execute-api", accessKeyID: Secret("AKID"),
                    secretAccessKey: Secret("s3cret")),
                nil,
            ])
        #expect(SyncCommandTests.error(source.replacing("region: eu-west-1", with: "region: EU West")) != nil)
    }
}
