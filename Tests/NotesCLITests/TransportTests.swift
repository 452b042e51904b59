import ArgumentParsing
import Dispatch
import Foundation
import NotesFetch
import NotesPage
import NotesURLSession
import Synchronization
import TestSupport
import Testing

/// The HTTP transports, for tests that run against each.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl
    case urlsession

    var testDescription: String { rawValue }

    func make(caFile: String? = nil) -> any HTTPTransport {
        switch self {
        case .curl: CurlTransport(configuration: CurlTransport.Configuration(caFile: caFile))
        case .urlsession: URLSessionTransport()
        }
    }
}

/// Takes a response and records what arrived, on which thread, and in what order; stops or cancels where told.
final class Recorder: HTTPResponseReceiver {
    var head: HTTPResponseHead?
    var heads = 0
    var body: [UInt8] = []
    /// A body chunk before the head, or a call after the recorder stopped the exchange.
    var outOfOrder = 0
    var threads: Set<UInt> = []
    var stopped = false
    /// Stop on the head: what a page does with an error status or a Content-Length over its cap.
    var acceptsHead = true
    /// Stop once this many bytes of body have arrived: the page byte cap.
    var capBytes: Int?
    /// Set this flag once this many bytes have arrived.
    var cancelAfter: (bytes: Int, flag: CancellationFlag)?
    /// Microseconds each chunk takes: a slow decoder.
    var microsecondsPerChunk: UInt32 = 0

    func receive(head: HTTPResponseHead) -> Bool {
        threads.insert(UInt(pthread_self()))
        if stopped || heads > 0 { outOfOrder += 1 }
        heads += 1
        self.head = head
        stopped = !acceptsHead
        return acceptsHead
    }

    func receive(body chunk: UnsafeRawBufferPointer) -> Bool {
        threads.insert(UInt(pthread_self()))
        if stopped || heads == 0 { outOfOrder += 1 }
        body += chunk
        if microsecondsPerChunk > 0 { usleep(microsecondsPerChunk) }
        if let (bytes, flag) = cancelAfter, body.count >= bytes { flag.cancel() }
        if let capBytes, body.count >= capBytes {
            stopped = true
            return false
        }
        return true
    }
}

/// The outcome of one exchange, for `#expect`.
enum Outcome: Equatable {
    case completed
    case stopped
    case failed(TransportError)
}

func perform(
    _ transport: any HTTPTransport, _ url: String, _ recorder: Recorder,
    timeouts: HTTPRequest.Timeouts = HTTPRequest.Timeouts(idle: 60), cancellation: CancellationFlag = CancellationFlag()
) -> Outcome {
    perform(transport, HTTPRequest(url: url, timeouts: timeouts), recorder, cancellation: cancellation)
}

func perform(
    _ transport: any HTTPTransport, _ request: HTTPRequest, _ recorder: Recorder,
    cancellation: CancellationFlag = CancellationFlag()
) -> Outcome {
    do {
        return try transport.perform(request, receiver: recorder, cancellation: cancellation) ? .completed : .stopped
    } catch {
        return .failed(error)
    }
}

/// Seconds since `start`.
func since(_ start: Date) -> Double { Date().timeIntervalSince(start) }

/// Stops a fixture server (SIGTERM: it ends its delays, drips and stalls) `seconds` after it is made,
/// unless ended first: a deadline for an exchange that a timeout of its own must end sooner, so that a
/// transport that misses that timeout fails its test then, not once the server's slow body is all sent.
final class ServerDeadline: Sendable {
    let seconds: Double
    private let state = Mutex((ended: false, fired: false))

    init(stopping server: FixtureServer, after seconds: Double) {
        self.seconds = seconds
        let pid = server.process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            let fire = state.withLock { state in
                state.fired = !state.ended
                return state.fired
            }
            if fire { kill(pid, SIGTERM) }
        }
    }

    /// Ends the deadline. - Returns: Whether it had passed (the server was stopped).
    func end() -> Bool {
        state.withLock { state in
            state.ended = true
            return state.fired
        }
    }

    var message: Comment { "the exchange had not ended after \(Int(seconds)) s: the server was stopped" }
}

/// The fixture server's log lines for requests (not the start-up line).
func requestLines(_ log: String) -> [Substring] {
    log.split(separator: "\n").filter { $0.hasPrefix("GET ") || $0.hasPrefix("[redirect target] GET ") }
}

/// One suite, run against both transports: everything ``HTTPTransport`` promises, against the fixture server
/// (and a scripted one where the fixture server has no such fault). Where URLSession cannot keep a promise, a
/// test named for it says so and checks the weaker bound it does keep.
@Suite(
    "Both transports against real servers",
    .enabled(if: FixtureServer.isAvailable, "node is not installed: fixture server tests skipped")
)
struct TransportTests {
    static let notes = ["--count", "250", "--page-size", "100", "--seed", "7"]

    // MARK: - The response

    @Test(
        "A page: the head once and first, then the body whole and in order, all on the calling thread",
        arguments: TransportKind.allCases)
    func page(kind: TransportKind) throws {
        let server = try FixtureServer(Self.notes + ["--quiet"])
        defer { server.stop() }
        let transport = kind.make()
        let recorder = Recorder()
        let meter = ExchangeMeter()
        let caller = UInt(pthread_self())
        #expect(
            perform(transport, HTTPRequest(url: server.url, timeouts: .init(idle: 60), meter: meter), recorder)
                == .completed)
        let head = try #require(recorder.head)
        #expect(head.status == 200)
        #expect(head.value(of: "content-type") == "application/json; charset=utf-8")
        #expect(Int(head.value(of: "Content-Length") ?? "") == recorder.body.count)
        #expect(recorder.heads == 1 && recorder.outOfOrder == 0)
        #expect(recorder.threads == [caller])
        #expect(recorder.body.first == UInt8(ascii: "{") && recorder.body.last == UInt8(ascii: "}"))
        #expect(meter.sendCount == 1)
        #expect(meter.wireBytes == recorder.body.count)

        // The same transport serves the next request whole, after one it stopped on the head.
        let stopper = Recorder()
        stopper.acceptsHead = false
        #expect(perform(transport, server.url + "?fault=503", stopper) == .stopped)
        #expect(stopper.head?.status == 503 && stopper.body.isEmpty && stopper.outOfOrder == 0)
        let again = Recorder()
        #expect(perform(transport, server.url, again) == .completed)
        #expect(again.body == recorder.body)
    }

    @Test(
        "Statuses and content types reach the receiver as the server sent them, with their bodies",
        arguments: TransportKind.allCases)
    func statuses(kind: TransportKind) throws {
        let server = try FixtureServer(Self.notes + ["--quiet"])
        defer { server.stop() }
        let transport = kind.make()
        for (fault, status, type) in [
            ("404", 404, "application/json; charset=utf-8"), ("500", 500, "application/json; charset=utf-8"),
            ("503:7", 503, "application/json; charset=utf-8"), ("html", 200, "text/html; charset=utf-8"),
            ("content-type", 200, "text/plain; charset=utf-8"), ("401", 401, "application/json; charset=utf-8"),
        ] {
            let recorder = Recorder()
            #expect(perform(transport, server.url + "?fault=\(fault)", recorder) == .completed, "\(fault)")
            #expect(recorder.head?.status == status, "\(fault)")
            #expect(recorder.head?.value(of: "Content-Type") == type, "\(fault)")
            #expect(Int(recorder.head?.value(of: "Content-Length") ?? "") == recorder.body.count, "\(fault)")
            if fault == "503:7" { #expect(recorder.head?.value(of: "Retry-After") == "7") }
        }
    }

    @Test(
        "A receiver that stops on the head ends the exchange at once, though the body never comes",
        arguments: TransportKind.allCases)
    func stopOnHead(kind: TransportKind) throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--fault", "stall:0"])
        defer { server.stop() }
        let recorder = Recorder()
        recorder.acceptsHead = false
        let start = Date()
        // URLSession's own timer would end it after the longer timeout and half a minute: long after this.
        #expect(perform(kind.make(), server.url, recorder, timeouts: .init(idle: 5, total: 5)) == .stopped)
        #expect(since(start) < 20)
        #expect(recorder.heads == 1 && recorder.body.isEmpty && recorder.outOfOrder == 0)
    }

    @Test(
        "A gzip page arrives inflated; the meter counts its bytes on the wire",
        arguments: TransportKind.allCases)
    func compressed(kind: TransportKind) throws {
        let plain = try FixtureServer(Self.notes + ["--quiet"])
        let expected = Recorder()
        #expect(perform(kind.make(), plain.url, expected) == .completed)
        plain.stop()
        let server = try FixtureServer(Self.notes + ["--quiet", "--compress", "gzip"])
        defer { server.stop() }
        let recorder = Recorder()
        let meter = ExchangeMeter()
        #expect(
            perform(kind.make(), HTTPRequest(url: server.url, timeouts: .init(idle: 60), meter: meter), recorder)
                == .completed)
        #expect(recorder.head?.value(of: "Content-Encoding") == "gzip")
        #expect(recorder.body == expected.body)
        #expect(meter.wireBytes == Int(recorder.head?.value(of: "Content-Length") ?? ""))
        #expect(meter.wireBytes > 0 && meter.wireBytes < recorder.body.count / 2)
    }

    @Test(
        "Through the fetcher: statuses, content types and a Content-Length over the cap end the run as they should",
        arguments: TransportKind.allCases)
    func fetcherOutcomes(kind: TransportKind) async throws {
        let server = try FixtureServer(Self.notes + ["--quiet"])
        defer { server.stop() }
        let page = try await InProcessRun(["--format", "ids"], transport: kind.make(), endpoint: server.url)
        #expect(page.status == .success, "\(page.stderr)")
        for (fault, status, message) in [
            ("404", ExitStatus.dataError, "Error: page 1 (the first page): the server answered HTTP 404\n"),
            (
                "401", .noPermission,
                "Error: page 1 (the first page): session expired (HTTP 401): sign in again or renew the token\n"
            ),
            (
                "html", .dataError,
                "Error: page 1 (the first page): the response is 'text/html; charset=utf-8', not JSON\n"
            ),
            (
                "503:0", .unavailable,
                "Error: page 1 (the first page): the server is unavailable after 2 attempts: HTTP 503\n"
            ),
        ] {
            let run = try await InProcessRun(
                ["--retries", "1"], transport: kind.make(), endpoint: server.url + "?fault=\(fault)")
            #expect(run.status == status, "\(fault): \(run.stderr)")
            #expect(run.stderr == message, "\(fault)")
        }
        // The first page is 100 notes; a cap one byte under its Content-Length refuses it before the body.
        let recorder = Recorder()
        #expect(perform(kind.make(), server.url, recorder) == .completed)
        let length = recorder.body.count
        let capped = try await InProcessRun(
            ["--max-page-bytes", "\(length - 1)"], transport: kind.make(), endpoint: server.url)
        #expect(capped.status == .dataError)
        #expect(
            capped.stderr
                == "Error: page 1 (the first page): Content-Length \(length) is over the page limit of \(length - 1) bytes\n"
        )
    }

    @Test(
        "A response head over 64 KiB is refused, not handed on",
        arguments: TransportKind.allCases)
    func longHead(kind: TransportKind) throws {
        let field = "X-Filler: " + String(repeating: "a", count: 1000)
        let server = try ScriptedServer { _ in
            [.send(ScriptedServer.json("[]", headers: Array(repeating: field, count: 70))), .close]
        }
        defer { server.close() }
        let recorder = Recorder()
        #expect(
            perform(kind.make(), server.origin + "/notes", recorder)
                == .failed(TransportError(.other, "response headers longer than 65536 bytes")))
        #expect(recorder.heads == 0 && recorder.body.isEmpty)
    }

    // MARK: - Redirects and credentials

    @Test(
        "Redirects are not followed by the transport: the fetcher follows them, keeping the token on the endpoint's origin only",
        arguments: TransportKind.allCases)
    func redirects(kind: TransportKind) async throws {
        let page = #"{"notes":[{"id":"a","title":"x"}],"next_cursor":null}"#
        let elsewhere = try ScriptedServer { _ in [.send(ScriptedServer.json(page))] }
        defer { elsewhere.close() }
        let server = try ScriptedServer { head in
            if head.hasPrefix("GET /notes ") {
                return [.send("HTTP/1.1 302 Found\r\nLocation: /moved\r\nContent-Length: 0\r\n\r\n")]
            }
            if head.hasPrefix("GET /moved ") {
                return [
                    .send(
                        "HTTP/1.1 307 Temporary Redirect\r\nLocation: \(elsewhere.origin)/notes\r\nContent-Length: 0\r\n\r\n"
                    )
                ]
            }
            return [.send(ScriptedServer.json("{}", status: "404 Not Found"))]
        }
        defer { server.close() }

        // The transport hands the redirect over as the answer.
        let recorder = Recorder()
        #expect(perform(kind.make(), server.origin + "/notes", recorder) == .completed)
        #expect(recorder.head?.status == 302 && recorder.head?.value(of: "Location") == "/moved")
        #expect(server.requests.count == 1)

        // The fetcher follows both: the token goes to /moved (same origin), not to the other port.
        var configuration = FetchConfiguration()
        configuration.token = Secret("tok-secret")
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: server.origin + "/notes")!), configuration: configuration,
            transport: kind.make(), environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 }))
        let fetched = try await fetcher.fetchPage(.start, number: 1, ids: IDSet())
        #expect(fetched.notes.map(\.id) == ["a"])
        let heads = server.requests
        try #require(heads.count == 3, "\(heads)")
        #expect(heads[1].hasPrefix("GET /notes ") && heads[1].contains("Authorization: Bearer tok-secret"))
        #expect(heads[2].hasPrefix("GET /moved ") && heads[2].contains("Authorization: Bearer tok-secret"))
        #expect(elsewhere.requests.count == 1)
        #expect(!elsewhere.requests.joined().lowercased().contains("authorization"), "\(elsewhere.requests)")
    }

    @Test(
        "End to end: the fixture server's cross-origin redirect target refuses a forwarded token, and the walk succeeds",
        arguments: TransportKind.allCases)
    func crossOriginToken(kind: TransportKind) async throws {
        let token = "tok-\(UUID().uuidString)"
        let server = try FixtureServer(
            Self.notes + ["--fault", "auth", "--fault", "redirect@2"], environment: ["NOTES_SERVER_TOKEN": token])
        let run = try await Run(
            ["fetch", "--all", "--transport", kind.rawValue, server.url, "--format", "ids"],
            environment: ["NOTES_TOKEN": token])
        let log = server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 250)
        #expect(log.contains("[redirect target] GET /notes"), "\(log)")
        #expect(!run.stderr.contains(token) && !log.contains(token))
    }

    // MARK: - Stops, cancellation, time

    @Test(
        "Cancelling mid-body throws cancelled at the next chunk; the server sees the connection close early",
        arguments: TransportKind.allCases)
    func cancelMidBody(kind: TransportKind) throws {
        // The page drips for some 5 s: a close the server sees before its end is the client's.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:128/100"])
        let recorder = Recorder()
        let flag = CancellationFlag()
        recorder.cancelAfter = (512, flag)
        let outcome = perform(kind.make(), server.url, recorder, cancellation: flag)
        let log = server.stop()
        #expect(outcome == .failed(TransportError(.cancelled, "cancelled")))
        #expect(recorder.body.count >= 512 && recorder.outOfOrder == 0)
        let length = Int(recorder.head?.value(of: "Content-Length") ?? "") ?? 0
        #expect(recorder.body.count < length)
        // The log line says the bytes the server wrote before the connection closed.
        let line = requestLines(log).first ?? ""
        let sent = line.split(separator: " ").first { $0.hasSuffix("B") }.flatMap { Int($0.dropLast()) } ?? length
        #expect(sent < length, "\(line)")
    }

    @Test(
        "Cancelling while no byte comes throws cancelled within seconds, long before the idle timeout",
        arguments: TransportKind.allCases)
    func cancelWhileWaiting(kind: TransportKind) throws {
        let server = try FixtureServer(Self.notes + ["--quiet", "--fault", "stall:0"])
        defer { server.stop() }
        let flag = CancellationFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flag.cancel() }
        let start = Date()
        let deadline = ServerDeadline(stopping: server, after: 10)
        let outcome = perform(
            kind.make(), server.url, Recorder(), timeouts: .init(idle: 60, total: 60), cancellation: flag)
        #expect(!deadline.end(), deadline.message)
        #expect(outcome == .failed(TransportError(.cancelled, "cancelled")))
        #expect(since(start) < 30)
    }
}
