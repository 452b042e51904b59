public import NotesFetch
public import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Notes kept in a SQLite database, one row per id, each page committed in one transaction with the
/// walk's checkpoint (WAL mode: readers see whole pages appear while the walk runs).
///
/// The table (`notes`, or the name given) holds `id TEXT PRIMARY KEY` (an integer id as its digits),
/// `json TEXT NOT NULL` (the note's exact JSON: `json->>'$.title'` reads it), `title` when the contract
/// has titles, `fetched_at` (RFC 3339, UTC) and `run` (the run that last wrote the row). A note fetched
/// again replaces its row. Beside it, `notes_page_walks` keeps each table's checkpoint and
/// `notes_page_visited` the pages its current run was promised.
public final class SQLiteDestination: PageDestination {
    public let path: String
    public let table: String
    /// Whether the table has a `title` column.
    public let hasTitles: Bool
    /// The parent this walk is for, when the table is a child resource's.
    public let unit: ChildUnit?
    /// The time window this walk is of, when the table is a sliced resource's (``TimeSlices``).
    public let window: SliceWindow?
    /// The key of the walk's checkpoint: the table's name, a child walk's ``ChildUnit/walkKey(table:parent:)``
    /// or a window's ``SliceWindow/walkKey(table:key:)``.
    public let walkKey: String
    let database: SQLiteDatabase
    /// The upsert of one row, and the inserts of 2 to ``batchRows`` new rows at once, by their rows, each
    /// prepared when first needed (``insertSQL(rows:)``).
    private var upsert: SQLiteStatement?
    private var inserts: [Int: SQLiteStatement] = [:]
    private var visit: SQLiteStatement?
    private var saveCheckpoint: SQLiteStatement?
    /// Copies the write-ahead log into the database beside the commits (a database in WAL mode).
    private var checkpointer: LogCheckpointer?
    /// Called after each step of a commit; throwing stops the commit there, leaving the database as a
    /// `kill -9` at that point would (the transaction not committed is rolled back when the connection
    /// closes).
    package var afterStep: (CommitStep) throws(CommitStop) -> Void = { _ throws(CommitStop) in }

    /// Whether `name` can name the table: letters, digits and `_`, not starting with a digit, at most 64
    /// bytes, and not one of SQLite's or notes-page's own (`sqlite_…`, `notes_page_…`).
    public static func isValidTableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64,
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        let lowered = name.lowercased()
        guard !lowered.hasPrefix("sqlite_"), !lowered.hasPrefix("notes_page_") else { return false }
        return name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || ($0 < 0x80 && Character(Unicode.Scalar($0)).isLetter)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// Opens (or creates) the database at `path`.
    /// - Parameters:
    ///   - table: The notes' table; see ``isValidTableName(_:)``.
    ///   - titles: Whether notes have titles (a `title` column).
    ///   - busyTimeout: Seconds to wait for another writer's lock before failing.
    ///   - unit: The parent this walk is for, in a child resource's table (``ChildUnit``).
    ///   - window: The time window this walk is of, in a sliced resource's table.
    /// - Throws: ``StoreError`` for a file that is not SQLite, one locked past the timeout, or a name
    ///   that cannot be a table's.
    public init(
        path: String, table: String = "notes", titles: Bool = true, busyTimeout: Double = 5, unit: ChildUnit? = nil,
        window: SliceWindow? = nil
    ) throws(StoreError) {
        guard Self.isValidTableName(table) else {
            throw StoreError(
                "'\(table.prefix(80))' cannot name the table: letters, digits and _, not starting with a digit")
        }
        guard unit == nil || window == nil else {
            throw StoreError("a table is a child resource's or a sliced resource's, not both")
        }
        for column in unit?.columns ?? [] where !Self.isValidTableName(column.name) {
            throw StoreError("'\(column.name.prefix(80))' cannot name a column")
        }
        self.path = path
        self.table = table
        self.unit = unit
        self.window = window
        walkKey =
            unit.map { ChildUnit.walkKey(table: table, parent: $0.parent) }
            ?? window.map { SliceWindow.walkKey(table: table, key: $0.key) } ?? table
        hasTitles = titles
        do {
            database = try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
            // 16 KiB pages (a new database only; an existing one keeps its own): records of a few hundred
            // bytes fill fewer pages and B-tree levels. WAL: readers go on while a page commits. NORMAL: a
            // commit survives a crash of the process (what resuming needs); after a power cut the database
            // is whole, at an earlier page.
            try database.execute(
                "PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", "setting up")
            let mode = try database.prepare("PRAGMA journal_mode", "setting up")
            if try mode.step("setting up"), mode.text(0) == "wal" {
                database.countLogFrames()
                checkpointer = LogCheckpointer.forDatabase(at: path)
            }
        } catch {
            throw StoreError(error)
        }
    }

    /// Checkpoints the write-ahead log as ``LogCheckpointer`` says, with its thresholds in frames (tests:
    /// a few pages' frames), running `beforePass` before each pass on the checkpointer's thread.
    package func checkpointLog(
        start: Int, tail: Int, limit: Int, beforePass: @escaping @Sendable () -> Void = {}
    ) {
        guard checkpointer != nil else { return }
        checkpointer = LogCheckpointer(path: path, start: start, tail: tail, limit: limit, beforePass: beforePass)
    }

    /// The checkpointer's passes so far, and the tails the committing connection copied (tests).
    package var checkpoints: (passes: Int, tails: Int) { checkpointer?.counts ?? (0, 0) }

    /// Sets `pragma` on the connection (tests: `max_page_count`, to fill the database).
    package func set(_ pragma: String) throws(StoreError) {
        try storeErrors { try database.execute("PRAGMA \(pragma)") }
    }

    public var refreshesWhenComplete: Bool { true }

    /// A page's transaction takes as long as fetching a page: it runs while the next is fetched.
    public var commitsWhileFetching: Bool { true }

    private var quoted: String { "\"\(table)\"" }

    public func open(url: String, pagination: String, ids: IDSet, visited: IDSet) throws(StoreError)
        -> WalkCheckpoint?
    {
        try storeErrors { () throws -> WalkCheckpoint? in
            try database.execute(
                """
                BEGIN IMMEDIATE;
                CREATE TABLE IF NOT EXISTS notes_page_walks (
                    "table" TEXT PRIMARY KEY, version INTEGER NOT NULL, checkpoint TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS notes_page_visited (
                    "table" TEXT NOT NULL, page TEXT NOT NULL, PRIMARY KEY ("table", page)) WITHOUT ROWID;
                """, "creating the walk's tables")
            var committed = false
            defer { if !committed { try? database.execute("ROLLBACK") } }
            let read = try database.prepare(
                "SELECT version, checkpoint FROM notes_page_walks WHERE \"table\" = ?", "reading the checkpoint")
            try read.bind(1, text: walkKey)
            var found: WalkCheckpoint?
            if try read.step("reading the checkpoint") {
                guard read.integer(0) == Self.version else {
                    throw StoreError(
                        "'\(path)': table \(table) was written by a notes-page of another version (\(read.integer(0))); use another --table or file"
                    )
                }
                guard let checkpoint = try? JSONDecoder().decode(WalkCheckpoint.self, from: Data(read.bytes(1))) else {
                    throw StoreError("'\(path)': the checkpoint of table \(table) is damaged")
                }
                guard checkpoint.url == url else {
                    throw StoreError(
                        "'\(path)': table \(table) holds the notes of another endpoint (\(checkpoint.url))")
                }
                guard checkpoint.pagination == pagination else {
                    throw StoreError(
                        "'\(path)': table \(table) was walked with --paginate \(checkpoint.pagination), not \(pagination)"
                    )
                }
                found = checkpoint
            } else {
                let exists = try database.prepare(
                    "SELECT count(*) FROM sqlite_schema WHERE name = ? COLLATE NOCASE", "reading the schema")
                try exists.bind(1, text: table)
                try exists.step()
                // A child resource's table is the children's walks' alone, a sliced resource's its windows',
                // and a table's own walk's alone.
                let walks = try database.prepare(
                    """
                    SELECT sum("table" = ?), sum("table" > ? AND "table" < ?), sum("table" > ? AND "table" < ?)
                    FROM notes_page_walks
                    """, "reading")
                try walks.bind(1, text: table)
                try walks.bind(2, text: table + "#")
                try walks.bind(3, text: table + "$")
                try walks.bind(4, text: table + "@")
                try walks.bind(5, text: table + "A")
                try walks.step()
                let kind = WalkKind(unit: unit, parted: window != nil)
                if let problem = kind.refusal(
                    own: walks.integer(0), children: walks.integer(1), windows: walks.integer(2))
                {
                    throw StoreError("'\(path)': table \(table) \(problem)")
                }
                guard exists.integer(0) == 0 || (kind != .own && walks.integer(kind == .child ? 1 : 2) > 0) else {
                    throw StoreError("'\(path)': a table \(table) exists that notes-page did not write; use --table")
                }
                // The table and a checkpoint of no pages, together: the table is then always notes-page's.
                let insert = try database.prepare(
                    "INSERT INTO notes_page_walks (\"table\", version, checkpoint) VALUES (?, ?, ?)", "creating")
                try save(WalkCheckpoint(url: url, pagination: pagination), with: insert, "creating table \(table)")
            }
            if found?.pages == 0 { found = nil }  // created, and no page committed since
            if window != nil {
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(quoted) (
                        id TEXT PRIMARY KEY, slice TEXT NOT NULL, json TEXT NOT NULL,\(hasTitles ? " title TEXT," : "")
                        fetched_at TEXT NOT NULL, run INTEGER NOT NULL);
                    """, "creating table \(table)")
            } else if let unit {
                let columns = unit.columns.map { "\"\($0.name)\" TEXT, " }.joined()
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(quoted) (
                        id TEXT NOT NULL, parent TEXT NOT NULL, \(columns)json TEXT NOT NULL,\(hasTitles ? " title TEXT," : "")
                        fetched_at TEXT NOT NULL, run INTEGER NOT NULL, PRIMARY KEY (parent, id));
                    """, "creating table \(table)")
            } else {
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(quoted) (
                        id TEXT PRIMARY KEY, json TEXT NOT NULL,\(hasTitles ? " title TEXT," : "")
                        fetched_at TEXT NOT NULL, run INTEGER NOT NULL);
                    """, "creating table \(table)")
            }
            if let found, !found.isDone {
                // A run cut short: its ids, and the pages promised, as it left them.
                let run = try database.prepare(
                    "SELECT id FROM \(quoted) WHERE run = ?\(unit != nil ? " AND parent = ?" : window != nil ? " AND slice = ?" : "")",
                    "reading the run's ids")
                try run.bind(1, integer: found.runNumber)
                if let unit { try run.bind(2, text: unit.parent) }
                if let window { try run.bind(2, text: window.key) }
                while try run.step("reading the run's ids") {
                    let id = run.bytes(0)
                    _ = id.withUnsafeBytes { ids.insert($0) }
                }
                ids.commitPage()
                let pages = try database.prepare(
                    "SELECT page FROM notes_page_visited WHERE \"table\" = ?", "reading the visited pages")
                try pages.bind(1, text: walkKey)
                while try pages.step("reading the visited pages") {
                    let page = pages.bytes(0)
                    _ = page.withUnsafeBytes { visited.insert($0) }
                }
                visited.commitPage()
            }
            upsert = try database.prepare(insertSQL(rows: 1), "preparing the upsert")
            visit = try database.prepare(
                "INSERT OR IGNORE INTO notes_page_visited (\"table\", page) VALUES (?, ?)", "preparing")
            saveCheckpoint = try database.prepare(
                "INSERT OR REPLACE INTO notes_page_walks (\"table\", version, checkpoint) VALUES (?, ?, ?)",
                "preparing")
            try database.execute("COMMIT", "creating table \(table)")
            committed = true
            return found
        }
    }

    /// The format of the checkpoint row.
    static let version = 1

    /// Rows a batched insert writes: one statement run for them all, where SQLite's cost for each run
    /// (binding, stepping, resetting a statement) was as much as a row's B-tree work.
    static let batchRows = 32

    /// The values bound once a page (the time, the run, a child walk's parent or a window's key), first,
    /// from parameter 1.
    private var pageColumns: [String] {
        ["fetched_at", "run"] + (unit.map { ["parent"] + $0.columns.map { "\"\($0.name)\"" } } ?? [])
            + (window == nil ? [] : ["slice"])
    }

    /// The values each row binds (id, JSON, title), after the page's.
    private var rowColumns: [String] { ["id", "json"] + (hasTitles ? ["title"] : []) }

    /// The insert of `rows` rows: the page's values are parameters 1 to `pageColumns.count`, each used in
    /// every row, then each row's values in turn.
    ///
    /// One row is an upsert: a row already there (the same id, under the same parent) takes the new values
    /// and keeps its place. More rows are a plain insert that stops at the first such row (`OR FAIL`): an
    /// upsert of many rows, or one that may abort, has SQLite keep a statement journal (a temporary file
    /// of every B-tree page it touches, in case it must undo the statement alone), which cost more than
    /// the batching saved. A page's rows go in statements of ``batchRows`` rows, the rows left in one of
    /// their number, until one stops at a row the table holds: from that statement's first row on, the
    /// page's rows go one at a time.
    private func insertSQL(rows: Int) -> String {
        let columns = rowColumns + pageColumns
        let shared = (1...pageColumns.count).map { "?\($0)" }
        let tuples = (0..<rows).map { row in
            let first = pageColumns.count + 1 + row * rowColumns.count
            return "(" + ((first..<first + rowColumns.count).map { "?\($0)" } + shared).joined(separator: ", ") + ")"
        }
        let insert =
            "INSERT OR FAIL INTO \(quoted) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
        guard rows == 1 else { return insert }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return insert + " ON CONFLICT (\(unit == nil ? "id" : "parent, id")) DO UPDATE SET \(updates)"
    }

    public func commit(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?) throws(StoreError) {
        try database.serialized { () throws(StoreError) in
            try commitHeld(page, checkpoint: checkpoint, nextIdentity: nextIdentity)
        }
    }

    /// ``commit(_:checkpoint:nextIdentity:)``, the connection held.
    private func commitHeld(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?)
        throws(StoreError)
    {
        guard let upsert, let visit, let saveCheckpoint else {
            throw StoreError("the destination was not opened")
        }
        let fetchedAt = Array(SinceValue.rfc3339(Date().timeIntervalSince1970.rounded(.down)).utf8)
        if let note = page.notes.first(where: { $0.json == nil }) {
            throw StoreError("note \(note.id.prefix(80)) has no JSON kept")
        }
        var open = false
        do {
            try database.execute("BEGIN IMMEDIATE", "starting page \(page.number)'s transaction")
            open = true
            if checkpoint.pages == 1 {
                // The first page of a run: the pages the run before promised are forgotten.
                let forget = try database.prepare(
                    "DELETE FROM notes_page_visited WHERE \"table\" = ?", "starting the run")
                try forget.bind(1, text: walkKey)
                try forget.step("starting the run")
            }
            // The page's time, run and parent are the same for every row: bound once a page to each statement
            // the page uses, then each run binds its rows' ids, JSON and titles
            // (``SQLiteStatement/run(texts:from:_:_:)`` keeps the page's bindings).
            func bindPage(_ statement: SQLiteStatement) throws(SQLiteError) {
                statement.reset()
                try statement.bind(1, text: fetchedAt)
                try statement.bind(2, integer: checkpoint.runNumber)
                if let unit {
                    try statement.bind(3, text: unit.parent)
                    for (offset, parentColumn) in unit.columns.enumerated() {
                        if let value = parentColumn.value {
                            try statement.bind(4 + Int32(offset), text: value)
                        } else {
                            try statement.bindNull(4 + Int32(offset))
                        }
                    }
                }
                if let window { try statement.bind(3, text: window.key) }
            }
            try bindPage(upsert)
            var bound: Set<Int> = []
            // The page's number alone in the error's words: a closure that named `page` copied the whole page
            // (a retain of each of its parts) for every row.
            let number = page.number
            let notes = page.notes
            let perRow = hasTitles ? 3 : 2
            let first = Int32(pageColumns.count + 1)
            func write(_ rows: Int, with statement: SQLiteStatement, from done: Int) throws(SQLiteError) {
                try statement.run(texts: rows * perRow, from: first, "writing page \(number)") { index in
                    let note = notes[done + index / perRow]
                    switch index % perRow {
                    case 0: return note.idBytes
                    case 1: return note.json ?? []
                    default: return note.titleBytes
                    }
                }
            }
            var done = 0
            var batching = true
            while done < notes.count {
                if batching && notes.count - done > 1 {
                    // Whole batches, then the rows left in one statement of their number.
                    let rows = min(notes.count - done, Self.batchRows)
                    let insert: SQLiteStatement
                    if let prepared = inserts[rows] {
                        insert = prepared
                    } else {
                        insert = try database.prepare(insertSQL(rows: rows), "preparing the insert")
                        inserts[rows] = insert
                    }
                    if bound.insert(rows).inserted { try bindPage(insert) }
                    do {
                        try write(rows, with: insert, from: done)
                        done += rows
                    } catch {
                        guard error.isKeyConflict else { throw error }
                        // A row the table holds: the batch's rows (those written before it are written again,
                        // in place) and the page's others go one at a time, as upserts.
                        batching = false
                    }
                } else {
                    try write(1, with: upsert, from: done)
                    done += 1
                }
            }
            try afterStep(.rows)
            if let nextIdentity {
                visit.reset()
                try visit.bind(1, text: walkKey)
                try visit.bind(2, text: nextIdentity)
                try visit.step("writing page \(page.number)")
            }
            try save(checkpoint, with: saveCheckpoint, "writing page \(page.number)'s checkpoint")
            try afterStep(.checkpoint)
            try database.execute("COMMIT", "committing page \(page.number)")
            open = false
            try afterStep(.committed)
            checkpointer?.committed(database)
        } catch let stop as CommitStop {
            // As a crash would: the transaction stays open, and closing the connection rolls it back.
            throw StoreError(stop.description)
        } catch {
            if open { try? database.execute("ROLLBACK") }
            switch error {
            case let error as SQLiteError: throw StoreError(error)
            case let error as StoreError: throw error
            default: throw StoreError("'\(path)': \(error)")
            }
        }
    }

    /// Writes `checkpoint` as the table's row of `notes_page_walks` with `statement`, an insert of the
    /// table's name, the format's version and the checkpoint's JSON.
    private func save(_ checkpoint: WalkCheckpoint, with statement: SQLiteStatement, _ operation: String)
        throws(SQLiteError)
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var checkpoint = checkpoint
        checkpoint.parentRun = unit?.parentRun
        checkpoint.parentDigest = unit?.parentDigest
        statement.reset()
        try statement.bind(1, text: walkKey)
        try statement.bind(2, integer: Self.version)
        try statement.bind(3, text: Array((try? encoder.encode(checkpoint)) ?? Data()))
        try statement.step(operation)
    }

    // MARK: - Reading

    /// A row of the table.
    public struct Row: Sendable, Hashable {
        public var id: String
        public var title: String?
        /// The note's exact JSON.
        public var json: String
    }

    /// The table's rows in the order they first arrived (at most `limit`).
    public func rows(limit: Int = .max) throws(StoreError) -> [Row] {
        try storeErrors { () throws -> [Row] in
            let exists = try database.prepare("SELECT count(*) FROM sqlite_schema WHERE name = ?")
            try exists.bind(1, text: table)
            try exists.step()
            guard exists.integer(0) > 0 else { return [] }
            let select = try database.prepare(
                "SELECT id, \(hasTitles ? "title" : "NULL"), json FROM \(quoted) ORDER BY rowid LIMIT ?", "reading rows"
            )
            try select.bind(1, integer: limit)
            var rows: [Row] = []
            while try select.step("reading rows") {
                rows.append(Row(id: select.text(0) ?? "", title: select.text(1), json: select.text(2) ?? ""))
            }
            return rows
        }
    }
}
