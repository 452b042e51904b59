import Foundation
import TestSupport
import Testing

// The same suite: a database locked by another writer, and files that are not the walk's (not SQLite, a
// table notes-page did not write, a copy of another endpoint).

extension SQLiteEndToEndTests {
    @Test(
        "A database locked by another writer: exit 74 naming the lock, the committed pages kept; resumed after the release"
    )
    func locked() async throws {
        let (expected, pages) = try await Self.cleanWalk()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        // Pages of about 0.25 s each, so that the walk is under way when the lock is taken.
        let server = try FixtureServer(Self.notes + ["--fault", "drip:256/10"])
        defer { server.stop() }
        let walk = Process()
        walk.executableURL = Run.binary
        walk.arguments = ["fetch", "--all", "--sqlite", database, server.url]
        let errors = Spawning.pipe()
        walk.standardError = errors
        let said = PipeReader(errors)
        try Spawning.run(walk)
        let deadline = Date().addingTimeInterval(30)
        // The shell may find the database busy while notes-page creates it.
        while ((try? Self.committedPages(database)) ?? 0) < 1 && walk.isRunning && Date() < deadline { usleep(20_000) }

        // Another writer: the sqlite3 shell in a transaction of its own, which it holds while its input is open.
        let holder = Process()
        holder.executableURL = SQLiteShell.executable
        holder.arguments = [database]
        let input = Spawning.pipe()
        let output = Spawning.pipe()
        holder.standardInput = input
        holder.standardOutput = output
        holder.standardError = output
        try Spawning.run(holder)
        input.fileHandleForWriting.write(Data(".timeout 10000\nBEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        let answer = firstLine(of: output)
        #expect(answer == "locked")
        #expect(walk.isRunning, "the walk ended before the lock was taken: \(said.text())")
        let hang = waitOrKill(walk, within: 60)
        try #require(hang == nil, "\(hang ?? "")")
        let stderr = said.text()
        let committed = try Self.committedPages(database)
        #expect(walk.terminationStatus == 74, "\(stderr)")
        #expect(
            try Regex(
                #"Error: page \#(committed + 1) \(cursor \S+\): '.*': .*the database is locked by another writer"#
            )
            .firstMatch(in: stderr) != nil, "\(stderr)")
        #expect(
            stderr.contains(
                "Stopped after \(committed) committed page\(committed == 1 ? "" : "s") (\(committed * 100) notes). Resume with: notes-page fetch --all --sqlite \(database) \(server.url)\n"
            ), "\(stderr)")
        #expect((1..<10).contains(committed))
        #expect(try SQLiteShell.query(database, "SELECT count(*) FROM notes") == "\(committed * 100)\n")

        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        #expect(waitOrKill(holder, within: 20) == nil)
        try MarkedLog.mark(server, 1)
        let resumed = try await Run(["fetch", "--all", "--quiet", "--sqlite", database, server.url])
        let log = MarkedLog(server.stop())
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT json FROM notes ORDER BY rowid") == expected)
        let asked = log.targets(after: 1).map { pages[$0] ?? 0 }
        #expect(asked == Array(committed + 1...10), "\(asked)")
    }

    @Test(
        "A file that is not SQLite, a table notes-page did not write, a copy of another endpoint: exit 74, nothing asked or changed"
    )
    func foreign() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(Self.notes)
        defer { server.stop() }
        let text = scratch.path("notes.txt")
        let words = "Just some text, not a database at all, and long enough to be read as a SQLite header.\n"
        try Files.write(words, to: text)
        try MarkedLog.mark(server, 0)
        let notADatabase = try await Run(["fetch", "--all", "--sqlite", text, server.url])
        #expect(notADatabase.status == 74)
        #expect(notADatabase.messages.hasPrefix("Error: '\(text)': "), "\(notADatabase.stderr)")
        #expect(notADatabase.messages.hasSuffix(": not a SQLite database\n"), "\(notADatabase.stderr)")
        #expect(try scratch.read("notes.txt") == words)

        let theirs = scratch.path("theirs.db")
        _ = try SQLiteShell.query(theirs, "CREATE TABLE notes (a, b); INSERT INTO notes VALUES (1, 2)")
        let foreignTable = try await Run(["fetch", "--all", "--sqlite", theirs, server.url])
        #expect(foreignTable.status == 74)
        #expect(
            foreignTable.messages
                == "Error: '\(theirs)': a table notes exists that notes-page did not write; use --table\n")
        #expect(try SQLiteShell.query(theirs, "SELECT * FROM notes") == "1|2\n")
        try MarkedLog.mark(server, 1)
        let beside = try await Run([
            "fetch", "--all", "--quiet", "--max-pages", "1", "--sqlite", theirs, "--table", "mine", server.url,
        ])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(
            try SQLiteShell.query(theirs, "SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM mine)")
                == "1|100\n")

        let other = server.url + "?style=drf"
        try MarkedLog.mark(server, 2)
        let otherEndpoint = try await Run(["fetch", "--all", "--sqlite", theirs, "--table", "mine", other])
        let log = MarkedLog(server.stop())
        #expect(otherEndpoint.status == 74)
        #expect(
            otherEndpoint.messages
                == "Error: '\(theirs)': table mine holds the notes of another endpoint (\(server.url))\n")
        #expect(try SQLiteShell.query(theirs, "SELECT count(*) FROM mine") == "100\n")
        #expect(log.targets(after: 0).isEmpty && log.targets(after: 2).isEmpty, "\(log.requests)")
        #expect(!log.targets(after: 1).isEmpty)
    }
}
