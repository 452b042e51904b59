import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import NotesStore
import Synchronization
import TestSupport
import Testing

@testable import NotesCLI

/// A paginated API in memory: page 1 at the endpoint, page `k` at `?cursor=c<k>`, each page's next
/// cursor naming the page after it (or `null` on the last). Notes are `{"id":"p<k>-<i>","title":"…"}`.
struct FakeAPI: Sendable {
    static let endpoint = "http://127.0.0.1:9/notes"

    /// The ids of each page.
    var pages: [[String]]
    /// Next cursors that differ from the chain (a cycle, say), by 1-based page.
    var nextCursors: [Int: String] = [:]
    /// Extra headers of every page.
    var headers: [HTTPHeader] = []

    /// `count` pages of `size` notes each.
    init(pages count: Int, size: Int) {
        pages = (1...count).map { page in (0..<size).map { "p\(page)-\($0)" } }
    }

    init(ids: [[String]]) {
        pages = ids
    }

    static func url(page: Int) -> String {
        page == 1 ? endpoint : "\(endpoint)?cursor=c\(page)"
    }

    static func note(_ id: String) -> String {
        #"{"id":"\#(id)","title":"title of \#(id)"}"#
    }

    func body(page: Int) -> String {
        let next = nextCursors[page] ?? (page < pages.count ? "c\(page + 1)" : nil)
        let notes = pages[page - 1].map(Self.note).joined(separator: ",")
        return #"{"notes":[\#(notes)],"next_cursor":\#(next.map { "\"\($0)\"" } ?? "null")}"#
    }

    /// The NDJSON of pages `range` (1-based), as `fetch` writes it.
    func ndjson(_ range: ClosedRange<Int>) -> String {
        range.flatMap { pages[$0 - 1] }.map { Self.note($0) + "\n" }.joined()
    }

    /// Serves the pages; anything else is a 404.
    func transport() -> MemoryTransport {
        MemoryTransport { request, _ in
            guard let page = (1...pages.count).first(where: { Self.url(page: $0) == request.url }) else {
                return .status(404)
            }
            return .json(body(page: page), headers: headers, chunkSize: 100)
        }
    }
}

/// Everything a run wrote to its standard error.
final class Console: Sendable {
    private let writes = Mutex([String]())

    var output: String { writes.withLock { $0.joined() } }

    /// Each write, in order (a progress line is one).
    var lines: [String] { writes.withLock { $0 } }

    func write(_ line: String) {
        writes.withLock { $0.append(line) }
    }
}

/// A kill -9 simulated in process: the commit of the `page`-th page of this run stops after `step`.
struct SimulatedKill: Sendable {
    var page: Int
    var step: CommitStep

    /// The hook for ``FetchRuntime/afterCommitStep``: counts commits, throws at the chosen step.
    func hook() -> @Sendable (CommitStep) throws(CommitStop) -> Void {
        let commits = Mutex(0)
        return { step throws(CommitStop) in
            let page = commits.withLock { count in
                if step == .output || step == .rows { count += 1 }
                return count
            }
            if page == self.page && step == self.step {
                throw CommitStop("simulated kill after the \(step) step")
            }
        }
    }
}

/// Whether a task made now runs within `seconds`: whether the concurrency pool has a thread free.
func poolIsFree(within seconds: Double) -> Bool {
    let ran = DispatchSemaphore(value: 0)
    Task { ran.signal() }
    return ran.wait(timeout: .now() + seconds) == .success
}

/// Cancels a run still going after `patience` seconds in which the concurrency pool was free, so that a run
/// that never ends (a walk past its last page) fails its test in seconds, not at a bound on the whole test
/// run. Seconds in which the pool's threads are all held (tests that wait for a process, in a full test
/// run) do not count: the run may be waiting for one.
final class RunDeadline: Sendable {
    let patience: Double
    private let ended = DispatchSemaphore(value: 0)
    private let fired = Atomic<Bool>(false)

    init(patience: Double, cancelling flag: CancellationFlag) {
        self.patience = patience
        Thread { [self] in
            var counted = 0.0
            while ended.wait(timeout: .now() + 0.5) == .timedOut {
                if poolIsFree(within: 0.5) { counted += 0.5 }
                if counted >= patience {
                    fired.store(true, ordering: .relaxed)
                    flag.cancel()
                    return
                }
            }
        }.start()
    }

    /// The run has ended.
    func end() { ended.signal() }

    /// Whether the run was cancelled for its time.
    var expired: Bool { fired.load(ordering: .relaxed) }
}

/// One in-process run of `notes-page fetch ARGUMENTS` against `transport`.
struct InProcessRun {
    var status: ArgumentParsing.ExitStatus
    var stderr: String
    /// The notes written, when `arguments` name no `-o`: they go to a file, not the test process's output.
    var stdout = ""

    /// Runs `notes-page fetch` with `arguments` (the endpoint is added last) through `transport`, never
    /// sleeping for a retry. A run still going after `patience` seconds (``RunDeadline``) is cancelled, and
    /// the test fails.
    init(
        _ arguments: [String],
        transport: any HTTPTransport,
        kill: SimulatedKill? = nil,
        endpoint: String = FakeAPI.endpoint,
        terminal: Bool = false,
        patience: Double = 15
    ) async throws {
        let scratch = arguments.contains("-o") || arguments.contains("--output") ? nil : try Scratch()
        defer { scratch?.remove() }
        let output = scratch.map { ["-o", $0.path("out")] } ?? []
        let parsed = try ParsedArguments(arguments + output + [endpoint], spec: FetchCommand.spec)
        let command = try FetchCommand(parsed, environment: [:])
        let console = Console()
        var runtime = FetchRuntime(
            transport: transport,
            environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 }),
            report: { console.write($0) },
            showsProgress: terminal
        )
        if let kill { runtime.afterCommitStep = kill.hook() }
        let cancellation = CancellationFlag()
        let deadline = RunDeadline(patience: patience, cancelling: cancellation)
        status = await command.run(runtime, cancellation: cancellation)
        deadline.end()
        if deadline.expired {
            Issue.record("the run had not ended after \(Int(patience)) s with the concurrency pool free: cancelled")
        }
        stderr = console.output
        if let scratch { stdout = (try? scratch.read("out")) ?? "" }
    }

    /// Standard error without the line `--paginate auto` writes after the first page.
    var messages: String { withoutRecognition(stderr) }
}

/// The waits a run asked for.
final class Sleeps: Sendable {
    let seconds = Mutex<[Double]>([])
}

/// One in-process run of `notes-page sync SOURCE --sqlite DB` and `arguments`, `source` written to `scratch`
/// (`api.yaml`, the database `api.db` beside it), through `transport`, with `environment`. The clock stands
/// still; each wait asked for is added to `sleeps`.
/// - Returns: The exit status and standard error.
func runSync(
    _ source: String, in scratch: Scratch, _ arguments: [String] = [], transport: MemoryTransport,
    environment: [String: String] = [:], sleeps: Sleeps = Sleeps()
) async throws -> (status: ArgumentParsing.ExitStatus, stderr: String) {
    try Files.write(source, to: scratch.path("api.yaml"))
    let parsed = try ParsedArguments(
        [scratch.path("api.yaml"), "--sqlite", scratch.path("api.db")] + arguments, spec: SyncCommand.spec)
    let command = try SyncCommand(parsed, environment: environment)
    let console = Console()
    let status = await command.run(cancellation: CancellationFlag()) { _ in
        FetchRuntime(
            transport: transport,
            environment: FetchEnvironment(
                sleep: { seconds in sleeps.seconds.withLock { $0.append(seconds) } }, now: { 1_000_000 },
                random: { 0.5 }),
            report: { console.write($0) }, showsProgress: false)
    }
    return (status, console.output)
}
