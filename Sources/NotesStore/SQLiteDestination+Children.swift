public import NotesFetch
public import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// What a sync reads of a table to walk its children: the rows as parents, and each child walk's checkpoint.

extension SQLiteDestination: ParentTable {
    /// The checkpoint of the table's own walk (not a child walk's), if there is one.
    public func checkpoint() throws(StoreError) -> WalkCheckpoint? {
        try walks(from: table, below: table + "#").first { $0.0 == table }?.1
    }

    /// The checkpoint of the table's child walk for `parent` (a child resource's table), if there is one.
    public func childWalk(parent: String) throws(StoreError) -> WalkCheckpoint? {
        let key = ChildUnit.walkKey(table: table, parent: parent)
        return try walks(from: key, below: key + "\u{1}").first { $0.0 == key }?.1
    }

    /// The windows of the table's walks (a sliced resource's), each with whether its walk reached its end.
    public func windowWalks(path: FieldPath) throws(StoreError) -> [(window: SliceWindow, isDone: Bool)] {
        try walks(from: table + "@", below: table + "A").compactMap { key, checkpoint in
            SliceWindow(path: path, key: String(key.dropFirst(table.count + 1))).map { ($0, checkpoint.isDone) }
        }
    }

    /// The checkpoints kept under keys from `low` (included) to `high` (excluded).
    private func walks(from low: String, below high: String) throws(StoreError) -> [(String, WalkCheckpoint)] {
        try storeErrors { () throws -> [(String, WalkCheckpoint)] in
            guard try exists("notes_page_walks") else { return [] }
            let select = try database.prepare(
                "SELECT \"table\", version, checkpoint FROM notes_page_walks WHERE \"table\" >= ? AND \"table\" < ?",
                "reading the checkpoints")
            try select.bind(1, text: low)
            try select.bind(2, text: high)
            var found: [(String, WalkCheckpoint)] = []
            while try select.step("reading the checkpoints") {
                let key = select.text(0) ?? ""
                guard select.integer(1) == Self.version,
                    let checkpoint = try? JSONDecoder().decode(WalkCheckpoint.self, from: Data(select.bytes(2)))
                else {
                    throw StoreError("'\(path)': the checkpoint of \(key.prefix(120)) is damaged or of another version")
                }
                found.append((key, checkpoint))
            }
            return found
        }
    }

    /// Calls `body` with each row of the table, in the order rows first arrived: all of them, or in a child
    /// resource's table (`child`) those under `parent` when given.
    public func forEachParentRow(
        child: Bool, under parent: String? = nil, _ body: (ParentRow) throws(StoreError) -> Void
    ) throws(StoreError) {
        try storeErrors { () throws in
            guard try exists(table) else { return }
            let columns = child ? "parent, id, json, run" : "NULL, id, json, run"
            let filter = parent == nil ? "" : " WHERE parent = ?"
            let select = try database.prepare(
                "SELECT \(columns) FROM \"\(table)\"\(filter) ORDER BY rowid", "reading table \(table)")
            if let parent { try select.bind(1, text: parent) }
            while try select.step("reading table \(table)") {
                let id = select.text(1) ?? ""
                let key = child ? ChildUnit.key(parent: select.text(0) ?? "", id: id) : id
                try body(ParentRow(key: key, json: select.bytes(2), run: select.integer(3)))
            }
        }
    }

    /// Runs `body` holding the connection (``SQLiteDatabase/serialized(_:)``): a SQLite error as a
    /// ``StoreError``, any other naming the file.
    func storeErrors<Result>(_ body: () throws -> Result) throws(StoreError) -> Result {
        try database.serialized { () throws(StoreError) -> Result in
            do {
                return try body()
            } catch let error as SQLiteError {
                throw StoreError(error)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError("'\(path)': \(error)")
            }
        }
    }

    private func exists(_ name: String) throws(SQLiteError) -> Bool {
        let exists = try database.prepare("SELECT count(*) FROM sqlite_schema WHERE name = ?")
        try exists.bind(1, text: name)
        _ = try exists.step()
        return exists.integer(0) > 0
    }
}
