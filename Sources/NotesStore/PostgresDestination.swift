#if canImport(CPostgres)
    public import NotesFetch
    public import NotesPage

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif
    #if canImport(Glibc)
        import Glibc
    #endif
    import Synchronization

    /// Notes kept in a PostgreSQL table, one row per id, each page committed in one transaction with the
    /// walk's checkpoint: the copy a team shares.
    ///
    /// The table (`notes`, or the name given, in `--schema`, default `public`) holds `id text COLLATE "C"
    /// PRIMARY KEY` (an integer id as its digits), `json jsonb` (the record, for queries: `json->>'title'`;
    /// NULL for a record jsonb refuses: `\u0000` in a string, a number past `numeric`'s range), `json_text
    /// text NOT NULL` (the record's exact JSON: jsonb reorders keys, keeps the last of a repeated key and
    /// respells numbers), `title` when the contract has titles (NULL for one with U+0000 in it, which Postgres
    /// text cannot hold), `fetched_at timestamptz` (this machine's clock at the commit, to the second, as
    /// SQLite's) and `run`. Beside it, `notes_page_walks` keeps each table's checkpoint with its format's
    /// version, and `notes_page_visited` the pages its run was promised.
    ///
    /// A run over a table that holds no row of another run copies each page straight into it with `COPY`;
    /// otherwise (a refresh) rows go in through `COPY` into a temporary table, then one `INSERT … ON CONFLICT
    /// (id) DO UPDATE`. A page's rows are encoded while the page before it commits.
    /// While a walk runs, it holds an advisory lock on its table: a second walk of the same table is
    /// refused, naming the first. A connection lost mid-commit is opened again (up to five times): the
    /// checkpoint then says whether the page committed, and it is committed again only if it did not.
    public final class PostgresDestination: PageDestination {
        /// The connection string as given (it may hold a password: never shown).
        private let connection: String
        public let schema: String
        public let table: String
        /// Whether the table has a `title` column.
        public let hasTitles: Bool
        /// The parent this walk is for, when the table is a child resource's (``ChildUnit``): its rows are
        /// kept per parent, its checkpoint under `TABLE#PARENT`, its pages always staged and upserted.
        public let unit: ChildUnit?
        /// The time window this walk is of, when the table is a sliced resource's (``TimeSlices``): its rows
        /// are kept by id with the window's key in `slice`, its checkpoint under `TABLE@KEY`, its pages always
        /// staged and upserted.
        public let window: SliceWindow?
        /// The range of pages this walk is of, when the table is that of a resource split into ranges for
        /// workers (``PageRange``): kept as a window's is, the range's key in `slice`. A row of the same
        /// run that another range committed is a duplicate (a record that moved between pages).
        public let pages: PageRange?
        /// The ranges the next commit brings as units of the claim's run (``CommittedWalk`` sets them).
        public var bringing: [PageRange] = []
        var database: PostgresConnection
        /// Where the connection came from and goes back to, for a process that walks one table after another.
        private let sessions: PostgresSessions?
        /// Whether the connection was kept from an earlier walk (``sessions``): one the server has cut since
        /// (a restart) is replaced when the walk opens, never counted as the walk's failure.
        private var kept = false
        private var url = ""
        private var pagination = ""
        /// Called after each step of a commit; throwing stops the commit there, as a `kill -9` would (the
        /// transaction not committed is rolled back when the connection closes).
        package var afterStep: (CommitStep) throws(CommitStop) -> Void = { _ throws(CommitStop) in }
        /// The unit of work a worker holds for this walk (``WorkUnits``), set before ``open(url:pagination:ids:visited:)``:
        /// each page commits only while the unit is the worker's (the unit is the lock, one a worker whose
        /// lease ran out loses), and the table's advisory lock is taken shared. A transaction left open past
        /// the lease (a worker stopped mid-commit) is ended by the server, so that its row locks never hold
        /// a unit.
        public var claim: UnitClaim?

        /// The format of the checkpoint row.
        static let version = 1

        /// Connects to the server.
        /// - Parameters:
        ///   - connection: libpq's connection string or URI; libpq's environment (`PGHOST`, `PGPASSWORD`,
        ///     `~/.pgpass`) fills in what it leaves out.
        ///   - schema: Defaults to `public`.
        ///   - table: Defaults to `notes`; see ``SQLiteDestination/isValidTableName(_:)``.
        ///   - titles: Whether notes have titles (a `title` column).
        ///   - unit: The parent this walk is for, in a child resource's table.
        ///   - window: The time window this walk is of, in a sliced resource's table.
        ///   - pages: The range of pages this walk is of, in the table of a resource split into ranges.
        /// - Throws: ``StoreError``: ``StoreError/Kind/unavailable`` when the server cannot be reached (after
        ///   three more tries over 1.4 s), ``StoreError/Kind/credentials`` when it refuses the credentials.
        public init(
            connection: String, schema: String = "public", table: String = "notes", titles: Bool = true,
            unit: ChildUnit? = nil, window: SliceWindow? = nil, pages: PageRange? = nil,
            sessions: PostgresSessions? = nil
        ) throws(StoreError) {
            for (what, name) in [("table", table), ("schema", schema)] where !SQLiteDestination.isValidTableName(name) {
                throw StoreError(
                    "'\(name.prefix(80))' cannot name the \(what): letters, digits and _, not starting with a digit")
            }
            for column in unit?.columns ?? [] where !SQLiteDestination.isValidTableName(column.name) {
                throw StoreError("'\(column.name.prefix(80))' cannot name a column")
            }
            self.connection = connection
            self.schema = schema
            self.table = table
            self.unit = unit
            self.window = window
            self.pages = pages
            self.sessions = sessions
            hasTitles = titles
            if let open = sessions?.take() {
                database = open
                kept = true
                return
            }
            database = try Self.connect(connection, attempts: sessions == nil ? 3 : 6)
        }

        /// Connects, trying again while the server cannot be reached, as a page's server is: 0.2, 0.4, 0.8 s
        /// apart (`attempts` 3); a worker's walk (which keeps its connections) as its queue is, through a
        /// restart: up to 6.4 s apart (6).
        private static func connect(_ connection: String, attempts: Int) throws(StoreError) -> PostgresConnection {
            var attempt = 0
            while true {
                do {
                    return try Self.connect(connection)
                } catch  where error.kind == .unavailable && attempt < attempts {
                    attempt += 1
                    usleep(UInt32(100_000 << attempt))
                }
            }
        }

        /// Gives the connection back to ``sessions``, when it came from there: its transaction rolled back,
        /// its advisory locks released.
        deinit {
            guard let sessions, !database.isBroken,
                (try? database.execute("ROLLBACK; SELECT pg_advisory_unlock_all()", "ending the walk")) != nil
            else { return }
            sessions.give(database)
        }

        private static func connect(_ connection: String) throws(StoreError) -> PostgresConnection {
            let name = "notes-page (pid \(ProcessInfo.processInfo.processIdentifier))"
            do {
                let database = try PostgresConnection(connection, applicationName: name)
                // A page's rows arrive here first; emptied at each commit.
                // A lock another session holds past 5 s is an error (SQLSTATE 55P03), never a wait without end.
                // synchronous_commit stays on: a walk goes on after a commit only once the server has it.
                try database.execute(
                    """
                    SET client_min_messages = error;
                    SET lock_timeout = '5s';
                    CREATE TEMPORARY TABLE IF NOT EXISTS notes_page_stage (
                        id text NOT NULL, json_text text NOT NULL, title text, exact_only boolean NOT NULL)
                        ON COMMIT DELETE ROWS
                    """, "preparing the connection")
                return database
            } catch {
                throw StoreError(error)
            }
        }

        public var refreshesWhenComplete: Bool { true }
        public var commitsWhileFetching: Bool { true }

        var quotedTable: String { "\"\(schema)\".\"\(table)\"" }
        var walks: String { "\"\(schema)\".notes_page_walks" }
        private var visitedTable: String { "\"\(schema)\".notes_page_visited" }
        /// The walk's key in the checkpoint rows: the table's name, a child walk's `TABLE#PARENT`, a window's
        /// `TABLE@KEY`.
        private var key: [UInt8] {
            Array(
                (unit.map { ChildUnit.walkKey(table: table, parent: $0.parent) }
                    ?? part.map { SliceWindow.walkKey(table: table, key: $0) } ?? table).utf8)
        }

        /// The key of the part of the resource this walk is: its time window's or its range of pages'.
        private var part: String? { window?.key ?? pages?.key }

        public func open(url: String, pagination: String, ids: IDSet, visited: IDSet) throws(StoreError)
            -> WalkCheckpoint?
        {
            do {
                return try openOnce(url: url, pagination: pagination, ids: ids, visited: visited)
            } catch  where kept && error.kind == .unavailable {
                // A connection kept from an earlier walk, cut since: a new one, through a restart.
                kept = false
                database = try Self.connect(connection, attempts: 6)
                return try openOnce(url: url, pagination: pagination, ids: ids, visited: visited)
            }
        }

        private func openOnce(url: String, pagination: String, ids: IDSet, visited: IDSet) throws(StoreError)
            -> WalkCheckpoint?
        {
            self.url = url
            self.pagination = pagination
            do {
                try lock()
                // This connection made the tables and checked the table's kind before (a worker's walk after
                // another): not again.
                let readiness = "\(schema).\(table) \(WalkKind(unit: unit, parted: part != nil))"
                let ready = database.ready.contains(readiness)
                // Nothing here needs the disk before the first page's commit, which flushes it with its own.
                // `CREATE … IF NOT EXISTS` is not safe against itself at once: the walks that open tables of the
                // schema (a sync's parallel walks, workers) take turns, for the transaction.
                try database.execute(
                    ready
                        ? "BEGIN; SET LOCAL synchronous_commit = off"
                        : """
                        BEGIN; SET LOCAL synchronous_commit = off;
                        SELECT pg_advisory_xact_lock(\(Self.lockClass), hashtext('\(schema).notes_page_ddl'));
                        CREATE SCHEMA IF NOT EXISTS "\(schema)";
                        CREATE TABLE IF NOT EXISTS \(walks) (
                            "table" text PRIMARY KEY, version integer NOT NULL, checkpoint text NOT NULL);
                        CREATE TABLE IF NOT EXISTS \(visitedTable) (
                            "table" text NOT NULL, page text NOT NULL, PRIMARY KEY ("table", page));
                        """, "creating the walk's tables")
                var found = try readCheckpoint()
                if found == nil, ready {
                    try save(WalkCheckpoint(url: url, pagination: pagination), "creating table \(table)")
                } else if found == nil {
                    let exists = try database.query(
                        "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2",
                        [Array(schema.utf8), Array(table.utf8)], "reading the schema")
                    // A child resource's table is the children's walks' alone, a sliced resource's its windows',
                    // and a table's own walk's alone.
                    let walksOf = try database.query(
                        """
                        SELECT count(*) FILTER (WHERE "table" = $1),
                            count(*) FILTER (WHERE "table" COLLATE "C" > $2 AND "table" COLLATE "C" < $3),
                            count(*) FILTER (WHERE "table" COLLATE "C" > $4 AND "table" COLLATE "C" < $5)
                        FROM \(walks)
                        """,
                        [
                            Array(table.utf8), Array((table + "#").utf8), Array((table + "$").utf8),
                            Array((table + "@").utf8), Array((table + "A").utf8),
                        ], "reading")
                    let counts = (0..<3).map { Int(walksOf.first?[$0] ?? "0") ?? 0 }
                    let kind = WalkKind(unit: unit, parted: part != nil)
                    if let problem = kind.refusal(own: counts[0], children: counts[1], windows: counts[2]) {
                        throw StoreError("table \(schema).\(table) \(problem)")
                    }
                    guard exists.isEmpty || (kind != .own && counts[kind == .child ? 1 : 2] > 0) else {
                        throw StoreError("a table \(schema).\(table) exists that notes-page did not write; use --table")
                    }
                    try save(WalkCheckpoint(url: url, pagination: pagination), "creating table \(table)")
                }
                if found?.pages == 0 { found = nil }  // created, and no page committed since
                if ready {
                    // Made already.
                } else if part != nil {
                    try database.execute(
                        """
                        CREATE TABLE IF NOT EXISTS \(quotedTable) (
                            id text COLLATE "C" PRIMARY KEY, slice text COLLATE "C" NOT NULL, json jsonb,
                            json_text text NOT NULL,\(hasTitles ? " title text," : "") fetched_at timestamptz NOT NULL,
                            run integer NOT NULL)
                        """, "creating table \(table)")
                } else if let unit {
                    let columns = unit.columns.map { "\"\($0.name)\" text, " }.joined()
                    try database.execute(
                        """
                        CREATE TABLE IF NOT EXISTS \(quotedTable) (
                            id text COLLATE "C" NOT NULL, parent text COLLATE "C" NOT NULL, \(columns)json jsonb,
                            json_text text NOT NULL,\(hasTitles ? " title text," : "") fetched_at timestamptz NOT NULL,
                            run integer NOT NULL, PRIMARY KEY (parent, id))
                        """, "creating table \(table)")
                } else {
                    try database.execute(
                        """
                        CREATE TABLE IF NOT EXISTS \(quotedTable) (
                            id text COLLATE "C" PRIMARY KEY, json jsonb, json_text text NOT NULL,\(hasTitles ? " title text," : "")
                            fetched_at timestamptz NOT NULL, run integer NOT NULL)
                        """, "creating table \(table)")
                }
                if let found, !found.isDone {
                    // A run cut short: its ids, and the pages promised, as it left them.
                    let rows = try database.query(
                        "SELECT id FROM \(quotedTable) WHERE run = $1\(unit != nil ? " AND parent = $2" : part != nil ? " AND slice = $2" : "")",
                        [Array("\(found.runNumber)".utf8)]
                            + (unit.map { [Array($0.parent.utf8)] } ?? part.map { [Array($0.utf8)] } ?? []),
                        "reading the run's ids")
                    for row in rows { _ = Array((row[0] ?? "").utf8).withUnsafeBytes { ids.insert($0) } }
                    ids.commitPage()
                    let pages = try database.query(
                        "SELECT page FROM \(visitedTable) WHERE \"table\" = $1", [key], "reading the visited pages")
                    for row in pages { _ = Array((row[0] ?? "").utf8).withUnsafeBytes { visited.insert($0) } }
                    visited.commitPage()
                }
                try database.execute("COMMIT", "creating table \(table)")
                database.ready.insert(readiness)
                return found
            } catch let error as PostgresError {
                // What the connection made sure of may be gone (a schema dropped meanwhile): checked again.
                database.ready.removeAll()
                try? database.execute("ROLLBACK", "")
                throw StoreError(error)
            } catch let error as StoreError {
                database.ready.removeAll()
                try? database.execute("ROLLBACK", "")
                throw error
            } catch {
                throw StoreError("\(error)")
            }
        }

        /// Takes the table's advisory lock for the session, or throws naming who holds it.
        /// A worker's walk (``claim``) takes it shared: workers never keep each other out (their units do),
        /// one whose lease ran out and that was stopped included, while a walk that is not a worker's and
        /// one of a worker exclude each other.
        private func lock() throws(StoreError) {
            do {
                let name = Array("\(schema).".utf8) + key
                // A worker's walk: the claim's name shown in pg_stat_activity, a transaction left idle ended.
                let taken = try database.query(
                    claim == nil
                        ? "SELECT pg_try_advisory_lock(\(Self.lockClass), hashtext($1))"
                        : """
                        SELECT pg_try_advisory_lock_shared(\(Self.lockClass), hashtext($1)),
                            set_config('idle_in_transaction_session_timeout', $2, false),
                            set_config('application_name', $3, false)
                        """,
                    [name]
                        + (claim.map { [Array("\($0.lease)s".utf8), Array("notes-page worker \($0.holder)".utf8)] }
                            ?? []),
                    "locking the table")
                guard taken.first?.first == "t" else {
                    let holder = try database.query(
                        """
                        SELECT a.pid, a.application_name, coalesce(host(a.client_addr), 'a local socket'), a.backend_start
                        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.locktype = 'advisory' AND l.classid = \(Self.lockClass)::oid
                            AND l.objid = hashtext($1)::oid AND l.objsubid = 2 AND l.granted
                        """, [name], "reading who holds the table")
                    let who = holder.first.map { row in
                        "\(row[1] ?? "a client") (backend \(row[0] ?? "?"), from \(row[2] ?? "?"), since \(row[3] ?? "?"))"
                    }
                    throw StoreError(
                        "another walk of \(schema).\(table) is running: \(who ?? "a session") holds its lock",
                        kind: .output)
                }
            } catch let error as PostgresError {
                throw StoreError(error)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError("\(error)")
            }
        }

        /// The first key of the project's advisory locks: "np" in ASCII.
        static let lockClass = 0x6E70

        /// Makes schema `schema` and the tables `tables` (`CREATE TABLE IF NOT EXISTS …;` statements) on
        /// `database` in a transaction of their own, taking turns with every other process making tables of
        /// the schema: `CREATE … IF NOT EXISTS` is not safe against itself at once.
        static func makeTables(_ tables: String, schema: String, on database: PostgresConnection, _ operation: String)
            throws(PostgresError)
        {
            try database.execute(
                """
                BEGIN;
                SELECT pg_advisory_xact_lock(\(lockClass), hashtext('\(schema).notes_page_ddl'));
                SET LOCAL client_min_messages = error;
                CREATE SCHEMA IF NOT EXISTS "\(schema)";
                \(tables)
                COMMIT
                """, operation)
        }

        /// The table's checkpoint, if there is one.
        private func readCheckpoint() throws -> WalkCheckpoint? {
            let rows = try database.query(
                "SELECT version, checkpoint FROM \(walks) WHERE \"table\" = $1", [key], "reading the checkpoint")
            guard let row = rows.first else { return nil }
            guard row[0] == "\(Self.version)" else {
                throw StoreError(
                    "table \(schema).\(table) was written by a notes-page of another version (\(row[0] ?? "?")); use another --table"
                )
            }
            guard let text = row[1],
                let checkpoint = try? JSONDecoder().decode(WalkCheckpoint.self, from: Data(text.utf8))
            else { throw StoreError("the checkpoint of table \(schema).\(table) is damaged") }
            guard checkpoint.url == url else {
                throw StoreError("table \(schema).\(table) holds the notes of another endpoint (\(checkpoint.url))")
            }
            guard checkpoint.pagination == pagination else {
                throw StoreError(
                    "table \(schema).\(table) was walked with --paginate \(checkpoint.pagination), not \(pagination)")
            }
            return checkpoint
        }

        /// Writes `checkpoint` as the table's row of `notes_page_walks`.
        private func save(_ checkpoint: WalkCheckpoint, _ operation: String) throws(PostgresError) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var checkpoint = checkpoint
            checkpoint.parentRun = unit?.parentRun
            checkpoint.parentDigest = unit?.parentDigest
            let json = Array((try? encoder.encode(checkpoint)) ?? Data())
            try database.query(
                """
                INSERT INTO \(walks) ("table", version, checkpoint) VALUES ($1, $2, $3)
                ON CONFLICT ("table") DO UPDATE SET version = excluded.version, checkpoint = excluded.checkpoint
                """, [key, Array("\(Self.version)".utf8), json], operation)
        }

        public func commit(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?) throws(StoreError) {
            var attempt = 0
            while true {
                do {
                    try commitOnce(page, checkpoint: checkpoint, nextIdentity: nextIdentity)
                    return
                } catch let stop as CommitStop {
                    throw StoreError(stop.description)
                } catch let error as PostgresError where error.kind == .connection && attempt < 5 {
                    // The connection is gone: open another (0.2, 0.4, 0.8, 1.6, 3.2 s apart, for a server that
                    // restarts), and let the checkpoint say whether the page committed before it went.
                    attempt += 1
                    usleep(UInt32(100_000 << attempt))
                    guard let reopened = try? Self.connect(connection) else { continue }
                    database = reopened
                    do {
                        try lock()
                        let stored = try readCheckpoint()
                        if let stored, stored.runNumber == checkpoint.runNumber, stored.pages >= checkpoint.pages {
                            return
                        }
                        // The pages before this one must still be there: a server that lost them (restored
                        // from a backup) is no place to go on, never a walk with a hole in it.
                        let before = stored.map { $0.runNumber == checkpoint.runNumber ? $0.pages : 0 } ?? 0
                        guard before == checkpoint.pages - 1 else {
                            throw StoreError(
                                "table \(schema).\(table): the server holds \(before) committed pages of this run, not \(checkpoint.pages - 1): run the same command again"
                            )
                        }
                    } catch let error as StoreError {
                        throw error
                    } catch {
                        continue
                    }
                } catch let error as PostgresError {
                    database.ready.removeAll()
                    try? database.execute("ROLLBACK", "")
                    throw StoreError(error, kind: error.kind == .connection ? .unavailable : .output)
                } catch let error as StoreError {
                    try? database.execute("ROLLBACK", "")
                    throw error
                } catch {
                    throw StoreError("\(error)")
                }
            }
        }

        /// Whether the pages of run `run` may go straight into the table with `COPY` (no staging, no
        /// upsert): the table held no row of another run when the run's first commit in this process
        /// looked. Every row is then this run's, so its id is in the run's id set, and a page's ids, new to
        /// the set, are new to the table. Nil until a commit asks. And the rows ``prepare(_:)`` encoded.
        private let shared = Mutex<(copiesDirectly: (run: Int, direct: Bool)?, prepared: [Int: Prepared])>((nil, [:]))

        /// A page's rows as COPY takes them, encoded for the table itself or for the staging table.
        private struct Prepared: Sendable {
            var direct: Bool
            var rows: [UInt8]
        }

        public func prepare(_ page: FetchedPage) {
            // A first run copies straight in unless a commit has found otherwise; a child walk never does.
            let direct = unit == nil && part == nil && shared.withLock { $0.copiesDirectly?.direct ?? true }
            let rows = try? PostgresRows.encode(page, titles: hasTitles, direct: direct)
            shared.withLock { $0.prepared[page.number] = rows.map { Prepared(direct: direct, rows: $0) } }
        }

        /// The rows of `page`: those ``prepare(_:)`` encoded if they fit, else encoded now.
        private func rows(of page: FetchedPage, direct: Bool) throws -> [UInt8] {
            // The next page's may be there too (encoded while this commit began): it stays.
            let prepared = shared.withLock { state in
                defer { state.prepared = state.prepared.filter { $0.key > page.number } }
                return state.prepared[page.number]
            }
            if let prepared, prepared.direct == direct,
                prepared.rows.count > 0 || page.notes.isEmpty
            {
                return prepared.rows
            }
            return try PostgresRows.encode(page, titles: hasTitles, direct: direct)
        }

        private func commitOnce(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?) throws {
            let operation = "writing page \(page.number)"
            try database.execute("BEGIN", "starting page \(page.number)'s transaction")
            if checkpoint.pages == 1 {
                // The first page of a run: the pages the run before promised are forgotten.
                try database.query("DELETE FROM \(visitedTable) WHERE \"table\" = $1", [key], "starting the run")
            }
            let run = checkpoint.runNumber
            if shared.withLock({ $0.copiesDirectly?.run }) != run {
                let others =
                    unit != nil || part != nil
                    ? [[nil]]
                    : try database.query(
                        "SELECT 1 FROM \(quotedTable) WHERE run <> $1 LIMIT 1", [Array("\(run)".utf8)], operation)
                shared.withLock { $0.copiesDirectly = (run, others.isEmpty) }
            }
            let fetchedAt = Array(SinceValue.rfc3339(Date().timeIntervalSince1970.rounded(.down)).utf8)
            if shared.withLock({ $0.copiesDirectly?.direct }) == true {
                let rows = PostgresRows.finishing(try rows(of: page, direct: true), fetchedAt: fetchedAt, run: run)
                let copied = database.attemptCopy(
                    "COPY \(quotedTable) (id, json, json_text\(hasTitles ? ", title" : ""), fetched_at, run) FROM STDIN",
                    data: rows, operation)
                if case .failure(let error) = copied {
                    guard error.sqlState == "23505" else { throw error }
                    // A row another writer put in the table: this page, and the rest of the run, upserted.
                    try database.execute("ROLLBACK", operation)
                    shared.withLock { $0.copiesDirectly = (run, false) }
                    try commitOnce(page, checkpoint: checkpoint, nextIdentity: nextIdentity)
                    return
                }
            } else {
                let rows = try rows(of: page, direct: false)
                try database.copy(
                    "COPY notes_page_stage (id, json_text, title, exact_only) FROM STDIN", data: rows, operation)
                let titleColumn = hasTitles ? ", title" : ""
                let titleUpdate = hasTitles ? ", title = excluded.title" : ""
                // A child walk's rows: its parent's key ($3) and the parent's fields ($4, a JSON object).
                // A window's rows: its key ($3).
                let parentColumns =
                    unit.map { [", parent"] + $0.columns.map { ", \"\($0.name)\"" } }?.joined()
                    ?? (part == nil ? "" : ", slice")
                let parentValues =
                    unit.map { [", $3"] + $0.columns.map { ", $4::jsonb->>'\($0.name)'" } }?.joined()
                    ?? (part == nil ? "" : ", $3")
                let parentUpdates =
                    unit.map { $0.columns.map { ", \"\($0.name)\" = excluded.\"\($0.name)\"" } }?.joined()
                    ?? (part == nil ? "" : ", slice = excluded.slice")
                var parameters: [[UInt8]?] = [Array("\(run)".utf8), fetchedAt]
                if let unit {
                    parameters.append(Array(unit.parent.utf8))
                    // The parent's fields, when it includes any: a parameter the statement does not use is an error.
                    if !unit.columns.isEmpty {
                        var object: [String: String?] = [:]
                        for column in unit.columns { object[column.name] = column.value }
                        parameters.append(Array((try? JSONEncoder().encode(object)) ?? Data("{}".utf8)))
                    }
                }
                if let part { parameters.append(Array(part.utf8)) }
                // A range's row is not taken over from another range of the same run: a duplicate.
                let kept =
                    pages == nil
                    ? "" : " WHERE \(quotedTable).run <> excluded.run OR \(quotedTable).slice = excluded.slice"
                let written = try database.query(
                    """
                    WITH written AS (
                        INSERT INTO \(quotedTable) (id\(parentColumns), json, json_text\(titleColumn), fetched_at, run)
                        SELECT id\(parentValues), CASE WHEN exact_only THEN NULL ELSE json_text::jsonb END,
                            json_text\(titleColumn), $2::timestamptz, $1::integer FROM notes_page_stage
                        ON CONFLICT (\(unit == nil ? "id" : "parent, id")) DO UPDATE SET json = excluded.json,
                            json_text = excluded.json_text\(titleUpdate)\(parentUpdates), fetched_at = excluded.fetched_at,
                            run = excluded.run\(kept)
                        RETURNING 1)
                    SELECT count(*) FROM written
                    """, parameters, operation)
                if let pages, Int(written.first?[0] ?? "") != page.notes.count {
                    try duplicate(in: page, range: pages, run: run, operation)
                }
            }
            try afterStep(.rows)
            if let nextIdentity {
                try database.query(
                    "INSERT INTO \(visitedTable) (\"table\", page) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    [key, Array(nextIdentity.utf8)], operation)
            }
            try save(checkpoint, "writing page \(page.number)'s checkpoint")
            if let claim { try fence(claim, page: page, checkpoint: checkpoint, bringing: bringing) }
            try afterStep(.checkpoint)
            try database.execute("COMMIT", "committing page \(page.number)")
            try afterStep(.committed)
        }

        /// Throws the duplicate a range's page brought: a record of `page` that another range of the same run
        /// committed (offsets or page numbers that moved while the ranges were walked).
        private func duplicate(in page: FetchedPage, range: PageRange, run: Int, _ operation: String) throws {
            let found = try database.query(
                """
                SELECT t.id, t.slice FROM notes_page_stage s JOIN \(quotedTable) t ON t.id = s.id
                WHERE t.run = $1 AND t.slice <> $2 ORDER BY t.id LIMIT 1
                """, [Array("\(run)".utf8), Array(range.key.utf8)], operation)
            guard let row = found.first else {
                throw StoreError("page \(page.number): the table kept fewer rows than the page has notes")
            }
            let id = page.notes.first { $0.id == row[0] }?.quotedID ?? (row[0] ?? "")
            throw StoreError(
                "duplicate id \(id) on page \(page.number), committed by \(row[1] ?? "another range") of the same run: the server's pages moved while they were walked",
                kind: .record)
        }

        // MARK: - Reading

        /// The table's rows, by id (at most `limit`): what tests read back.
        public func rows(limit: Int = .max) throws(StoreError) -> [SQLiteDestination.Row] {
            do {
                let rows = try database.query(
                    "SELECT id, \(hasTitles ? "title" : "NULL"), json_text FROM \(quotedTable) ORDER BY id LIMIT $1",
                    [Array("\(min(limit, Int(Int32.max)))".utf8)], "reading rows")
                return rows.map { SQLiteDestination.Row(id: $0[0] ?? "", title: $0[1], json: $0[2] ?? "") }
            } catch {
                throw StoreError(error)
            }
        }

        /// The backend process of the destination's connection (tests terminate it).
        package var backendPID: Int32 { database.backendPID }
    }
#endif
