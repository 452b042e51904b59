public import NotesFetch
public import NotesPage

/// One walk of a child resource: the resource's pages for one parent record, kept in the child's table
/// beside every other parent's, with a checkpoint of its own.
///
/// The child's table holds each row once per parent (its key is the parent's key and the record's id),
/// the parent's key in `parent`, and the parent fields it includes as columns of their own. The walk's
/// checkpoint is kept under `TABLE#PARENT`, so that a run stopped during one parent's pages goes on there
/// with every other parent's walk as it was.
public struct ChildUnit: Sendable, Hashable {
    /// The parent record's key in its table (``key(parent:id:)`` for a parent that is a child itself).
    public var parent: String
    /// The run of the parent's row this walk was made for: a parent written again since (a newer run)
    /// has its children walked again.
    public var parentRun: Int
    /// The parent record's ``digest(_:)`` when this walk was made: a parent an incremental walk wrote
    /// again unchanged (the record on a `since` boundary) has its children left as they are.
    public var parentDigest: String?
    /// Columns of the parent's fields, in order, and their values for this parent.
    public var columns: [Column]

    public struct Column: Sendable, Hashable {
        public var name: String
        public var value: String?

        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    public init(parent: String, parentRun: Int, parentDigest: String? = nil, columns: [Column] = []) {
        self.parent = parent
        self.parentRun = parentRun
        self.parentDigest = parentDigest
        self.columns = columns
    }

    /// A record's digest: FNV-1a (64 bits) of its exact JSON, in hex. It tells a record written again
    /// unchanged from one that changed; it is not a defence against anyone.
    public static func digest(_ json: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in json {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The key of a child's row as a parent of its own children: its parent's key and its id, each with
    /// `%` and `/` percent-encoded, joined by `/` (so that no two rows share one).
    public static func key(parent: String, id: String) -> String {
        escaped(parent) + "/" + escaped(id)
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("%", with: "%25").replacing("/", with: "%2F")
    }

    /// The key a child walk's checkpoint is kept under: the table's name, `#`, the parent's key. A table's
    /// name holds no `#`, so that the table's own walk and its children's never share a key.
    public static func walkKey(table: String, parent: String) -> String {
        table + "#" + parent
    }
}

/// A row of a table read as a parent: its key, its exact JSON and the run that last wrote it.
public struct ParentRow: Sendable, Hashable {
    /// Its id, or in a child resource's table ``ChildUnit/key(parent:id:)``.
    public var key: String
    public var json: [UInt8]
    public var run: Int
}

/// What a sync reads of a destination's table to walk its children: its own walk's checkpoint, each child
/// walk's, and its rows as parents. SQLite's and PostgreSQL's.
public protocol ParentTable {
    /// The checkpoint of the table's own walk (not a child walk's), if there is one.
    func checkpoint() throws(StoreError) -> WalkCheckpoint?
    /// The checkpoint of the table's child walk for `parent` (a child resource's table), if there is one.
    func childWalk(parent: String) throws(StoreError) -> WalkCheckpoint?
    /// The windows of a sliced resource's table (``TimeSlices``) walked or begun, each with whether its walk
    /// reached its end; `path` is the field they are of.
    func windowWalks(path: FieldPath) throws(StoreError) -> [(window: SliceWindow, isDone: Bool)]
    /// Calls `body` with each row of the table, in the order rows first arrived: all of them, or in a
    /// child resource's table (`child`) those under `parent` when given.
    func forEachParentRow(child: Bool, under parent: String?, _ body: (ParentRow) throws(StoreError) -> Void)
        throws(StoreError)
}
