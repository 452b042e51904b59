import Foundation
import TestSupport
import Testing

// The same suite: a resource whose pages can be addressed ahead (offsets) split into ranges of pages
// (`pages-per-unit`), each range a unit that any worker claims.

extension PostgresEndToEndTests {
    /// `ranges.yaml`: the fixture's notes in offset style, `limit` notes a page, `pages` pages a unit, two
    /// pages of a unit in flight, and `more` (keys of the resource, each line indented).
    static func rangesSource(
        _ fixture: FixtureServer, pages: Int, limit: Int = 20, more: String = "", in scratch: Scratch
    ) throws -> String {
        try Files.write(
            """
            base-url: \(fixture.url.replacingOccurrences(of: "/notes", with: ""))
            resources:
              - name: notes
                path: notes?style=offset
                paginate: offset
                page-size: \(limit)
                items-path: results
                pages-per-unit: \(pages)
                parallel: 2
            """ + more, to: scratch.path("ranges.yaml"))
        return scratch.path("ranges.yaml")
    }

    @Test(
        "Four workers walk one offset resource in ranges of ten pages through kill -9s: every note once, in the range of its page, every range a unit done once, pages asked again only for the kills"
    )
    func pageRanges() async throws {
        let database = try Self.server()
        // 4,000 notes in 200 pages of 20, each page 60 ms late: 20 ranges.
        let fixture = try FixtureServer(["--count", "4000", "--page-size", "20", "--fault", "delay:60"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS ranges CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.rangesSource(fixture, pages: 10, in: scratch)
        let arguments = [
            "sync", source, "--postgres", database.url(), "--schema", "ranges", "--worker", "--run", "r1",
            "--lease", "2", "--quiet",
        ]
        try MarkedLog.mark(fixture, 1)
        let kills = 8
        let (seed, finished, ends) = try Self.killWorkers(
            arguments, kills: kills, apart: 100_000...400_000, within: 120)
        let replay = "NOTES_TEST_SEED=\(seed)"
        for end in ends + finished {
            #expect(end.status == 0, "\(replay): \(end.stderr)")
        }
        // Every note once (n0 to n3999), each in the range of the page it is on: note k is on page k/20 + 1.
        #expect(
            try database.psql(
                """
                SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE slice <> format('pages %s-%s',
                    (substr(id, 2)::int / 200) * 10 + 1, (substr(id, 2)::int / 200) * 10 + 10))
                FROM ranges.notes
                """) == "4000|4000|0\n", "\(replay)")
        // A unit a range, the first one's first page bringing the 19 after it; each done.
        #expect(
            try database.psql(
                """
                SELECT count(*), count(*) FILTER (WHERE state = 'done'), sum(pages), min(parent), max(parent)
                FROM ranges.notes_page_units WHERE resource = 'notes'
                """) == "20|20|200|pages 1-10|pages 91-100\n", "\(replay)")
        // The ranges came with the first range's first page, not one after another: others were claimed
        // while the first was walked.
        #expect(
            try database.psql(
                """
                SELECT count(*) >= 3 FROM ranges.notes_page_units WHERE started_at <
                    (SELECT ended_at FROM ranges.notes_page_units WHERE parent = 'pages 1-10')
                    AND parent <> 'pages 1-10'
                """) == "t\n", "\(replay)")
        // A second run walks every range again, from its first page: its ranges are its own.
        try MarkedLog.mark(fixture, 2)
        let again = try await Run(
            [
                "sync", source, "--postgres", database.url(), "--schema", "ranges", "--worker", "--run", "r2",
                "--parallel", "4", "--quiet",
            ])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            try database.psql("SELECT count(*), count(*) FILTER (WHERE run = 2) FROM ranges.notes") == "4000|4000\n")
        // Pages asked again only where a kill cut a walk: a worker has one unit in flight, two of its pages
        // and one asked early.
        let log = MarkedLog(fixture.stop())
        let targets = log.targets(after: 1)
        #expect(Set(targets).count == 200, "\(replay)")
        #expect(targets.count - Set(targets).count <= 3 * (kills + 4), "\(replay)")
        #expect(Set(log.targets(after: 2)).count == 200)
    }

    @Test("A server that announces no total: each range's last page brings the next, to the last page")
    func pageRangesWithoutTotal() async throws {
        let database = try Self.server()
        // 390 notes: 19 pages of 20, then one of 10.
        let fixture = try FixtureServer(["--count", "390", "--page-size", "20", "--totals", "none"])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS chained CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.rangesSource(fixture, pages: 3, in: scratch)
        let arguments = ["sync", source, "--postgres", database.url(), "--schema", "chained", "--worker", "--quiet"]
        let runs = try (0..<2).map { _ in try Background(arguments) }
        for run in runs {
            let end = run.finish()
            #expect(end.status == 0, "\(end.stderr)")
        }
        #expect(try database.psql("SELECT count(*), count(DISTINCT id) FROM chained.notes") == "390|390\n")
        // 20 pages: ranges of 3 to pages 19-21, whose second page is the last.
        #expect(
            try database.psql(
                "SELECT count(*), count(*) FILTER (WHERE state = 'done'), sum(pages) FROM chained.notes_page_units"
            ) == "7|7|20\n")
    }

    @Test(
        "A server that sends fewer notes a page than asked, with a total or without: a range of offsets is refused, never a walk with holes"
    )
    func pageRangesCapped() async throws {
        let database = try Self.server()
        // Without a total, the first page is kept: the second shows it was not the last.
        for (totals, reason, kept) in [
            ("count,header", "10 notes at offset 0, not the 20 asked, where the server announces 400", 0),
            ("none", "page 1 held 10 notes, not the 20 asked, and the page after it has more", 10),
        ] {
            // At most 10 notes a page, 20 asked.
            let fixture = try FixtureServer([
                "--count", "400", "--page-size", "20", "--max-limit", "10", "--totals", totals,
            ])
            defer { fixture.stop() }
            _ = try database.psql("DROP SCHEMA IF EXISTS capped CASCADE")
            let scratch = try Scratch()
            defer { scratch.remove() }
            let source = try Self.rangesSource(fixture, pages: 5, in: scratch)
            let run = try await Run([
                "sync", source, "--postgres", database.url(), "--schema", "capped", "--worker", "--unit-retries", "1",
            ])
            #expect(run.status == 65, "\(totals): \(run.stderr)")
            #expect(
                run.stderr.contains(
                    "\(reason): ranges of pages are laid on the pages of the size asked; give the size the server sends (page-size)"
                ), "\(totals): \(run.stderr)")
            #expect(try database.psql("SELECT count(*) FROM capped.notes") == "\(kept)\n")
        }
    }

    @Test(
        "A range whose first page puts the last page inside it, and whose pages go on past it (rows added meanwhile): walked on to the range's end"
    )
    func pageRangesGrown() async throws {
        let database = try Self.server()
        // 160 notes, 8 pages of 20; when page 3 is first asked, 40 more go in front: 10 pages.
        let fixture = try FixtureServer([
            "--count", "160", "--page-size", "20", "--style", "offset", "--fault", "shift:40@3",
        ])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS grown CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        // The notes pushed onto later pages come again: skipped.
        let source = try Self.rangesSource(fixture, pages: 10, more: "\n    on-duplicate: skip", in: scratch)
        let run = try await Run(["sync", source, "--postgres", database.url(), "--schema", "grown", "--worker"])
        #expect(run.status == 0, "\(run.stderr)")
        // Every note there was at the start, n0 to n159, to the 10th page.
        #expect(
            try database.psql(
                """
                SELECT count(*), count(*) FILTER (WHERE id ~ '^n[0-9]+$'),
                    (SELECT max(pages) FROM grown.notes_page_units) FROM grown.notes
                """
            ) == "160|160|10\n")
    }

    @Test(
        "A range whose first page holds notes another range of the same run committed (rows inserted while they were walked) fails, naming the note and the range"
    )
    func pageRangesMoved() async throws {
        let database = try Self.server()
        // Five notes go in front of the list when page 11 (the second range's first) is first asked.
        let fixture = try FixtureServer([
            "--count", "400", "--page-size", "20", "--style", "offset", "--fault", "shift:5@11",
        ])
        defer { fixture.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS moved CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try Self.rangesSource(fixture, pages: 10, in: scratch)
        let run = try await Run([
            "sync", source, "--postgres", database.url(), "--schema", "moved", "--worker", "--parallel", "1",
            "--unit-retries", "1",
        ])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                #"duplicate id "n195" on page 11, committed by pages 1-10 of the same run: the server's pages moved while they were walked"#
            ), "\(run.stderr)")
        // The first range is whole; the second committed nothing.
        #expect(
            try database.psql("SELECT slice, count(*) FROM moved.notes GROUP BY 1 ORDER BY 1") == "pages 1-10|200\n")
        #expect(
            try database.psql(
                "SELECT parent, state, exit_code FROM moved.notes_page_units WHERE parent = 'pages 11-20'")
                == "pages 11-20|failed|65\n")
    }

    @Test(
        "Ranges of pages against Django REST framework's own paginations, offsets and page numbers: three workers, every record once",
        .enabled(if: DjangoServer.isAvailable, "python3 does not import django and rest_framework")
    )
    func pageRangesDRF() async throws {
        let database = try Self.server()
        let app = try DjangoServer(count: 3000, ["--quiet"])
        defer { app.stop() }
        _ = try database.psql("DROP SCHEMA IF EXISTS drf_ranges CASCADE")
        let scratch = try Scratch()
        defer { scratch.remove() }
        // 30 pages of 100 each way: 6 ranges of 5 pages.
        try Files.write(
            """
            base-url: \(app.url)
            defaults:
              page-size: 100
            resources:
              - name: by_offset
                path: limitoffset/
                paginate: offset
                pages-per-unit: 5
              - name: by_page
                path: pagenumber/
                paginate: page
                page-size-param: page_size
                pages-per-unit: 5
            """, to: scratch.path("drf.yaml"))
        let arguments = [
            "sync", scratch.path("drf.yaml"), "--postgres", database.url(), "--schema", "drf_ranges", "--worker",
            "--quiet",
        ]
        let workers = try (0..<3).map { _ in try Background(arguments) }
        for worker in workers {
            let end = worker.finish()
            #expect(end.status == 0, "\(end.stderr)")
        }
        for table in ["by_offset", "by_page"] {
            let ids = try database.psql("SELECT id FROM drf_ranges.\(table) ORDER BY id::int").split(
                separator: "\n"
            ).compactMap { Int($0) }
            #expect(ids == PythonAppServer.ids(count: 3000), "\(table)")
        }
        #expect(
            try database.psql(
                """
                SELECT resource, count(*), count(*) FILTER (WHERE state = 'done'), sum(pages)
                FROM drf_ranges.notes_page_units GROUP BY 1 ORDER BY 1
                """) == "by_offset|6|6|30\nby_page|6|6|30\n")
    }

    @Test("pages-per-unit: refused where it cannot work, at its line, before any request")
    func pageRangesUsage() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = "postgresql://nobody@127.0.0.1:9/none"
        for (resource, arguments, message) in [
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    pages-per-unit: 10", ["--postgres", url],
                "7:21: resource 'notes': pages-per-unit splits the resource's walk into units for workers: give --worker (or --status), with --postgres"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    pages-per-unit: 0",
                ["--postgres", url, "--worker"],
                "7:21: resource 'notes': pages-per-unit is not a number of pages from 1 to 1000000"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    pages-per-unit: 1",
                ["--postgres", url, "--worker"], "pages-per-unit is at least 2 with paginate: offset"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    max-pages: 4\n    pages-per-unit: 10",
                ["--postgres", url, "--worker"], "pages-per-unit and max-pages or max-notes do not go together"
            ),
            (
                "path: notes\n    pages-per-unit: 10", ["--postgres", url, "--worker"],
                ":5:21: resource 'notes': pages-per-unit needs pages that can be addressed ahead: paginate: offset or page (with page-size), not auto"
            ),
            (
                "path: notes\n    paginate: next\n    pages-per-unit: 10", ["--postgres", url, "--worker"],
                "needs pages that can be addressed ahead"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    since-path: updated\n    since-param: since\n    pages-per-unit: 10",
                ["--postgres", url, "--worker"], "pages-per-unit and since-path do not go together"
            ),
            (
                "path: notes\n    pages-per-unit: 10\n    slice: {path: created, params: [a, b], step: 1d, from: 2020-01-01}",
                ["--postgres", url, "--worker"], "resource 'notes' has a 'slice' and 'pages-per-unit'"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n    pages-per-unit: 10\n  - name: children\n    parent: notes\n    path: \"notes/{parent.id}\"",
                ["--postgres", url, "--worker"],
                "resource 'children' has the resource split into ranges of pages 'notes' as its parent"
            ),
            (
                "path: notes\n    paginate: offset\n    page-size: 20\n  - name: children\n    parent: notes\n    path: \"notes/{parent.id}\"\n    pages-per-unit: 10",
                ["--postgres", url, "--worker"], "resource 'children' has a 'parent' and 'pages-per-unit'"
            ),
        ] {
            try Files.write(
                "base-url: http://127.0.0.1:9/\nresources:\n  - name: notes\n    " + resource + "\n",
                to: scratch.path("s.yaml"))
            let run = try await Run(["sync", scratch.path("s.yaml")] + arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(resource): \(run.stderr)")
        }
    }
}
