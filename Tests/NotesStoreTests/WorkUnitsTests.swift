import Dispatch
import Foundation
import NotesFetch
import NotesFetchTesting
import NotesSystem
import TestSupport
import Testing

@testable import NotesStore

/// The claims of `WorkUnits` against the walks that commit under them, in process, against a PostgreSQL
/// server of the suite's own (it restarts it): what a worker stopped mid-commit, or one whose lease ran out
/// under it, leaves to the others, and a worker's kept connection after a restart.
@Suite(
    "Units of work and their claims",
    .enabled(
        if: PostgresCluster.isAvailable,
        "no PostgreSQL server programs, psql or postgres user (make deps installs postgresql-15), or not root"),
    .serialized,
    .timeLimit(.minutes(2))
)
struct WorkUnitsTests {
    static let cluster: PostgresCluster? = try? PostgresCluster()

    static func server() throws -> PostgresCluster {
        guard let cluster else { throw PostgresCluster.Failure("the cluster did not start") }
        return cluster
    }

    /// A run of one unit (the walk of `notes`) in schema `schema`, and the queue that made it.
    static func run(_ schema: String, lease: Int = 2) throws -> (queue: WorkUnits, run: Int, url: String) {
        let url = try server().url()
        _ = try server().psql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        let queue = try WorkUnits(connection: url, schema: schema, lease: lease)
        let run = try queue.join(label: nil, plan: "one") { () throws(StoreError) in [("notes", "")] }
        return (queue, run.number, url)
    }

    /// A walk of `SyncAPI` committing under `claimed`, into `notes` of `schema`.
    static func walk(_ schema: String, url: String, claimed: WorkUnits.Claimed, run: Int) throws -> (
        CommittedWalk, PostgresDestination
    ) {
        let destination = try PostgresDestination(connection: url, schema: schema, table: "notes")
        destination.claim = UnitClaim(unit: claimed.id, run: run, holder: claimed.holder, lease: 2, children: [])
        return (try SyncAPI.walk(into: destination), destination)
    }

    @Test(
        "A worker stopped inside a page's transaction holds its unit's row no longer than its lease: the server ends the transaction, another worker takes the unit over, and the stopped walk cannot commit"
    )
    func stoppedMidCommit() async throws {
        let (queue, run, url) = try Self.run("stuck")
        let claimed = try #require(try queue.claim(run: run))
        let (walk, destination) = try Self.walk("stuck", url: url, claimed: claimed, run: run)
        // Stopped after the checkpoint, the unit's row locked, before COMMIT: as a process stopped mid-commit
        // (its leases no longer renewed).
        let stopped = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let once = Locked(true)
        destination.afterStep = { step in
            guard step == .checkpoint,
                once.withLock({
                    let first = $0
                    $0 = false
                    return first
                })
            else { return }
            stopped.signal()
            resume.wait()
        }
        let api = SyncAPI(count: 10, size: 4)
        let walking = Task { () -> String? in
            do {
                try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
                return nil
            } catch {
                return "\(error)"
            }
        }
        stopped.wait()
        let started = Date()
        let other = try WorkUnits(connection: url, schema: "stuck", lease: 2)
        var taken: WorkUnits.Claimed?
        while taken == nil, Date().timeIntervalSince(started) < 12 {
            taken = try other.claim(run: run)
            if taken == nil { usleep(200_000) }
        }
        resume.signal()
        // Taken over once the lease ran out and the server ended the transaction that held the row.
        #expect(taken?.id == claimed.id && taken?.takenOver == true, "\(String(describing: taken))")
        #expect(Date().timeIntervalSince(started) > 1.5)
        let failure = await walking.value
        #expect(failure?.contains("is no longer this worker's") == true, "\(failure ?? "no failure")")
        #expect(try Self.server().psql("SELECT count(*) FROM stuck.notes") == "0\n")
    }

    @Test(
        "A claim has a name of its own: a walk under a worker's earlier claim of a unit it claimed again (its lease ran out under it) cannot commit"
    )
    func claimedAgain() async throws {
        let (queue, run, url) = try Self.run("again")
        let first = try #require(try queue.claim(run: run))
        usleep(2_300_000)  // the lease runs out, never renewed
        let second = try #require(try queue.claim(run: run))
        #expect(second.id == first.id && second.takenOver && second.holder != first.holder)
        let (walk, _) = try Self.walk("again", url: url, claimed: first, run: run)
        let api = SyncAPI(count: 10, size: 4)
        await #expect {
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
        } throws: { error in
            "\(error)".contains("is no longer this worker's")
        }
        #expect(try Self.server().psql("SELECT count(*) FROM again.notes") == "0\n")
    }

    @Test(
        "A worker's connection kept from one walk to the next, cut by a server restart in between: the next walk opens on a new one, with no failure"
    )
    func keptConnectionRestarted() async throws {
        let url = try Self.server().url()
        _ = try Self.server().psql("DROP SCHEMA IF EXISTS kept CASCADE")
        let sessions = PostgresSessions()
        for (index, table) in ["first", "second"].enumerated() {
            if index == 1 { try Self.server().restart() }
            let destination = try PostgresDestination(
                connection: url, schema: "kept", table: table, sessions: sessions)
            let walk = try SyncAPI.walk(into: destination)
            let api = SyncAPI(count: 10, size: 4)
            try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
            #expect(walk.checkpoint.isDone, "\(table)")
        }
        #expect(try Self.server().psql("SELECT count(*) FROM kept.second") == "10\n")
    }
}
