import Foundation
import TestSupport
import Testing

// The same suite: incremental syncs over notes that change while the server runs (`--updates`,
// `POST /admin/add` and `/admin/touch`), into --sqlite and into NDJSON.

extension SQLiteEndToEndTests {
    /// A fixture server whose notes change (`--updates`), with three notes added and four edited after the
    /// first sync: the answers of `POST /admin/add` and `/admin/touch`, the notes as the server now serves them.
    static func change(_ server: FixtureServer) throws -> (added: [NSDictionary], touched: [NSDictionary]) {
        let added = try FixtureRequest.post(server, "/admin/add?count=3")
        let touched = try FixtureRequest.post(server, "/admin/touch?count=4")
        return (added["added"] as? [NSDictionary] ?? [], touched["touched"] as? [NSDictionary] ?? [])
    }

    @Test(
        "An incremental sync into --sqlite asks from the highest updated_at: only what changed, edits applied; nothing new, one request"
    )
    func incrementalSync() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("notes.db")
        let server = try FixtureServer(Self.notes + ["--updates"])
        defer { server.stop() }
        let command = ["fetch", "--all", "--sqlite", database, server.url] + Self.sync
        try MarkedLog.mark(server, 0)
        let first = try await Run(command)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.messages.hasPrefix("first sync: 1000 notes, 10 pages, "), "\(first.stderr)")
        let highest = try SQLiteShell.query(database, "SELECT max(json->>'updated_at') FROM notes")
        #expect(highest == "2026-12-01T00:39:00Z\n")
        let before = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")

        let (added, touched) = try Self.change(server)
        #expect(added.count == 3 && touched.count == 4)
        let changed = Set((added + touched).compactMap { $0["id"] as? String })
        let others =
            "SELECT id, json FROM notes WHERE id NOT IN (\(changed.map { "'\($0)'" }.joined(separator: ","))) ORDER BY id"
        let othersBefore = try SQLiteShell.query(database, others)
        let newest = (added + touched).compactMap { $0["updated_at"] as? String }.max() ?? "?"
        try MarkedLog.mark(server, 1)
        let second = try await Run(command)
        #expect(second.status == 0, "\(second.stderr)")
        // The note at the highest value comes again (since is inclusive) unless it was edited: the upsert absorbs it.
        let fetched = changed.contains("n999") ? 7 : 8
        #expect(second.messages.hasPrefix("since 2026-12-01T00:39:00Z: \(fetched) notes, 1 page, "), "\(second.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT count(*), count(DISTINCT id) FROM notes") == "1003|1003\n")
        for note in added + touched {
            let id = note["id"] as? String ?? "?"
            let row = try SQLiteShell.rows(database, "SELECT title, json, run FROM notes WHERE id = '\(id)'")
            #expect(row.first?["title"] as? String == note["title"] as? String, "\(id): \(row)")
            #expect(row.first.flatMap { Self.value($0["json"] as? String ?? "") } == note, "\(id): \(row)")
            #expect(row.first?["run"] as? Int == 2, "\(id)")
        }
        // The rows nobody changed are as the first sync wrote them.
        #expect(try SQLiteShell.query(database, others) == othersBefore)
        #expect(othersBefore.split(separator: "\n").count == 1000 - touched.count && before != othersBefore)

        let afterSecond = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")
        try MarkedLog.mark(server, 2)
        let third = try await Run(command)
        let afterThird = try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id")
        try MarkedLog.mark(server, 3)
        let withLookback = try await Run(command + ["--lookback", "5m"])
        let log = MarkedLog(server.stop())

        #expect(log.targets(after: 0).count == 10, "\(log.targets(after: 0))")
        #expect(log.since(after: 0).allSatisfy { $0 == nil }, "\(log.targets(after: 0))")
        #expect(log.since(after: 1) == ["2026-12-01T00:39:00Z"], "\(log.targets(after: 1))")
        #expect(log.targets(after: 1).count == 1, "only the changed records' page: \(log.targets(after: 1))")

        // Nothing new: one request from the newest value, one note, no row changed.
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.messages.hasPrefix("since \(newest): 1 note, 1 page, "), "\(third.stderr)")
        #expect(log.since(after: 2) == [newest], "\(log.targets(after: 2))")
        #expect(afterThird == afterSecond)
        // A lookback asks from that much before: the last five minutes' notes come again, and change nothing.
        #expect(withLookback.status == 0, "\(withLookback.stderr)")
        #expect(log.since(after: 3) == ["2026-12-01T00:41:00Z"], "\(log.targets(after: 3))")
        #expect(
            withLookback.messages.hasPrefix("since 2026-12-01T00:41:00Z: 6 notes, 1 page, "), "\(withLookback.stderr)")
        #expect(try SQLiteShell.query(database, "SELECT id, json FROM notes ORDER BY id") == afterSecond)
    }

    @Test("An incremental sync into NDJSON (-o, --state): the new notes appended, the overlap never written twice")
    func incrementalNDJSON() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try FixtureServer(Self.notes + ["--updates"])
        defer { server.stop() }
        let command =
            ["fetch", "--all", "-o", scratch.path("out"), "--state", scratch.path("state"), server.url] + Self.sync
        let first = try await Run(command)
        #expect(first.status == 0, "\(first.stderr)")
        let firstLines = try scratch.read("out")
        #expect(firstLines.split(separator: "\n").count == 1000)

        let (added, touched) = try Self.change(server)
        let kept = touched.count + (touched.contains { $0["id"] as? String == "n999" } ? 0 : 1)
        try MarkedLog.mark(server, 1)
        let second = try await Run(command)
        try MarkedLog.mark(server, 2)
        let third = try await Run(command)
        let log = MarkedLog(server.stop())

        #expect(second.status == 0, "\(second.stderr)")
        #expect(log.since(after: 1) == ["2026-12-01T00:39:00Z"], "\(log.targets(after: 1))")
        #expect(
            second.messages.hasPrefix("since 2026-12-01T00:39:00Z: 3 notes, 1 page, \(kept) already kept, "),
            "\(second.stderr)")
        let output = try scratch.read("out")
        #expect(output.hasPrefix(firstLines))
        let ids = FetchCommandTests.ids(output)
        #expect(ids.count == 1003 && Set(ids).count == 1003)
        #expect(Array(ids.suffix(3)) == added.compactMap { $0["id"] as? String })
        #expect(
            output.split(separator: "\n").suffix(3).map { Self.value($0) } == added.map { Optional($0) })

        // Nothing new since the second run: one request, from the newest updated_at the server sent.
        // The edited notes, skipped as already kept, raise the highest value too: the third run asks from
        // the newest edit and gets that one note again.
        let newest = (added + touched).compactMap { $0["updated_at"] as? String }.max() ?? "?"
        #expect(third.status == 0, "\(third.stderr)")
        #expect(log.since(after: 2) == [newest], "\(log.targets(after: 2))")
        #expect(third.messages.hasPrefix("since \(newest): No notes, 1 page, 1 already kept, "), "\(third.stderr)")
        #expect(try scratch.read("out") == output)
    }
}
