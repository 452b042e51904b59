public import Foundation

/// The `sqlite3` shell (Debian's `sqlite3`): the database read back by a program other than notes-page.
public enum SQLiteShell {
    public static let executable = TestSupport.executable(
        named: "sqlite3", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")
    public static var isAvailable: Bool { executable != nil }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What `sql` prints in the shell's list mode (columns separated by `|`); an error of the shell is thrown.
    /// The shell waits up to 10 s for a lock, as any reader of a live database should: the last connection
    /// of a walk, closing, checkpoints the write-ahead log under an exclusive lock, and a test's in-process
    /// run may still be closing it.
    public static func query(_ database: String, _ sql: String, options: [String] = []) throws -> String {
        guard let executable else { throw Failure(description: "no sqlite3") }
        let run = try Finished(executable, ["-cmd", ".timeout 10000"] + options + [database, sql], patience: 60)
        guard run.status == 0, run.stderr.isEmpty else {
            throw Failure(description: "sqlite3 \(database) '\(sql)': exit \(run.status): \(run.stderr)")
        }
        return run.stdout
    }

    /// The rows of `sql`, as the shell's `-json` mode writes them.
    public static func rows(_ database: String, _ sql: String) throws -> [[String: Any]] {
        let text = try query(database, sql, options: ["-json"])
        guard !text.isEmpty else { return [] }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
    }
}
