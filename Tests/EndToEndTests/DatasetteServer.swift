import Foundation
import TestSupport

/// `Tools/apps/datasette/server.py`: a real Datasette serving a table `notes` (ids 1 to `count` but the multiples
/// of 97, each with an `updated_at`) at `url + "/notes/notes.json"`.
final class DatasetteServer: PythonAppServer {
    /// Whether `python3` on `PATH` imports Datasette and uvicorn (`Tools/apps/datasette/install.sh` installs them).
    static let isAvailable: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let python3 = TestSupport.executable(named: "python3", searchPath: path),
            let run = try? Finished(python3, ["-c", "import datasette, uvicorn"], patience: 60)
        else { return false }
        return run.status == 0
    }()

    /// Starts it with `count` notes; `database` names the SQLite file to serve (kept, so that a test can
    /// change rows between two walks; `notes.db` is served at `/notes/`), else a temporary one.
    init(count: Int, database: String? = nil) throws {
        try super.init(
            script: "Tools/apps/datasette/server.py", count: count,
            ["--quiet"] + (database.map { ["--database", $0] } ?? []))
    }
}
