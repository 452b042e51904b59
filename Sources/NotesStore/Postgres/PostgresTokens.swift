#if canImport(CPostgres)
    public import NotesFetch
    import Synchronization

    /// The OAuth 2.0 token a sync's workers share, one row per token endpoint and client in
    /// `notes_page_tokens` of its schema: the access token, when it is to be renewed (seconds since 1970)
    /// and the newest refresh token the server gave. A worker that finds it about to expire (or refused)
    /// locks the row, asks the token endpoint while every other waits on the lock, and commits the new
    /// tokens before any of them is used: a refresh token the server rotates is never lost, and never spent
    /// twice. The tokens are as secret as the database's own credentials: give the schema's tables to the
    /// sync's role alone.
    public final class PostgresTokens: SharedTokenStore {
        private let connection: String
        private let table: String
        private let key: String
        private let database: Mutex<UnsafeTransfer<PostgresConnection>?>

        /// Connects, and makes the table if it is not there.
        /// - Parameter key: The token endpoint and the client (one row each).
        public init(connection: String, schema: String, key: String) throws(StoreError) {
            self.connection = connection
            self.key = key
            table = "\"\(schema)\".notes_page_tokens"
            do {
                let opened = try PostgresConnection(connection, applicationName: "notes-page worker tokens")
                try PostgresDestination.makeTables(
                    """
                    CREATE TABLE IF NOT EXISTS \(table) (
                        endpoint text PRIMARY KEY, access_token text, renew_at float8, refresh_token text);
                    """, schema: schema, on: opened, "making the table of tokens")
                database = Mutex(UnsafeTransfer(opened))
            } catch {
                throw StoreError(error)
            }
        }

        public func exchange(_ body: (SharedToken?) throws(OAuth2Token.Problem) -> SharedToken?)
            throws(OAuth2Token.Problem) -> SharedToken
        {
            // What `body` answered, once it has: a connection lost before the commit is not a reason to ask the
            // token endpoint again (a refresh token spent twice revokes them all, with some servers).
            var answered: SharedToken??
            let outcome = database.withLock { held -> Result<SharedToken, OAuth2Token.Problem> in
                for attempt in 0..<2 {
                    if held == nil || held?.value.isBroken == true {
                        held = (try? PostgresConnection(connection, applicationName: "notes-page worker tokens"))
                            .map { UnsafeTransfer($0) }
                    }
                    guard let database = held?.value else { continue }
                    do {
                        return .success(try exchange(on: database, answered: &answered, body))
                    } catch let error as OAuth2Token.Problem {
                        try? database.execute("ROLLBACK", "")
                        return .failure(error)
                    } catch let error as PostgresError where error.kind == .connection && attempt == 0 {
                        held = nil
                    } catch {
                        try? database.execute("ROLLBACK", "")
                        return .failure(
                            OAuth2Token.Problem(kind: .unavailable, message: "the token kept in \(table): \(error)"))
                    }
                }
                return .failure(
                    OAuth2Token.Problem(kind: .unavailable, message: "the token kept in \(table): no connection"))
            }
            return try outcome.get()
        }

        /// One exchange in a transaction on `database`: the row locked, `body` given what it holds, what
        /// it returns written and committed (waiting for the disk) before it is returned.
        private func exchange(
            on database: PostgresConnection, answered: inout SharedToken??,
            _ body: (SharedToken?) throws(OAuth2Token.Problem) -> SharedToken?
        ) throws -> SharedToken {
            // The lock is held while one worker asks the token endpoint (60 s at most): the others wait for it.
            try database.execute(
                "BEGIN; SET LOCAL lock_timeout = '90s'; SET LOCAL synchronous_commit = on", "locking the token")
            try database.query(
                "INSERT INTO \(table) (endpoint) VALUES ($1) ON CONFLICT DO NOTHING", [Array(key.utf8)],
                "locking the token")
            let rows = try database.query(
                "SELECT access_token, renew_at, refresh_token FROM \(table) WHERE endpoint = $1 FOR UPDATE",
                [Array(key.utf8)], "locking the token")
            var kept: SharedToken?
            if let row = rows.first, let access = row[0], let renewAt = row[1].flatMap(Double.init) {
                kept = SharedToken(access: Secret(access), renewAt: renewAt, refresh: row[2].map { Secret($0) })
            } else if let refresh = rows.first?[2] ?? nil {
                kept = SharedToken(access: Secret(""), renewAt: 0, refresh: Secret(refresh))
            }
            let given: SharedToken?
            if let earlier = answered {
                given = earlier
            } else {
                given = try body(kept)
                answered = .some(given)
            }
            guard let fresh = given else {
                try database.execute("COMMIT", "locking the token")
                guard let kept else { throw OAuth2Token.Problem(kind: .unavailable, message: "no token kept") }
                return kept
            }
            try database.query(
                "UPDATE \(table) SET access_token = $2, renew_at = $3, refresh_token = $4 WHERE endpoint = $1",
                [
                    Array(key.utf8), Array(fresh.access.value.utf8),
                    Array("\(fresh.renewAt.isFinite ? fresh.renewAt : 1e300)".utf8),
                    fresh.refresh.map { Array($0.value.utf8) },
                ], "keeping the token")
            try database.execute("COMMIT", "keeping the token")
            return fresh
        }
    }
#endif
