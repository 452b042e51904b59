import Foundation
import TestSupport
import Testing

// The same suite: the usage errors of the options.

extension SQLiteEndToEndTests {
    @Test(
        "Options that cannot go together, or values that cannot be: exit 64 with the message, no file made",
        arguments: [
            (["-o", "out"], "--sqlite and --output cannot go together: the database holds the notes and the state"),
            (
                ["--state", "state"],
                "--sqlite and --state cannot go together: the database holds the notes and the state"
            ),
            (["--since-path", "updated_at"], "--since-path needs --since-param: the query parameter that sends it"),
            (["--since-param", "since"], "--since-param needs --since-path: the field it is the highest of"),
            (["--lookback", "5m"], "--lookback needs --since-path and --since-param"),
            (
                ["--since-path", "updated_at", "--since-param", "since", "--lookback", "5x"],
                "Invalid --lookback '5x': expected a duration such as 30s, 5m, 2h or 1d"
            ),
            (
                ["--since-path", "updated_at", "--since-param", "since", "--lookback", "367d"],
                "Invalid --lookback '367d': expected a duration such as 30s, 5m, 2h or 1d"
            ),
            (
                ["--table", "1notes"],
                "Invalid --table '1notes': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
            (
                ["--table", "notes_page_walks"],
                "Invalid --table 'notes_page_walks': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
            (
                ["--table", "x; DROP TABLE notes"],
                "Invalid --table 'x; DROP TABLE notes': letters, digits and _, not starting with a digit, not sqlite_… or notes_page_…"
            ),
        ] as [([String], String)]
    )
    func usage(options: [String], message: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Run(
            ["fetch", "--all", "--sqlite", scratch.path("notes.db"), "http://127.0.0.1:9/notes"] + options)
        #expect(run.status == 64)
        #expect(run.stderr == "Error: \(message)\nSee 'notes-page fetch --help' for more information.\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("notes.db")))
    }

    @Test(
        "Without --sqlite: --since-path needs --state, --table needs --sqlite or --postgres",
        arguments: [
            (
                ["--since-path", "updated_at", "--since-param", "since"],
                "--since-path needs --sqlite, --postgres or --state: somewhere to keep the highest value between runs"
            ),
            (["--table", "notes"], "--table needs --sqlite or --postgres"),
        ] as [([String], String)]
    )
    func usageWithoutSQLite(options: [String], message: String) async throws {
        let run = try await Run(["fetch", "--all", "http://127.0.0.1:9/notes"] + options)
        #expect(run.status == 64)
        #expect(run.stderr == "Error: \(message)\nSee 'notes-page fetch --help' for more information.\n")
    }
}
