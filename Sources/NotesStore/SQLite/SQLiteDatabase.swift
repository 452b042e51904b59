internal import CSQLite

/// What SQLite said when a call failed: its result code, its message, and what was being done.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code.
    package var code: Int32
    package var message: String
    /// What the call was for, e.g. "opening 'notes.db'".
    package var operation: String

    /// Another connection holds the write lock past the busy timeout.
    package var isLocked: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    /// The disk (or the database's page limit) is full.
    package var isFull: Bool { code & 0xFF == SQLITE_FULL }
    /// A row's key is one a row of the table already has.
    package var isKeyConflict: Bool {
        code == notes_sqlite3_constraint_primarykey || code == notes_sqlite3_constraint_unique
    }
    /// The file is not a SQLite database.
    package var isNotADatabase: Bool { code & 0xFF == SQLITE_NOTADB }

    package var description: String {
        if isNotADatabase { return "\(operation): not a SQLite database" }
        if isLocked { return "\(operation): the database is locked by another writer (\(message))" }
        if isFull { return "\(operation): the disk or the database is full (\(message))" }
        return "\(operation): \(message) (SQLite error \(code))"
    }
}

/// One connection to a SQLite database: the only place in the project that calls `sqlite3_*`.
///
/// Opened without SQLite's lock around every call (`SQLITE_OPEN_NOMUTEX`): its owner runs each whole
/// operation (a page's commit, a read) inside ``serialized(_:)``, one lock taken a page where SQLite took
/// five a row. Every use of the connection or of its statements must be inside it.
package final class SQLiteDatabase {
    private let handle: OpaquePointer
    /// A recursive mutex of SQLite's (an operation may call another), held by ``serialized(_:)``.
    private let mutex: OpaquePointer
    package let path: String

    /// Opens (creating when `create`) the database at `path`, waiting up to `busyTimeout` seconds for
    /// another connection's lock.
    package init(path: String, create: Bool = true, readOnly: Bool = false, busyTimeout: Double = 5)
        throws(SQLiteError)
    {
        var flags = SQLITE_OPEN_NOMUTEX
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        }
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: message, operation: "opening '\(path)'")
        }
        // A library built without threads has mutexes that do nothing: the connection could not be handed
        // from one thread to another safely.
        guard sqlite3_threadsafe() != 0, let mutex = sqlite3_mutex_alloc(SQLITE_MUTEX_RECURSIVE) else {
            sqlite3_close_v2(handle)
            throw SQLiteError(
                code: SQLITE_MISUSE, message: "this SQLite library has no mutexes (built with SQLITE_THREADSAFE=0)",
                operation: "opening '\(path)'")
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout, 3600)) * 1000))
        self.handle = handle
        self.path = path
        self.mutex = mutex
    }

    deinit {
        sqlite3_close_v2(handle)
        sqlite3_mutex_free(mutex)
    }

    /// Runs `body` holding the connection's lock: no other thread uses the connection meanwhile.
    package func serialized<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        return try body()
    }

    /// Runs `sql` (one or more statements without parameters).
    package func execute(_ sql: String, _ operation: @autoclosure () -> String = "") throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, operation: describe(operation()))
        }
    }

    /// Compiles `sql`, whose parameters are bound with the statement's `bind` methods.
    package func prepare(_ sql: String, _ operation: @autoclosure () -> String = "") throws(SQLiteError)
        -> SQLiteStatement
    {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error(describe(operation()))
        }
        return SQLiteStatement(statement, database: self)
    }

    /// Frames in the write-ahead log after this connection's last commit, once ``countLogFrames()`` was
    /// called; 0 before.
    package private(set) var logFrames = 0

    /// Has each commit on this connection set ``logFrames`` to the frames its write-ahead log then holds.
    /// SQLite's automatic checkpoint (`wal_autocheckpoint`) is the same hook: it is off from then on, and
    /// the connection's owner checkpoints (``checkpoint()``).
    package func countLogFrames() {
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                // The connection itself, unretained: the hook goes with the connection, in `deinit`.
                Unmanaged<SQLiteDatabase>.fromOpaque(context!).takeUnretainedValue().logFrames = Int(frames)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A passive checkpoint: the write-ahead log's frames that no reader still needs are copied into the
    /// database, which is synced; never waiting for a lock or a reader.
    /// - Returns: How many of the log's frames are now in the database; `nil` when another connection's
    ///   checkpoint is running.
    /// - Throws: ``SQLiteError`` when the log cannot be read or the database written.
    package func checkpoint() throws(SQLiteError) -> Int? {
        var frames: Int32 = 0
        var copied: Int32 = 0
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        if status == SQLITE_BUSY { return nil }
        guard status == SQLITE_OK else { throw error(describe("checkpointing the write-ahead log")) }
        return Int(copied)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The error SQLite holds for the last call on this connection.
    fileprivate func error(_ operation: String) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
            operation: operation)
    }

    private func describe(_ operation: String) -> String {
        operation.isEmpty ? "'\(path)'" : "'\(path)': \(operation)"
    }

    /// The version of the SQLite library linked, e.g. "3.40.1".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A compiled statement of a ``SQLiteDatabase``: bind, step, read columns, reset.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase
    /// What ``run(texts:from:_:_:)`` binds in place, in buffers of ``bufferSize`` bytes (or one text's, when
    /// larger), made by the first run: a buffer is never empty, so its base address is never null.
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private static let bufferSize = 64 << 10

    fileprivate init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit {
        database.serialized { _ = sqlite3_finalize(statement) }
        for buffer in buffers { buffer.deallocate() }
    }

    /// Binds UTF-8 text (copied) to the 1-based parameter `index`.
    package func bind(_ index: Int32, text bytes: some Collection<UInt8>) throws(SQLiteError) {
        let statement = statement
        func bind(_ buffer: UnsafeBufferPointer<UInt8>) -> Int32 {
            // A null pointer binds NULL: an empty text is bound from an empty C string.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return notes_sqlite3_bind_text(statement, index, "", 0)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                notes_sqlite3_bind_text(statement, index, $0, Int32(clamping: buffer.count))
            }
        }
        let status = bytes.withContiguousStorageIfAvailable(bind) ?? Array(bytes).withUnsafeBufferPointer(bind)
        try check(status, "binding a value")
    }

    package func bind(_ index: Int32, text: String) throws(SQLiteError) {
        try bind(index, text: Array(text.utf8))
    }

    package func bind(_ index: Int32, integer: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(statement, index, Int64(integer)), "binding a value")
    }

    package func bindNull(_ index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(statement, index), "binding a value")
    }

    /// Runs the statement to its next row. - Returns: Whether there is a row to read.
    @discardableResult
    package func step(_ operation: @autoclosure () -> String = "running a statement") throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(operation())
        }
    }

    /// Runs the statement once with `count` texts bound to the parameters from `first` on, then resets it,
    /// keeping every other parameter's binding (a value the same for many runs is bound once, with `bind`).
    ///
    /// The texts are copied into buffers the statement owns and bound in place (`SQLITE_STATIC`): one copy
    /// and, once the buffers have grown to the largest run, no allocation, where `bind(_:text:)` has SQLite
    /// allocate a copy of each. The buffers are kept until the statement is finalized.
    /// - Parameters:
    ///   - count: How many parameters to bind.
    ///   - first: The 1-based index of the first.
    ///   - operation: What the run is for, in the error.
    ///   - text: The UTF-8 text of the parameter `first + index`.
    /// - Throws: ``SQLiteError`` when a value cannot be bound or the statement fails.
    package func run(
        texts count: Int, from first: Int32, _ operation: @autoclosure () -> String = "running a statement",
        _ text: (_ index: Int) -> ArraySlice<UInt8>
    ) throws(SQLiteError) {
        // Each text goes after the one before in the current buffer, or at the start of the next (made when
        // missing): a buffer is never moved while the texts in it are bound.
        var buffer = -1
        var offset = 0
        for index in 0..<count {
            let value = text(index)
            let length = value.count
            if buffer < 0 || offset + length > buffers[buffer].count {
                buffer += 1
                offset = 0
                if buffer == buffers.count {
                    buffers.append(.allocate(byteCount: max(length, Self.bufferSize), alignment: 1))
                } else if length > buffers[buffer].count {
                    buffers[buffer].deallocate()
                    buffers[buffer] = .allocate(byteCount: length, alignment: 1)
                }
            }
            let start = buffers[buffer].baseAddress! + offset
            if length > 0 { value.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: length) } }
            // SQLITE_STATIC (a null destructor): SQLite reads the bytes in place, which the buffer keeps until
            // the next run rebinds them.
            let status = sqlite3_bind_text(
                statement, first + Int32(index), start.assumingMemoryBound(to: CChar.self), Int32(clamping: length),
                nil)
            try check(status, "binding a value")
            offset += length
        }
        defer { sqlite3_reset(statement) }
        if sqlite3_step(statement) != SQLITE_DONE { throw database.error(operation()) }
    }

    /// Makes the statement ready to run again, its bindings cleared.
    package func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// The 0-based column `index` of the current row as text, or `nil` when it is NULL.
    package func text(_ index: Int32) -> String? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL, let text = sqlite3_column_text(statement, index)
        else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The 0-based column `index` as bytes (its text), empty when NULL.
    package func bytes(_ index: Int32) -> [UInt8] {
        guard let text = sqlite3_column_text(statement, index) else { return [] }
        return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))))
    }

    package func integer(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(statement, index))
    }

    private func check(_ status: Int32, _ operation: String) throws(SQLiteError) {
        guard status == SQLITE_OK else { throw database.error(operation) }
    }
}
