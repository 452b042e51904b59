import ArgumentParsing
import Foundation
import NotesFetch
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// `sync`'s source turned into `fetch` commands, in process: the credentials each kind of `auth` sends,
/// and the ones that are refused, before any request.
@Suite("sync's commands, in process")
struct SyncCommandTests {
    /// The sync of `source` (written to a scratch file) into a SQLite file, with `environment`.
    static func sync(_ source: String, environment: [String: String] = [:]) throws -> SyncCommand {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Files.write(source, to: scratch.path("api.yaml"))
        let parsed = try ParsedArguments(
            [scratch.path("api.yaml"), "--sqlite", scratch.path("api.db")], spec: SyncCommand.spec)
        return try SyncCommand(parsed, environment: environment)
    }

    static func source(auth: String) -> String {
        "base-url: https://api.example.com/\nauth:\n\(auth)\nresources:\n  - name: notes\n    path: notes\n"
    }

    /// The error `sync` of `source` gives.
    static func error(_ source: String, environment: [String: String] = [:]) -> String? {
        do {
            _ = try sync(source, environment: environment)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("basic: Authorization: Basic of the username and the password from the environment, no token")
    func basic() throws {
        let command = try Self.sync(
            Self.source(auth: "  type: basic\n  username: ${API_USER}\n  password: ${API_PASSWORD}"),
            environment: ["API_USER": "ann", "API_PASSWORD": "pa:ss", "NOTES_TOKEN": "not-this"])
        let configuration = try #require(command.resources.first).command.configuration
        #expect(
            configuration.headers == [
                HTTPHeader("Authorization", "Basic " + Data("ann:pa:ss".utf8).base64EncodedString())
            ])
        #expect(configuration.token == nil)
    }

    @Test("api-key: the key in the header named, X-Api-Key by default, from a file")
    func apiKey() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Files.write("k3y\n", to: scratch.path("key"))
        let named = try Self.sync(
            Self.source(auth: "  type: api-key\n  header: Private-Token\n  key: '@\(scratch.path("key"))'"))
        #expect(
            try #require(named.resources.first).command.configuration.headers == [HTTPHeader("Private-Token", "k3y")])
        let plain = try Self.sync(Self.source(auth: "  type: api-key\n  key: ${KEY}"), environment: ["KEY": "k"])
        #expect(try #require(plain.resources.first).command.configuration.headers == [HTTPHeader("X-Api-Key", "k")])
    }

    @Test("bearer: the token from the environment; no auth: NOTES_TOKEN is not sent")
    func bearer() throws {
        let bearer = try Self.sync(Self.source(auth: "  type: bearer\n  token: ${T}"), environment: ["T": "t0k"])
        #expect(try #require(bearer.resources.first).command.configuration.token?.currentToken()?.value == "t0k")
        let none = try Self.sync(
            "resources:\n  - name: notes\n    path: https://api.example.com/notes\n", environment: ["NOTES_TOKEN": "t"])
        #expect(try #require(none.resources.first).command.configuration.token == nil)
    }

    /// Two servers whose pages can only both be served when the resources are walked at once: `a` holds its
    /// page until `b` has had a request (for at most 5 s), and `b` answers only while `a` has answered
    /// nothing (else 503). One after another, `a` is answered after its 5 s and `b` then refuses.
    static func entangled() throws -> (a: ScriptedServer, b: ScriptedServer) {
        let page = { @Sendable (id: String) in
            ScriptedServer.json(#"{"notes":[{"id":"\#(id)","title":"t"}],"next_cursor":null}"#)
        }
        let bSeen = Mutex(false)
        let a = try ScriptedServer { _ in
            [.waitUntil { _, _ in bSeen.withLock { $0 } }, .send(page("a1"))]
        }
        let b = try ScriptedServer { [a] _ in
            guard a.answeredCount == 0 else {
                return [.send(ScriptedServer.json("{}", status: "503 Service Unavailable"))]
            }
            bSeen.withLock { $0 = true }
            return [.send(page("b1"))]
        }
        return (a, b)
    }

    /// Runs the sync of two resources, `a` and `b`, with `--parallel width`, its standard error in `console`.
    static func runEntangled(width: Int, console: Console) async throws -> ArgumentParsing.ExitStatus {
        let (a, b) = try entangled()
        defer {
            a.close()
            b.close()
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = """
            defaults:
              retries: 0
            resources:
              - name: a
                path: \(a.origin)/a
              - name: b
                path: \(b.origin)/b
            """
        try Files.write(source, to: scratch.path("api.yaml"))
        let parsed = try ParsedArguments(
            [scratch.path("api.yaml"), "-o", scratch.path("out"), "--parallel", "\(width)"], spec: SyncCommand.spec)
        let command = try SyncCommand(parsed, environment: [:])
        return await command.run(cancellation: CancellationFlag()) { fetch in
            var runtime = FetchRuntime.live(caFile: nil, urlSession: nil)
            runtime.report = { console.write($0) }
            runtime.showsProgress = false
            return runtime
        }
    }

    @Test("--parallel 2 walks the resources at once, each line prefixed with its resource; one at a time cannot")
    func parallel() async throws {
        let console = Console()
        #expect(try await Self.runEntangled(width: 2, console: console) == .success, "\(console.output)")
        let lines = console.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("[a] Resource 'a': http://127.0.0.1:") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("[b] 1 note, 1 page, ") }, "\(lines)")
        #expect(
            syncSummary(console.output) == [
                "Sync: 2 of 2 resources complete", "  a  complete           1 page, 1 note, S s",
                "  b  complete           1 page, 1 note, S s",
            ])

        let sequential = Console()
        #expect(try await Self.runEntangled(width: 1, console: sequential) == .unavailable, "\(sequential.output)")
        #expect(
            syncSummary(sequential.output) == [
                "Sync: 1 of 2 resources complete", "  a  complete           1 page, 1 note, S s",
                "  b  failed (exit 69)   0 pages, 0 notes, S s",
            ], "\(sequential.output)")
    }

    @Test(
        "A secret written out, one not set, or a value with a line break: refused, the value not shown",
        arguments: [
            ("  type: basic\n  username: ann\n  password: hunter2", [:], "the password is written in the source"),
            ("  type: api-key\n  key: k3y", [:], "the key is written in the source"),
            ("  type: basic\n  username: ann\n  password: ${P}", [:], "the password's variable P is not set"),
            (
                "  type: api-key\n  key: ${K}", ["K": "a\r\nX-Evil: 1"],
                "Invalid header 'X-Api-Key': a control character in it"
            ),
            ("  type: api-key\n  header: 'X: Y'\n  key: ${K}", ["K": "k"], "'X: Y' cannot name a header"),
            ("  type: oauth\n", [:], "'auth' type 'oauth' is not one of bearer, basic, api-key"),
            ("  type: basic\n  password: ${P}", ["P": "p"], "'auth' of type basic has no 'username'"),
            (
                "  type: basic\n  username: a\n  token: ${P}", ["P": "p"],
                "unknown key 'token' in 'auth' of type basic; known: type, username, password"
            ),
        ] as [(String, [String: String], String)])
    func refused(_ auth: String, _ environment: [String: String], _ message: String) {
        let error = Self.error(Self.source(auth: auth), environment: environment)
        #expect(error?.contains(message) == true, "\(error ?? "no error")")
        #expect(error?.contains("hunter2") != true && error?.contains("k3y") != true && error?.contains("Evil") != true)
    }
}
