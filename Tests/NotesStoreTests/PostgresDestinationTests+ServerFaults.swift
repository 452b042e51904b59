import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import TestSupport
import Testing

@testable import NotesStore

// The same suite: the faults a server has: a connection terminated mid-transaction, the server gone, a
// full disk, a restart.

extension PostgresDestinationTests {
    @Test("The connection terminated mid-transaction: opened again, the page committed once, the walk goes on")
    func terminatedMidTransaction() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var terminated = false
        let (walk, _) = try await Self.walk(api, table: "terminated") { destination in
            destination.afterStep = { done throws(CommitStop) in
                guard done == .rows, !terminated else { return }
                terminated = true
                _ = try? Self.server().psql("SELECT pg_terminate_backend(\(destination.backendPID))")
            }
        }
        #expect(terminated)
        #expect(walk.checkpoint.isDone && walk.checkpoint.notes == 10)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM terminated") == "10|10\n")
    }

    @Test("The server gone mid-walk and not back: the walk stops as unavailable (exit 69), its pages kept")
    func serverGoneMidWalk() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var stopped = false
        let error = await #expect(throws: FetchError.self) {
            _ = try await Self.walk(api, table: "gone") { destination in
                destination.afterStep = { done throws(CommitStop) in
                    guard done == .committed, !stopped else { return }
                    stopped = true
                    try? Self.server().stop(removing: false)
                }
            }.walk.checkpoint
        }
        try Self.server().start()
        #expect(stopped)
        #expect(error?.kind == .unavailable && error?.page == 2, "\(String(describing: error))")
        if case .output(let failure) = error?.code.base { #expect(failure.kind == .unavailable) }
        #expect(try Self.server().psql("SELECT count(*) FROM gone") == "4\n")
    }

    /// A small filesystem of its own (tmpfs, 2 MiB), mounted where root may mount; `nil` (the test says why)
    /// where it cannot be.
    static func smallFilesystem() -> (path: String, unmount: () -> Void)? {
        var template = Array("/tmp/notes-pg-full-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let path = String(cString: made)
        guard
            let mount = try? Finished(
                URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m", "tmpfs", path]),
            mount.status == 0,
            (try? Finished(URL(fileURLWithPath: "/usr/bin/chown"), ["postgres", path]))?.status == 0
        else {
            rmdir(path)
            return nil
        }
        return (
            path,
            {
                _ = try? Finished(URL(fileURLWithPath: "/bin/umount"), [path])
                rmdir(path)
            }
        )
    }

    @Test(
        "A full disk (a tablespace on a 2 MiB filesystem) fails the page that does not fit, naming SQLSTATE 53100; with room again, the run resumes: every note once"
    )
    func fullDisk() async throws {
        guard let filesystem = Self.smallFilesystem() else {
            print("fullDisk: no tmpfs could be mounted here (not root, or no mount in this container): not tested")
            return
        }
        defer { filesystem.unmount() }
        try Self.server().psql("CREATE TABLESPACE small LOCATION '\(filesystem.path)'")
        defer { _ = try? Self.server().psql("DROP TABLESPACE IF EXISTS small") }
        // 2,000 notes of 100 a page, each with a title of 1,500 random characters: 9 MB as the table keeps them.
        let api = SyncAPI(count: 2000, size: 100)
        var random = SeededRandom(seed: 53100)
        for record in api.records {
            let title = String(
                (0..<1500).map { _ in "0123456789abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)! })
            api.put(.init(id: record.id, title: title, updatedAt: record.updatedAt))
        }
        // The table and its index go to the small tablespace; the walk's own tables were made before.
        try await Self.walk(SyncAPI(count: 1, size: 1), table: "before_full")
        let small = try Self.server().url() + "?options=-c%20default_tablespace%3Dsmall"
        let error = await #expect(throws: FetchError.self) {
            _ = try await Self.walk(api, table: "filled", connection: small).walk.checkpoint
        }
        #expect(error?.kind == .output, "\(String(describing: error))")
        #expect("\(String(describing: error))".contains("(SQLSTATE 53100)"), "\(String(describing: error))")
        let committed = try Self.server().psql(
            "SELECT checkpoint::jsonb->>'pages' FROM notes_page_walks WHERE \"table\" = 'filled'")
        let pages = Int(committed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(pages >= 1 && pages < 20, "\(committed)")
        #expect(try Self.server().psql("SELECT count(*) FROM filled") == "\(pages * 100)\n")
        // Room again: the table moves to the default tablespace, and the same walk goes on.
        try Self.server().psql("ALTER TABLE filled SET TABLESPACE pg_default")
        let (walk, transport) = try await Self.walk(api, table: "filled")
        #expect(walk.opening == .resumed && transport.requests.count == 20 - pages)
        #expect(
            try Self.server().psql("SELECT count(*), count(DISTINCT id), count(json) FROM filled") == "2000|2000|2000\n"
        )
    }

    @Test("The server restarted mid-walk: the walk goes on over a new connection, every note once")
    func restartMidWalk() async throws {
        let api = SyncAPI(count: 10, size: 4)
        var restarted = false
        let (walk, _) = try await Self.walk(api, table: "restarted") { destination in
            destination.afterStep = { done throws(CommitStop) in
                guard done == .committed, !restarted else { return }
                restarted = true
                do { try Self.server().restart() } catch { print("the restart failed: \(error)") }
            }
        }
        #expect(restarted && walk.checkpoint.isDone && walk.checkpoint.notes == 10)
        #expect(try Self.server().psql("SELECT count(*), count(DISTINCT id) FROM restarted") == "10|10\n")
    }
}
