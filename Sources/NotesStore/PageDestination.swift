public import NotesFetch
public import NotesPage
import NotesSystem

/// Where a walk commits its pages: an NDJSON file with its state and journal (``NDJSONDestination``), a
/// SQLite database (``SQLiteDestination``), or a PostgreSQL table (`PostgresDestination`, on Linux).
///
/// A destination commits each page together with the walk's ``WalkCheckpoint``: after a crash at any
/// point, it holds whole pages and the checkpoint that names the last of them, so a walk started again
/// goes on after it, each note exactly once.
///
/// Not for concurrent use: one walk at a time commits to a destination.
public protocol PageDestination: AnyObject {
    /// Reads the checkpoint of the walk the destination holds, if any, and restores what that walk's
    /// current run committed: its ids into `ids`, the pages it was promised into `visited`.
    /// - Parameters:
    ///   - url: The endpoint, as the user gave it: a destination written by another is refused.
    ///   - pagination: The scheme (``Pagination/description``): one written by another is refused.
    /// - Throws: ``StoreError`` when the destination cannot be read or belongs to another walk.
    func open(url: String, pagination: String, ids: IDSet, visited: IDSet) throws(StoreError) -> WalkCheckpoint?

    /// Commits `page` and `checkpoint` (which counts it) at once: a crash leaves both or neither.
    /// - Parameter nextIdentity: The identity of the page after it (``PageLocator/identity(for:)``), kept
    ///   for the cycle check of a resumed run.
    func commit(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?) throws(StoreError)

    /// Whether a walk started over a complete one walks again (a copy refreshed), rather than saying it
    /// is complete.
    var refreshesWhenComplete: Bool { get }

    /// Whether a page may commit on another thread while the walk fetches the next one (the commit costs
    /// as much as a fetch). Commits stay one at a time and in order.
    var commitsWhileFetching: Bool { get }

    /// Does what a page's commit needs of the page alone (Postgres encodes its rows), on the walk's thread
    /// while the commit before it runs (where ``commitsWhileFetching``). The commit of `page` uses it, or
    /// does it again when it cannot; a failure is the commit's to report.
    func prepare(_ page: FetchedPage)
}

extension PageDestination {
    public var commitsWhileFetching: Bool { false }
    public func prepare(_ page: FetchedPage) {}
}

extension StoreError {
    init(_ error: SystemError) {
        self.init(error.description)
    }

    init(_ error: SQLiteError) {
        self.init(error.description)
    }

    #if canImport(CPostgres)
        init(_ error: PostgresError, kind: Kind? = nil) {
            let kinds: [PostgresError.Kind: Kind] = [.connection: .unavailable, .credentials: .credentials]
            self.init(error.description, kind: kind ?? kinds[error.kind] ?? .output)
        }
    #endif
}

/// The steps of a commit, in order, at which a test can stop it as a `kill -9` would.
package enum CommitStep: Sendable, Hashable, CaseIterable {
    /// NDJSON: the page's notes are in the output file.
    case output
    /// NDJSON: its ids and next URL are in the journal.
    case journal
    /// NDJSON: the state file names it (renamed into place): the page is committed.
    case state
    /// SQLite, Postgres: the page's rows are written in its transaction.
    case rows
    /// SQLite, Postgres: the checkpoint is written in the same transaction.
    case checkpoint
    /// SQLite, Postgres: the transaction is committed.
    case committed
}

/// A stop a test asks for at a ``CommitStep``.
package struct CommitStop: Error {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
