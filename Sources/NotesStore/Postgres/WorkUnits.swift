/// A unit of work a worker holds while it walks it: what each page's commit checks, in its own
/// transaction, before it may commit (``PostgresDestination/claim``).
public struct UnitClaim: Sendable, Hashable {
    /// The unit's row in `notes_page_units`.
    public var unit: Int64
    /// The sync's run the unit belongs to.
    public var run: Int
    /// The claim's own name: the worker's (``WorkUnits/holder``) and the claim's number in it, so that a
    /// walk of a unit the same worker claimed again (its lease ran out under it) cannot commit either.
    public var holder: String
    /// Seconds each commit extends the lease by.
    public var lease: Int
    /// The child resources whose units each record of a committed page brings, in the same transaction.
    public var children: [String]
    /// The unit's resource: the ranges of pages a page brings are its units (``PageRange``).
    public var resource: String

    public init(unit: Int64, run: Int, holder: String, lease: Int, children: [String], resource: String = "") {
        self.unit = unit
        self.resource = resource
        self.run = run
        self.holder = holder
        self.lease = lease
        self.children = children
    }
}

#if canImport(CPostgres)
    public import NotesFetch

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif
    #if canImport(Glibc)
        import Glibc
    #endif

    /// The units of work of a sync kept in its PostgreSQL schema, which workers on any machines claim and
    /// drain together: the only coordinator is the database the copy lives in.
    ///
    /// `notes_page_runs` holds a row per run of the sync (its label, when the run was started, when it
    /// ended); `notes_page_units` a row per unit: a top-level resource's walk (`parent` empty) or a child
    /// resource's walk for one parent's key. A unit is `pending`, `running` (its `holder` has it until
    /// `lease_until`), `done` or `failed` (its error and exit code kept).
    ///
    /// A worker claims the first unit that is pending, or running with its lease run out, with
    /// `FOR UPDATE SKIP LOCKED`, so that no two workers claim one unit; each page of the unit then commits
    /// only where the same transaction finds the unit still the worker's (``UnitClaim``), so that a worker
    /// whose lease ran out (stopped, cut off) never commits after another took its unit over. A unit
    /// whose last page commits is done in that page's transaction; the child units a page's records bring
    /// are made in it too.
    ///
    /// Not for concurrent use: one thread at a time (a worker renews its leases on a second instance).
    public final class WorkUnits: @unchecked Sendable {
        private let connection: String
        public let schema: String
        /// This worker's name in the units it holds: its host, its process id and a random part.
        public let holder: String
        /// Seconds a claim lasts without being renewed.
        public let lease: Int
        var database: PostgresConnection
        /// Claims made, which number the next claim's name.
        private var claims = 0

        /// Connects, and makes the tables if they are not there.
        /// - Parameter holder: The worker's name, when it has one already (a second connection of its own).
        /// - Throws: ``StoreError`` as ``PostgresDestination/init(connection:schema:table:titles:unit:)``.
        public init(connection: String, schema: String, lease: Int, holder: String? = nil) throws(StoreError) {
            guard SQLiteDestination.isValidTableName(schema) else {
                throw StoreError("'\(schema.prefix(80))' cannot name the schema")
            }
            self.connection = connection
            self.schema = schema
            self.lease = lease
            var host = [CChar](repeating: 0, count: 256)
            gethostname(&host, 255)
            let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            self.holder =
                holder
                ?? "\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).prefix(64)):\(getpid()):\(random)"
            database = try Self.connect(connection, holder: self.holder)
            try retrying("making the tables of units") { database in
                try PostgresDestination.makeTables(
                    """
                    CREATE TABLE IF NOT EXISTS \(runs) (
                        run serial PRIMARY KEY, label text UNIQUE, plan text NOT NULL,
                        started_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
                    CREATE TABLE IF NOT EXISTS \(units) (
                        id bigserial PRIMARY KEY, run integer NOT NULL, resource text NOT NULL,
                        parent text COLLATE "C" NOT NULL, state text NOT NULL DEFAULT 'pending',
                        holder text, lease_until timestamptz, failures integer NOT NULL DEFAULT 0,
                        pages integer NOT NULL DEFAULT 0, records bigint NOT NULL DEFAULT 0,
                        started_at timestamptz, ended_at timestamptz, error text, exit_code integer,
                        UNIQUE (run, resource, parent));
                    CREATE INDEX IF NOT EXISTS notes_page_units_open ON \(units) (run, id)
                        WHERE state IN ('pending', 'running');
                    """, schema: schema, on: database, "making the tables of units")
            }
        }

        static let lockClass = PostgresDestination.lockClass

        var runs: String { "\"\(schema)\".notes_page_runs" }
        var units: String { "\"\(schema)\".notes_page_units" }

        private static func connect(_ connection: String, holder: String) throws(StoreError) -> PostgresConnection {
            do {
                let database = try PostgresConnection(connection, applicationName: "notes-page worker \(holder)")
                // A claim, a renewal or a failure the server loses in a crash is safe to lose: a page commits
                // only where its own transaction (synchronous) finds the unit the worker's. Only a run's start
                // waits for the disk (``join(label:firstUnits:)``).
                try database.execute(
                    "SET lock_timeout = '5s'; SET synchronous_commit = off", "preparing the connection")
                return database
            } catch {
                throw StoreError(error)
            }
        }

        /// Runs `body`, connecting again when the connection is lost (a server that restarts: 0.2 to 6.4 s
        /// apart, six times); a statement the server refuses is thrown at once.
        @discardableResult
        private func retrying<Result>(_ operation: String, _ body: (PostgresConnection) throws -> Result)
            throws(StoreError) -> Result
        {
            var attempt = 0
            while true {
                do {
                    return try body(database)
                } catch let error as PostgresError where error.kind == .connection && attempt < 6 {
                    attempt += 1
                    usleep(UInt32(100_000 << attempt))
                    if let reopened = try? Self.connect(connection, holder: holder) { database = reopened }
                } catch let error as PostgresError {
                    try? database.execute("ROLLBACK", "")
                    throw StoreError(error)
                } catch let error as StoreError {
                    try? database.execute("ROLLBACK", "")
                    throw error
                } catch {
                    throw StoreError("\(operation): \(error)")
                }
            }
        }

        // MARK: - Runs

        /// A run of the sync, as a worker joins it.
        public struct Run: Sendable, Hashable {
            public var number: Int
            /// Whether it had ended before (a label given of a run that is over).
            public var isFinished: Bool
            /// Whether this worker started it.
            public var isNew: Bool
        }

        /// Joins the sync's run: the one labelled `label` when given (made if there is none), else the
        /// run not yet finished, else a new one. A new run's units are made by `firstUnits` in the same
        /// transaction (each a resource's name and a parent's key, empty for a top-level walk), so that
        /// workers starting at once all join the same run with all of them.
        /// - Parameter plan: What the workers of one run must share (the sync's resources, which are walked,
        ///   `--full`): a worker of another plan is refused, naming the run.
        public func join(
            label: String?, plan: String, firstUnits: () throws(StoreError) -> [(resource: String, parent: String)]
        ) throws(StoreError) -> Run {
            try retrying("joining the sync's run") { database in
                try database.execute(
                    """
                    BEGIN; SET LOCAL synchronous_commit = on; SET LOCAL lock_timeout = 0;
                    SELECT pg_advisory_xact_lock(\(Self.lockClass), hashtext('\(schema).notes_page_runs'))
                    """, "joining the sync's run")
                let found =
                    try label.map {
                        try database.query(
                            "SELECT run, finished_at IS NOT NULL, plan FROM \(runs) WHERE label = $1", [Array($0.utf8)],
                            "reading the runs")
                    }
                    ?? database.query(
                        "SELECT run, false, plan FROM \(runs) WHERE finished_at IS NULL ORDER BY run DESC LIMIT 1", [],
                        "reading the runs")
                if let row = found.first {
                    try database.execute("COMMIT", "joining the sync's run")
                    guard row[2] == plan else {
                        throw StoreError(
                            "run \(row[0] ?? "?") of schema \(schema) was started by workers of another sync (other resources, sources or --full): give the same command, or another --run"
                        )
                    }
                    return Run(number: Int(row[0] ?? "") ?? 0, isFinished: row[1] == "t", isNew: false)
                }
                let made = try database.query(
                    "INSERT INTO \(runs) (label, plan) VALUES ($1, $2) RETURNING run",
                    [label.map { Array($0.utf8) }, Array(plan.utf8)],
                    "starting a run")
                let run = Int(made.first?[0] ?? "") ?? 0
                try add(firstUnits(), run: run, in: database)
                try database.execute("COMMIT", "starting a run")
                return Run(number: run, isFinished: false, isNew: true)
            }
        }

        /// The run labelled `label`, over or not, if there is one.
        public func run(label: String) throws(StoreError) -> Run? {
            try retrying("reading the runs") { database in
                try database.query(
                    "SELECT run, finished_at IS NOT NULL FROM \(runs) WHERE label = $1", [Array(label.utf8)],
                    "reading the runs"
                ).first.map { Run(number: Int($0[0] ?? "") ?? 0, isFinished: $0[1] == "t", isNew: false) }
            }
        }

        /// The run not yet over (the one labelled `label`, when given), if there is one; none is started.
        public func openRun(label: String?) throws(StoreError) -> Run? {
            try retrying("reading the runs") { database in
                let rows = try database.query(
                    """
                    SELECT run FROM \(runs) WHERE finished_at IS NULL\(label == nil ? "" : " AND label = $1")
                    ORDER BY run DESC LIMIT 1
                    """, label.map { [Array($0.utf8)] } ?? [], "reading the runs")
                return rows.first.map { Run(number: Int($0[0] ?? "") ?? 0, isFinished: false, isNew: false) }
            }
        }

        /// Inserts `units` (new ones only) into run `run`, in the caller's transaction.
        private func add(_ units: [(resource: String, parent: String)], run: Int, in database: PostgresConnection)
            throws
        {
            for start in stride(from: 0, to: units.count, by: 10_000) {
                let batch = units[start..<min(start + 10_000, units.count)]
                try database.query(
                    """
                    INSERT INTO \(self.units) (run, resource, parent)
                    SELECT $1::integer, r, p FROM unnest($2::text[], $3::text[]) AS u (r, p) ON CONFLICT DO NOTHING
                    """,
                    [
                        Array("\(run)".utf8), Self.arrayLiteral(batch.map(\.resource)),
                        Self.arrayLiteral(batch.map(\.parent)),
                    ],
                    "adding units of work")
            }
            if !units.isEmpty { try notify(in: database) }
        }

        /// The channel whose notifications say that units came to claim (a run's, a page's children, units
        /// given back); the payload is the schema.
        static let channel = "notes_page_units"

        /// Tells the workers waiting (``UnitSignal``) that units came: sent when the transaction commits.
        private func notify(in database: PostgresConnection) throws {
            try database.query("SELECT pg_notify('\(Self.channel)', $1)", [Array(schema.utf8)], "telling the workers")
        }

        /// `values` as a PostgreSQL array literal of text: each element quoted, `"` and `\` escaped.
        static func arrayLiteral(_ values: some Collection<String>) -> [UInt8] {
            var bytes: [UInt8] = [UInt8(ascii: "{")]
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "\""))
                for byte in value.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                    bytes.append(byte)
                }
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
            return bytes
        }

        // MARK: - Units

        /// A unit a worker claimed.
        public struct Claimed: Sendable, Hashable {
            public var id: Int64
            public var resource: String
            /// The parent's key; empty for a top-level resource's walk.
            public var parent: String
            /// Whether a worker held it before whose lease ran out.
            public var takenOver: Bool
            /// The claim's name (``UnitClaim/holder``).
            public var holder: String
        }

        /// Claims the first unit of run `run` that is pending, or running under a lease that ran out.
        /// - Returns: `nil` when there is none to claim now.
        public func claim(run: Int) throws(StoreError) -> Claimed? {
            claims += 1
            let name = "\(holder)#\(claims)"
            return try retrying("claiming a unit of work") { database in
                let rows = try database.query(
                    """
                    WITH next AS (
                        SELECT id, state = 'running' AS taken FROM \(units)
                        WHERE run = $1::integer AND (state = 'pending' OR (state = 'running' AND lease_until < now()))
                        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                    UPDATE \(units) u SET state = 'running', holder = $2,
                        lease_until = now() + make_interval(secs => $3::integer), started_at = coalesce(started_at, now())
                    FROM next WHERE u.id = next.id
                    RETURNING u.id, u.resource, u.parent, next.taken
                    """, [Array("\(run)".utf8), Array(name.utf8), Array("\(lease)".utf8)], "claiming a unit of work")
                return rows.first.map {
                    Claimed(
                        id: Int64($0[0] ?? "") ?? 0, resource: $0[1] ?? "", parent: $0[2] ?? "",
                        takenOver: $0[3] == "t",
                        holder: name)
                }
            }
        }

        /// Extends the lease of the units the claims named `claims` still hold.
        public func renew(_ claims: [String]) throws(StoreError) {
            guard !claims.isEmpty else { return }
            try retrying("renewing a lease") { database in
                try database.query(
                    """
                    UPDATE \(units)
                    SET lease_until = greatest(lease_until, clock_timestamp() + make_interval(secs => $2::integer))
                    WHERE holder = ANY($1::text[]) AND state = 'running'
                    """, [Self.arrayLiteral(claims), Array("\(lease)".utf8)], "renewing a lease")
            }
        }

        /// Marks unit `id` done, when this worker holds it and its last page's commit has not done so
        /// already, with the units `children` brings in the same transaction (a child walk found current:
        /// its own children's).
        /// - Returns: Whether the unit was this worker's and running.
        @discardableResult
        public func finish(_ id: Int64, claim: String, run: Int, children: [(resource: String, parent: String)] = [])
            throws(StoreError) -> Bool
        {
            try retrying("finishing a unit of work") { database in
                try database.execute("BEGIN", "finishing a unit of work")
                let rows = try database.query(
                    """
                    UPDATE \(units) SET state = 'done', ended_at = now()
                    WHERE id = $1 AND holder = $2 AND state = 'running' RETURNING 1
                    """, [Array("\(id)".utf8), Array(claim.utf8)], "finishing a unit of work")
                if !rows.isEmpty { try add(children, run: run, in: database) }
                try database.execute("COMMIT", "finishing a unit of work")
                return !rows.isEmpty
            }
        }

        /// What a failure of a unit's walk came to.
        public enum Failure: Sendable, Hashable {
            /// Pending again, to be walked again.
            case retried
            /// Failed for good: its failures reached the retries, or it cannot be walked.
            case failedForGood
            /// Done already: its last page committed, which made it done.
            case done
            /// Another claim holds it: this one's lease ran out, and the failure is not the unit's.
            case takenOver
        }

        /// Counts a failure of unit `id` under claim `claim`: it is pending again, or failed for good once it
        /// has failed `retries` times (or `final`), with its error and exit code kept.
        public func fail(
            _ id: Int64, claim: String, error: String, exitCode: Int32, retries: Int, final: Bool = false
        ) throws(StoreError) -> Failure {
            try retrying("recording a unit's failure") { database in
                let rows = try database.query(
                    """
                    UPDATE \(units) SET failures = failures + 1, holder = NULL, lease_until = NULL,
                        state = CASE WHEN $5::boolean OR failures + 1 >= $3::integer THEN 'failed' ELSE 'pending' END,
                        error = $4, exit_code = $6::integer, ended_at = now()
                    WHERE id = $1 AND holder = $2 AND state = 'running' RETURNING state
                    """,
                    [
                        Array("\(id)".utf8), Array(claim.utf8), Array("\(retries)".utf8),
                        Array(error.prefix(2000).utf8),
                        Array((final ? "true" : "false").utf8), Array("\(exitCode)".utf8),
                    ], "recording a unit's failure")
                if let state = rows.first?[0] {
                    if state != "failed" { try notify(in: database) }
                    return state == "failed" ? .failedForGood : .retried
                }
                let now = try database.query(
                    "SELECT state = 'done' AND holder = $2 FROM \(units) WHERE id = $1",
                    [Array("\(id)".utf8), Array(claim.utf8)], "reading a unit")
                return now.first?[0] == "t" ? .done : .takenOver
            }
        }

        /// Gives back the units the claims named `claims` hold (the worker is stopping): pending again, at
        /// once, not counted as failures.
        public func release(_ claims: [String]) throws(StoreError) {
            guard !claims.isEmpty else { return }
            try retrying("giving units back") { database in
                try database.query(
                    """
                    WITH given AS (
                        UPDATE \(units) SET state = 'pending', holder = NULL, lease_until = NULL
                        WHERE holder = ANY($1::text[]) AND state = 'running' RETURNING 1)
                    SELECT pg_notify('\(Self.channel)', $2) WHERE EXISTS (SELECT 1 FROM given)
                    """, [Self.arrayLiteral(claims), Array(schema.utf8)], "giving units back")
            }
        }

        /// Where run `run` stands: whether a unit of it is not yet done or failed, and the first failed
        /// unit's exit code. A run with none left is marked finished.
        public func progress(run: Int) throws(StoreError) -> (isOpen: Bool, firstFailure: Int32?) {
            try retrying("reading the run") { database in
                let rows = try database.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM \(units) WHERE run = $1::integer AND state IN ('pending', 'running')),
                        (SELECT exit_code FROM \(units) WHERE run = $1::integer AND state = 'failed' ORDER BY id LIMIT 1)
                    """, [Array("\(run)".utf8)], "reading the run")
                let open = rows.first?[0] == "t"
                if !open {
                    try database.query(
                        "UPDATE \(runs) SET finished_at = now() WHERE run = $1 AND finished_at IS NULL",
                        [Array("\(run)".utf8)], "finishing the run")
                }
                return (open, rows.first?[1].flatMap { Int32($0) })
            }
        }

        // MARK: - Status

        /// What `--status` shows of a run.
        public struct Status: Sendable {
            public struct Resource: Sendable, Hashable {
                public var name: String
                public var pending = 0
                public var running = 0
                public var done = 0
                public var failed = 0
                public var pages = 0
                public var records = 0
            }

            public var run: Int
            public var label: String?
            public var started: String
            public var finished: String?
            public var resources: [Resource]
            /// The slowest units done or running: resource, parent, seconds.
            public var slowest: [(resource: String, parent: String, seconds: Double)]
            /// Failed units: resource, parent, exit code, error.
            public var failures: [(resource: String, parent: String, exitCode: Int32, error: String)]
            /// Workers holding a unit now, or that finished one within the last lease.
            public var workers: [String]
        }

        /// The latest run (or the one labelled `label`), or `nil` when the sync has none.
        public func status(label: String?) throws(StoreError) -> Status? {
            try retrying("reading the sync's status") { database in
                let found = try database.query(
                    """
                    SELECT run, label, date_trunc('second', started_at), date_trunc('second', finished_at)
                    FROM \(runs) \(label == nil ? "" : "WHERE label = $1") ORDER BY run DESC LIMIT 1
                    """, label.map { [Array($0.utf8)] } ?? [], "reading the runs")
                guard let row = found.first, let run = Int(row[0] ?? "") else { return nil }
                let number = [Array("\(run)".utf8)]
                let counts = try database.query(
                    """
                    SELECT resource, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'running'),
                        count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'failed'),
                        coalesce(sum(pages), 0), coalesce(sum(records), 0)
                    FROM \(units) WHERE run = $1 GROUP BY resource ORDER BY min(id)
                    """, number, "reading the units")
                let slowest = try database.query(
                    """
                    SELECT resource, parent, extract(epoch FROM coalesce(ended_at, now()) - started_at)::float8 AS s
                    FROM \(units) WHERE run = $1 AND started_at IS NOT NULL AND state IN ('running', 'done')
                    ORDER BY s DESC LIMIT 5
                    """, number, "reading the units")
                let failures = try database.query(
                    """
                    SELECT resource, parent, exit_code, error FROM \(units) WHERE run = $1 AND state = 'failed'
                    ORDER BY id LIMIT 20
                    """, number, "reading the units")
                let workers = try database.query(
                    """
                    SELECT DISTINCT split_part(holder, '#', 1) AS worker FROM \(units)
                    WHERE run = $1 AND holder IS NOT NULL
                        AND ((state = 'running' AND lease_until > now())
                            OR ended_at > now() - make_interval(secs => $2::integer))
                    ORDER BY worker
                    """, number + [Array("\(lease)".utf8)], "reading the workers")
                return Status(
                    run: run, label: row[1], started: row[2] ?? "", finished: row[3],
                    resources: counts.map {
                        Status.Resource(
                            name: $0[0] ?? "", pending: Int($0[1] ?? "") ?? 0, running: Int($0[2] ?? "") ?? 0,
                            done: Int($0[3] ?? "") ?? 0, failed: Int($0[4] ?? "") ?? 0, pages: Int($0[5] ?? "") ?? 0,
                            records: Int($0[6] ?? "") ?? 0)
                    },
                    slowest: slowest.map { ($0[0] ?? "", $0[1] ?? "", Double($0[2] ?? "") ?? 0) },
                    failures: failures.map { ($0[0] ?? "", $0[1] ?? "", Int32($0[2] ?? "") ?? 1, $0[3] ?? "") },
                    workers: workers.compactMap { $0[0] })
            }
        }
    }

    extension PostgresDestination {
        /// In a page's transaction, for a walk a worker holds (``claim``): adds the child units the page's
        /// records bring, then checks that the unit is still the worker's, extends its lease and counts the
        /// walk's pages, marking the unit done with the walk's last page. The check comes last, so that the
        /// unit's row is locked only while the transaction commits.
        func fence(_ claim: UnitClaim, page: FetchedPage, checkpoint: WalkCheckpoint, bringing: [PageRange]) throws {
            let units = "\"\(schema)\".notes_page_units"
            /// Makes a unit of each resource for each parent key, in the page's transaction; the workers
            /// waiting are told, once the page commits.
            func add(_ resources: [String], _ parents: [String], _ operation: String) throws {
                try database.query(
                    """
                    WITH added AS (
                        INSERT INTO \(units) (run, resource, parent)
                        SELECT $1::integer, r, p FROM unnest($2::text[]) AS r CROSS JOIN unnest($3::text[]) AS p
                        ON CONFLICT DO NOTHING RETURNING 1)
                    SELECT pg_notify('\(WorkUnits.channel)', $4) WHERE EXISTS (SELECT 1 FROM added)
                    """,
                    [
                        Array("\(claim.run)".utf8), WorkUnits.arrayLiteral(resources), WorkUnits.arrayLiteral(parents),
                        Array(schema.utf8),
                    ], operation)
            }
            if !bringing.isEmpty {
                // The ranges of pages after this one, units of the claim's resource.
                try add([claim.resource], bringing.map(\.key), "adding the ranges of pages after page \(page.number)")
            }
            if !claim.children.isEmpty, !page.notes.isEmpty {
                let keys = page.notes.map { note in
                    unit.map { ChildUnit.key(parent: $0.parent, id: note.id) } ?? note.id
                }
                try add(claim.children, keys, "adding page \(page.number)'s child units")
            }
            let held = try database.query(
                """
                UPDATE \(units)
                SET lease_until = greatest(lease_until, clock_timestamp() + make_interval(secs => $3::integer)),
                    pages = $4::integer, records = $5::bigint,
                    state = CASE WHEN $6::boolean THEN 'done' ELSE state END,
                    ended_at = CASE WHEN $6::boolean THEN now() ELSE ended_at END
                WHERE id = $1 AND holder = $2 AND state = 'running' RETURNING 1
                """,
                [
                    Array("\(claim.unit)".utf8), Array(claim.holder.utf8), Array("\(claim.lease)".utf8),
                    Array("\(checkpoint.pages)".utf8), Array("\(checkpoint.notes)".utf8),
                    Array((checkpoint.isDone ? "true" : "false").utf8),
                ], "checking that unit \(claim.unit) is still this worker's")
            guard !held.isEmpty else {
                throw StoreError(
                    "unit of work \(claim.unit) is no longer this worker's (its lease ran out and another worker took it over): page \(page.number) not committed"
                )
            }
        }
    }
#endif

#if canImport(CPostgres)
    import NotesSystem
    import Synchronization

    /// What an idle worker waits on: a connection that listens for the notifications of units that came to
    /// claim in its schema (``WorkUnits/channel``), so that it claims them at once instead of at its next
    /// look. A connection that cannot listen makes the wait a plain sleep.
    public final class UnitSignal: @unchecked Sendable {
        // Used on its own thread alone.
        private var database: PostgresConnection?
        private let thread = WorkerThread(name: "notes-units")
        private let connection: String
        private let schema: String

        public init(connection: String, schema: String) {
            self.connection = connection
            self.schema = schema
            listen()
        }

        private func listen() {
            database = try? PostgresConnection(connection, applicationName: "notes-page worker signal")
            if (try? database?.execute("LISTEN \(WorkUnits.channel)", "listening for units")) == nil { database = nil }
        }

        /// Waits at most `seconds`, less when units come to claim (on a thread of its own); returns whether
        /// they did.
        @discardableResult
        public func wait(seconds: Double) async -> Bool {
            await withCheckedContinuation { continuation in
                thread.submit { continuation.resume(returning: self.block(seconds: seconds)) }
            }
        }

        /// Takes the notifications that came while the worker was busy, without waiting: a connection that
        /// listens and is never read would fill, and hold up the server's queue of notifications.
        public func discard() {
            thread.submit { _ = self.block(seconds: 0) }
        }

        private func block(seconds: Double) -> Bool {
            if database == nil || database?.isBroken == true { listen() }
            guard let database else {
                usleep(UInt32(max(0, min(seconds, 60)) * 1_000_000))
                return false
            }
            return database.awaitNotification(payload: schema, seconds: seconds)
        }
    }

    /// Connections to one server kept open between walks (a worker walks one unit after another): a walk
    /// takes one when it starts and gives it back when it ends, its transaction rolled back and its locks
    /// released. A connection that broke is not given back.
    public final class PostgresSessions: Sendable {
        private let open = Mutex<[UnsafeTransfer<PostgresConnection>]>([])

        public init() {}

        func take() -> PostgresConnection? {
            open.withLock { $0.popLast()?.value }
        }

        func give(_ connection: PostgresConnection) {
            open.withLock { $0.append(UnsafeTransfer(connection)) }
        }
    }
#endif
