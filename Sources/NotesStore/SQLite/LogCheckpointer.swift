import NotesSystem

/// Copies a SQLite database's write-ahead log into the database on a thread of its own, so that the thread
/// committing pages seldom waits for a checkpoint's reads, writes and syncs, while the log stays short.
///
/// SQLite's own checkpoint runs on the committing connection once its log holds 1,000 pages: that page's
/// commit also reads the log back, writes it into the database and waits for two syncs to disk. Here the
/// committing connection's hook counts the log's frames (``SQLiteDatabase/countLogFrames()``), and after
/// each commit ``committed(_:)`` decides, on the committing thread:
/// - the log past ``start`` frames, no pass running: a pass starts on the checkpointer's thread, a passive
///   checkpoint (never waiting for a lock or a reader) on a connection of its own;
/// - a pass done, and at most ``tail`` frames committed since it began: the committing connection copies
///   those itself, a small checkpoint. SQLite starts the log again from its beginning only when a write
///   transaction begins with every frame copied, which a pass running beside the writer never leaves; after
///   this one, the next commit starts the log over;
/// - the log past ``limit`` frames with a pass still running: the committing thread waits for the pass,
///   then copies the rest itself. The log never grows much past `limit` frames, however slow the disk,
///   unless a reader holds frames back (as with SQLite's own checkpoint, no checkpoint copies past them).
///
/// The destinations of a process that write one database share its checkpointer
/// (``forDatabase(at:)``): a sync's resources and child walks, committing side by side, fill one log, which
/// one thread and one connection copy; of them, one starts a pass and one copies a tail.
///
/// A checkpoint that fails (a full disk, an I/O error) loses nothing: the pages are committed in the log,
/// and the next commit's own writes meet the failure. When the checkpointer cannot open its connection,
/// the committing connection checkpoints as SQLite would have, at ``start`` frames.
final class LogCheckpointer {
    /// The log's frames past which a pass starts: SQLite's own `wal_autocheckpoint`.
    let start: Int
    /// Frames committed since a pass began that the committing connection copies itself.
    let tail: Int
    /// The log's frames past which the committing thread waits for a running pass.
    let limit: Int
    private let path: String
    /// Runs on the checkpointer's thread before each pass (tests: a slow disk).
    private let beforePass: @Sendable () -> Void
    private let thread = WorkerThread(name: "notes-wal")
    private let shared = Locked(Shared())

    /// What the committing thread and the checkpointer's share.
    private struct Shared {
        /// The connection the passes use, opened by the first.
        var connection: SQLiteDatabase?
        var running = false
        /// The log's frames copied by the last pass; `nil` once its tail was copied, another pass started,
        /// or the log started over.
        var copied: Int?
        /// The checkpointer's connection could not be opened.
        var failed = false
        /// Passes run, and tails copied by the committing connection (tests).
        var passes = 0
        var tails = 0
    }

    init(
        path: String, start: Int = 1000, tail: Int = 100, limit: Int = 4000,
        beforePass: @escaping @Sendable () -> Void = {}
    ) {
        precondition(0 < tail && tail < start && start < limit)
        self.path = path
        self.beforePass = beforePass
        self.start = start
        self.tail = tail
        self.limit = limit
    }

    /// The checkpointer of the database at `path` for this process: the destinations writing one database
    /// (a sync's resources and child walks, side by side) share its log, and one thread and connection
    /// copy it. Kept while a destination holds it.
    static func forDatabase(at path: String) -> LogCheckpointer {
        registry.withLock { table in
            if let kept = table[path]?.checkpointer { return kept }
            table = table.filter { $0.value.checkpointer != nil }
            let made = LogCheckpointer(path: path)
            table[path] = Held(checkpointer: made)
            return made
        }
    }

    private struct Held {
        weak var checkpointer: LogCheckpointer?
    }

    private static let registry = Locked<[String: Held]>([:])

    deinit {
        // A pass running ends before the destination closes its own connection: the last connection to
        // close copies what is left of the log and removes it.
        thread.awaitIdle()
    }

    /// Passes run so far, and tails the committing connection copied.
    var counts: (passes: Int, tails: Int) { shared.withLock { ($0.passes, $0.tails) } }

    /// What the committing thread does after a commit.
    enum Step: Equatable {
        /// Nothing: the log is short, or a pass is running and the log is under ``limit``.
        case none
        /// Starts a pass on the checkpointer's thread.
        case pass
        /// Copies the log's frames not yet copied itself.
        case copy
        /// Waits for the running pass, then copies the rest itself.
        case waitAndCopy
    }

    /// The step after a commit that left `frames` frames in the log, with a pass `running` or not, the
    /// frames the last pass `copied` (when none ran since), and whether the checkpointer `failed`.
    func step(frames: Int, running: Bool, copied: Int?, failed: Bool) -> Step {
        guard frames > tail else { return .none }
        if running { return frames >= limit ? .waitAndCopy : .none }
        if failed { return frames >= start ? .copy : .none }
        // A count above the log's frames is of a log started over since.
        if let copied, copied <= frames, frames - copied <= tail { return .copy }
        return frames >= start ? .pass : .none
    }

    /// After a commit on `database` (the committing connection, its lock held), with the log's frames in
    /// ``SQLiteDatabase/logFrames``: the ``step(frames:running:copied:failed:)`` it calls for.
    func committed(_ database: SQLiteDatabase) {
        let frames = database.logFrames
        guard frames > tail else { return }
        // Decided and marked at once: of the destinations writing the database, one starts a pass, one
        // copies a tail.
        let next = shared.withLock { state in
            if let copied = state.copied, copied > frames { state.copied = nil }
            let next = step(frames: frames, running: state.running, copied: state.copied, failed: state.failed)
            switch next {
            case .none: break
            case .pass: state.running = true
            case .copy, .waitAndCopy: state.tails += 1
            }
            if next != .none { state.copied = nil }
            return next
        }
        switch next {
        case .none:
            return
        case .pass:
            thread.submit { [shared, path, beforePass] in
                beforePass()
                Self.pass(shared, path: path)
            }
        case .copy:
            _ = try? database.checkpoint()
        case .waitAndCopy:
            thread.awaitIdle()
            _ = try? database.checkpoint()
            // The pass waited for counted the log before this copy.
            shared.withLock { $0.copied = nil }
        }
    }

    /// A pass, on the checkpointer's thread.
    private static func pass(_ shared: Locked<Shared>, path: String) {
        var connection = shared.withLock { $0.connection }
        if connection == nil {
            connection = try? SQLiteDatabase(path: path, create: false)
            if let connection {
                // The checkpoint syncs the log and the database to disk as the committing connection's would.
                try? connection.serialized { () throws(SQLiteError) in
                    try connection.execute("PRAGMA synchronous=NORMAL")
                }
            }
        }
        let copied = connection.flatMap { connection in
            connection.serialized { try? connection.checkpoint() }
        }
        shared.withLock {
            $0.connection = connection
            $0.failed = connection == nil
            $0.running = false
            $0.copied = copied
            $0.passes += 1
        }
    }
}
