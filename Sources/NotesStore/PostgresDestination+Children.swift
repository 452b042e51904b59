#if canImport(CPostgres)
    public import NotesFetch
    public import NotesPage

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    // What a sync reads of a PostgreSQL table to walk its children, as of a SQLite one.

    extension PostgresDestination: ParentTable {
        public func checkpoint() throws(StoreError) -> WalkCheckpoint? {
            try walk(table)
        }

        public func childWalk(parent: String) throws(StoreError) -> WalkCheckpoint? {
            try walk(ChildUnit.walkKey(table: table, parent: parent))
        }

        public func windowWalks(path: FieldPath) throws(StoreError) -> [(window: SliceWindow, isDone: Bool)] {
            do {
                let exists = try database.query(
                    "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'notes_page_walks'",
                    [Array(schema.utf8)], "reading the schema")
                guard !exists.isEmpty else { return [] }
                let rows = try database.query(
                    "SELECT \"table\", version, checkpoint FROM \(walks) WHERE \"table\" COLLATE \"C\" > $1 AND \"table\" COLLATE \"C\" < $2",
                    [Array((table + "@").utf8), Array((table + "A").utf8)], "reading the checkpoints")
                return try rows.compactMap { row throws(StoreError) in
                    let key = row[0] ?? ""
                    let checkpoint = try Self.checkpoint(version: row[1], json: row[2], key: key)
                    return SliceWindow(path: path, key: String(key.dropFirst(table.count + 1))).map {
                        ($0, checkpoint.isDone)
                    }
                }
            } catch let error as PostgresError {
                throw StoreError(error)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError("\(error)")
            }
        }

        /// A row of `notes_page_walks` read back: its format's version and its checkpoint's JSON.
        private static func checkpoint(version: String?, json: String?, key: String) throws(StoreError)
            -> WalkCheckpoint
        {
            guard version == "\(Self.version)", let json,
                let checkpoint = try? JSONDecoder().decode(WalkCheckpoint.self, from: Data(json.utf8))
            else { throw StoreError("the checkpoint of \(key.prefix(120)) is damaged or of another version") }
            return checkpoint
        }

        /// The checkpoint kept under `key`, if there is one (no table of checkpoints yet: none).
        private func walk(_ key: String) throws(StoreError) -> WalkCheckpoint? {
            do {
                // Once there, the table of checkpoints stays: looked for once a connection.
                let made = "\(schema).notes_page_walks"
                if !database.ready.contains(made) {
                    let exists = try database.query(
                        "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'notes_page_walks'",
                        [Array(schema.utf8)], "reading the schema")
                    guard !exists.isEmpty else { return nil }
                    database.ready.insert(made)
                }
                let rows = try database.query(
                    "SELECT version, checkpoint FROM \(walks) WHERE \"table\" = $1", [Array(key.utf8)],
                    "reading the checkpoint")
                guard let row = rows.first else { return nil }
                return try Self.checkpoint(version: row[0], json: row[1], key: key)
            } catch let error as PostgresError {
                database.ready.removeAll()  // the table of checkpoints looked for again
                throw StoreError(error)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError("\(error)")
            }
        }

        /// The row whose key is `key` (``ChildUnit/key(parent:id:)`` in a child resource's table), if it
        /// is there.
        public func parentRow(key: String, child: Bool) throws(StoreError) -> ParentRow? {
            var parent: String?
            var id = key
            if child {
                // The one `/` not percent-encoded parts the parent's key from the id.
                guard let slash = key.lastIndex(of: "/") else { return nil }
                parent = String(key[..<slash]).replacing("%2F", with: "/").replacing("%25", with: "%")
                id = String(key[key.index(after: slash)...]).replacing("%2F", with: "/").replacing("%25", with: "%")
            }
            do {
                let rows = try database.query(
                    "SELECT json_text, run FROM \(quotedTable) WHERE id = $1\(child ? " AND parent = $2" : "")",
                    [Array(id.utf8)] + (parent.map { [Array($0.utf8)] } ?? []), "reading table \(table)")
                return rows.first.map {
                    ParentRow(key: key, json: Array(($0[0] ?? "").utf8), run: Int($0[1] ?? "") ?? 0)
                }
            } catch {
                throw StoreError(error)
            }
        }

        public func forEachParentRow(
            child: Bool, under parent: String?, _ body: (ParentRow) throws(StoreError) -> Void
        ) throws(StoreError) {
            let rows: [[String?]]
            do {
                let exists = try database.query(
                    "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2",
                    [Array(schema.utf8), Array(table.utf8)], "reading the schema")
                guard !exists.isEmpty else { return }
                rows = try database.query(
                    """
                    SELECT \(child ? "parent" : "NULL"), id, json_text, run FROM \(quotedTable)
                    \(parent == nil ? "" : "WHERE parent = $1") ORDER BY \(child ? "parent, " : "")id
                    """, parent.map { [Array($0.utf8)] } ?? [], "reading table \(table)")
            } catch {
                throw StoreError(error)
            }
            for row in rows {
                let id = row[1] ?? ""
                let key = child ? ChildUnit.key(parent: row[0] ?? "", id: id) : id
                try body(ParentRow(key: key, json: Array((row[2] ?? "").utf8), run: Int(row[3] ?? "") ?? 0))
            }
        }
    }
#endif
