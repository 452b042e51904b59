import ArgumentParsing
import Foundation
import NotesFetch
import NotesFetchTesting
import NotesStore
import TestSupport
import Testing

@testable import NotesCLI

/// `sync --worker` in process, against a PostgreSQL server of the test's own: what a kill at an exact step
/// of a commit leaves for the next worker.
@Suite(
    "Worker commits",
    .enabled(
        if: PostgresCluster.isAvailable, "no PostgreSQL server programs or psql (make deps installs postgresql-15)"),
    .serialized
)
struct WorkerCommitTests {
    /// One in-process worker of a sync of one resource (`FakeAPI`'s pages), into schema `schema`, its
    /// commits stopped as `kill` says.
    static func work(
        _ database: PostgresCluster, schema: String, api: FakeAPI, transport: MemoryTransport, in scratch: Scratch,
        kill: SimulatedKill?
    ) async throws -> (status: ArgumentParsing.ExitStatus, stderr: String) {
        try Files.write(
            """
            resources:
              - name: notes
                path: \(FakeAPI.endpoint)
            """, to: scratch.path("api.yaml"))
        let parsed = try ParsedArguments(
            [scratch.path("api.yaml"), "--postgres", database.url(), "--schema", schema, "--worker", "--lease", "2"],
            spec: SyncCommand.spec)
        let command = try SyncCommand(parsed, environment: [:])
        let console = Console()
        // One hook for every walk of the worker: the kill happens once.
        let hook = kill?.hook()
        let status = await command.run(cancellation: CancellationFlag()) { _ in
            var runtime = FetchRuntime(
                transport: transport, environment: .live, report: { console.write($0) },
                showsProgress: false)
            if let hook { runtime.afterCommitStep = hook }
            return runtime
        }
        return (status, console.output)
    }

    @Test(
        "A unit is done in its last page's transaction: a worker stopped just after that commit leaves nothing to walk again"
    )
    func doneWithLastPage() async throws {
        let database = try PostgresCluster()
        defer { database.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = FakeAPI(pages: 3, size: 4)
        let transport = api.transport()
        let stopped = try await Self.work(
            database, schema: "last", api: api, transport: transport, in: scratch,
            kill: SimulatedKill(page: 3, step: .committed))
        #expect(stopped.stderr.contains("simulated kill after the committed step"), "\(stopped.stderr)")
        #expect(stopped.status == .success, "\(stopped.stderr)")
        // Done with its last page: not counted as a failure, never walked again.
        #expect(
            try database.psql("SELECT state, failures, pages, records FROM last.notes_page_units") == "done|0|3|12\n")
        #expect(transport.requests.count == 3, "\(transport.requests.map(\.url))")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM last.notes") == "12|12\n")
    }

    @Test(
        "A worker stopped after a page's rows, before its commit: nothing of the page kept; the unit, walked again, goes on at that page"
    )
    func stoppedBeforeCommit() async throws {
        let database = try PostgresCluster()
        defer { database.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let api = FakeAPI(pages: 3, size: 4)
        let transport = api.transport()
        let run = try await Self.work(
            database, schema: "mid", api: api, transport: transport, in: scratch,
            kill: SimulatedKill(page: 2, step: .checkpoint))
        #expect(run.stderr.contains("simulated kill after the checkpoint step"), "\(run.stderr)")
        #expect(run.status == .success, "\(run.stderr)")
        // Page 1, committed, never asked again; page 3 may have been asked early, while page 2 committed.
        let asked = transport.requests.map(\.url)
        #expect(
            [[1, 2, 2, 3], [1, 2, 3, 2, 3]].map { $0.map { FakeAPI.url(page: $0) } }.contains(asked), "\(asked)")
        #expect(
            try database.psql("SELECT state, failures, pages, records FROM mid.notes_page_units") == "done|1|3|12\n")
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM mid.notes") == "12|12\n")
    }
}
