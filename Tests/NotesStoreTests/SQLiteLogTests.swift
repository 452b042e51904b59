import Foundation
import NotesFetch
import TestSupport
import Testing

@testable import NotesStore

/// The write-ahead log of a walk into SQLite, copied into the database on a thread of its own
/// (`LogCheckpointer`): it stays short, and nothing committed is lost.
@Suite("SQLite write-ahead log")
struct SQLiteLogTests {
    /// A frame of the log: a 16 KiB page and its 24-byte header (after the log's 32-byte header).
    static let frameBytes = 16_384 + 24

    /// Walks `api` into a new database at `path` with the log's thresholds given.
    /// - Returns: The log's size in frames when the walk ended (its high-water mark: the file never
    ///   shrinks while the database is open), and the checkpointer's counts.
    static func walk(
        _ api: SyncAPI, into path: String, start: Int, tail: Int, limit: Int,
        beforePass: @escaping @Sendable () -> Void = {}
    ) async throws -> (frames: Int, passes: Int, tails: Int) {
        let destination = try SQLiteDestination(path: path)
        destination.checkpointLog(start: start, tail: tail, limit: limit, beforePass: beforePass)
        let walk = try SyncAPI.walk(into: destination)
        try await walk.run(fetcher: api.fetcher(walk, transport: api.transport()), from: .start)
        let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        let counts = destination.checkpoints
        return ((size - 32) / frameBytes, counts.passes, counts.tails)
    }

    @Test("The log is copied beside the commits and started over: it stays near its threshold, every row kept")
    func shortLog() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        // 150 pages, each commit a few frames: hundreds in all, were the log never started over.
        let api = SyncAPI(count: 3000, size: 20)
        let log = try await Self.walk(api, into: path, start: 16, tail: 6, limit: 64)
        #expect(log.passes > 0, "\(log)")
        #expect(log.frames > 0 && log.frames <= 64 + 16, "\(log)")
        #expect(try SQLiteShell.query(path, "PRAGMA integrity_check") == "ok\n")
        #expect(try SQLiteShell.query(path, "SELECT count(*), count(DISTINCT id) FROM notes") == "3000|3000\n")
    }

    @Test("A checkpoint slower than the commits holds them at the log's limit: the log never grows past it")
    func slowCheckpoint() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("notes.db")
        let api = SyncAPI(count: 3000, size: 20)
        // Each pass waits 50 ms first: dozens of pages' commits, were they not held.
        let log = try await Self.walk(api, into: path, start: 16, tail: 6, limit: 40) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(log.passes > 0, "\(log)")
        #expect(log.frames > 0 && log.frames <= 40 + 16, "\(log)")
        #expect(try SQLiteShell.query(path, "PRAGMA integrity_check") == "ok\n")
        #expect(try SQLiteShell.query(path, "SELECT count(*) FROM notes") == "3000\n")
    }

    @Test("After each commit: a pass once the log is long, the tail copied once a pass is done, a wait at the limit")
    func steps() {
        let log = LogCheckpointer(path: "unused.db", start: 100, tail: 10, limit: 400)
        func step(_ frames: Int, running: Bool = false, copied: Int? = nil, failed: Bool = false)
            -> LogCheckpointer.Step
        {
            log.step(frames: frames, running: running, copied: copied, failed: failed)
        }
        // A short log: nothing, whatever else holds.
        #expect(step(10) == .none && step(10, running: true) == .none && step(10, failed: true) == .none)
        #expect(step(99) == .none && step(100) == .pass && step(250) == .pass)
        // A pass running: the commits go on, up to the limit.
        #expect(step(399, running: true) == .none && step(400, running: true) == .waitAndCopy)
        // A pass done: the frames committed meanwhile, if few, are copied by the committing connection;
        // if many, another pass. A count above the log's is of a log started over.
        #expect(step(108, copied: 100) == .copy && step(110, copied: 100) == .copy)
        #expect(step(111, copied: 100) == .pass && step(50, copied: 100) == .none)
        #expect(step(150, copied: 140) == .copy && step(60, copied: 55) == .copy)
        // No checkpointer: the committing connection copies the log as SQLite's own checkpoint would.
        #expect(step(99, failed: true) == .none && step(100, failed: true) == .copy)
    }

    @Test("The destinations writing one database share its checkpointer: one thread and one connection copy its log")
    func sharedByDatabase() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = LogCheckpointer.forDatabase(at: scratch.path("a.db"))
        #expect(LogCheckpointer.forDatabase(at: scratch.path("a.db")) === first)
        #expect(LogCheckpointer.forDatabase(at: scratch.path("b.db")) !== first)
        // Kept while held, and only then.
        weak var released = LogCheckpointer.forDatabase(at: scratch.path("c.db"))
        #expect(released == nil)
    }
}
