#if canImport(CPostgres)
    public import NotesFetch
    import Synchronization

    /// The request gates of a sync's workers, one row per origin in `notes_page_gates` of its schema: the
    /// slot of the last request any worker took (`last_at`, a rate's slots following it) and the time before
    /// which none may start (`held_until`, a rate limit's reset). Times are the server's clock, so that the
    /// workers' own clocks never need to agree.
    ///
    /// One connection, one caller at a time (the walks of a worker take turns); a gate that cannot be
    /// reached lets requests through, each worker's own gate still keeping its rate.
    public final class PostgresGates: Sendable {
        private let connection: String
        private let table: String
        private let database: Mutex<UnsafeTransfer<PostgresConnection>?>

        /// Connects, and makes the table if it is not there.
        public init(connection: String, schema: String) throws(StoreError) {
            self.connection = connection
            table = "\"\(schema)\".notes_page_gates"
            do {
                let opened = try PostgresConnection(connection, applicationName: "notes-page worker gates")
                try opened.execute(Self.settings, "preparing the connection")
                try PostgresDestination.makeTables(
                    """
                    CREATE TABLE IF NOT EXISTS \(table) (
                        origin text PRIMARY KEY, last_at timestamptz NOT NULL, held_until timestamptz NOT NULL);
                    """, schema: schema, on: opened, "making the table of gates")
                database = Mutex(UnsafeTransfer(opened))
            } catch {
                throw StoreError(error)
            }
        }

        /// The gate of `origin` (`https://host:port`).
        package func gate(origin: String) -> some SharedGate {
            Gate(gates: self, origin: origin)
        }

        private struct Gate: SharedGate {
            let gates: PostgresGates
            let origin: String

            func reserve(interval: Double?) -> Double {
                let rows = gates.query(
                    """
                    INSERT INTO \(gates.table) AS g (origin, last_at, held_until)
                    VALUES ($1, clock_timestamp(), '-infinity')
                    ON CONFLICT (origin) DO UPDATE SET last_at = greatest(
                        g.last_at + make_interval(secs => coalesce($2::float8, 0)), g.held_until, clock_timestamp())
                    RETURNING greatest(extract(epoch FROM last_at - clock_timestamp()), 0)::float8
                    """, [Array(origin.utf8), interval.map { Array("\($0)".utf8) }])
                return rows?.first?.first.flatMap { $0.flatMap(Double.init) } ?? 0
            }

            func hold(for seconds: Double) {
                guard seconds > 0, seconds.isFinite else { return }
                _ = gates.query(
                    """
                    INSERT INTO \(gates.table) AS g (origin, last_at, held_until)
                    VALUES ($1, clock_timestamp(), clock_timestamp() + make_interval(secs => $2::float8))
                    ON CONFLICT (origin) DO UPDATE
                    SET held_until = greatest(g.held_until, clock_timestamp() + make_interval(secs => $2::float8))
                    """, [Array(origin.utf8), Array("\(seconds)".utf8)])
            }
        }

        /// A slot waits for the disk of no one, and for no lock or statement longer than 2 s.
        private static let settings =
            "SET synchronous_commit = off; SET lock_timeout = '2s'; SET statement_timeout = '2s';"

        /// Runs `sql`, connecting again once if the connection was lost; `nil` when it fails.
        private func query(_ sql: String, _ parameters: [[UInt8]?]) -> [[String?]]? {
            database.withLock { held -> [[String?]]? in
                for _ in 0..<2 {
                    if held == nil || held?.value.isBroken == true {
                        held = (try? PostgresConnection(connection, applicationName: "notes-page worker gates"))
                            .map { UnsafeTransfer($0) }
                        try? held?.value.execute(Self.settings, "preparing the connection")
                    }
                    if let rows = try? held?.value.query(sql, parameters, "taking a request's slot") { return rows }
                    held = nil
                }
                return nil
            }
        }
    }
#endif
