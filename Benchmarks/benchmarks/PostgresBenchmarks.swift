import Foundation
import TestSupport

// The Postgres destination: `notes-page fetch --all --postgres URL` beside the same walk to an NDJSON file,
// and beside the server's own floor: `psql`'s `\copy` of the very rows the walk writes (made from that
// NDJSON file by Benchmarks/peers/postgres-rows.py, outside the time measured) into a table of the same
// shape, in one transaction. The server is a cluster of the run's own (Debian's postgresql-15, with its
// defaults: fsync on), started on first use and gone with the process; every run starts from no table.

extension Benchmark {
    static let postgresSummaries = [
        "store/postgres":
            "notes-page fetch --all --postgres URL: the same walk into a new table, a transaction a page",
        "store/postgres-copy":
            "psql \\copy of the same rows into a table of the same shape, one transaction: the server's floor",
        "store/dlt-postgres":
            "a dlt pipeline merging that NDJSON file's records on id into PostgreSQL (psycopg2): the load alone, no fetch",
    ]

    /// The peer of the `--postgres` walk: dlt's postgres destination.
    static let postgresPeers = ["store/dlt-postgres": "store/postgres"]

    /// The `--postgres` walk and the server's floor, both paired with the walk to a file.
    static func postgres(_ inputs: Inputs) -> [Benchmark] {
        let paths = StorePaths(inputs)
        let walk: (Inputs) -> (Int, Int) = { ($0.directoryBytes, $0.count) }
        let unavailable: (Inputs) -> String? = { _ in PostgresBench.shared.problem }
        let rows = inputs.scratch + "/store/postgres-rows.tsv"
        return [
            Benchmark(
                name: "store/postgres",
                run: .command {
                    [
                        $0.notesPage, "fetch", "--all", "--quiet", $0.serverURL, "--postgres",
                        PostgresBench.shared.url,
                    ]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                unavailable: unavailable,
                beforeEachRun: { _ in
                    PostgresBench.shared.sql(
                        "DROP TABLE IF EXISTS notes, notes_page_walks, notes_page_visited")
                }
            ),
            Benchmark(
                name: "store/postgres-copy",
                run: .command { _ in
                    [PostgresBench.psql, PostgresBench.shared.url, "-qc", "\\copy notes_floor from '\(rows)'"]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                unavailable: unavailable,
                beforeEachRun: { inputs in
                    if !FileManager.default.fileExists(atPath: rows) {
                        _ = spawn([
                            inputs.python, inputs.root + "/Benchmarks/peers/postgres-rows.py", paths.ndjson, rows,
                        ])
                    }
                    PostgresBench.shared.sql(
                        """
                        DROP TABLE IF EXISTS notes_floor; CREATE TABLE notes_floor (id text COLLATE "C" PRIMARY KEY,
                        json jsonb, json_text text NOT NULL, title text, fetched_at timestamptz NOT NULL, run integer NOT NULL)
                        """)
                }
            ),
            // dlt loads the file the reference walk wrote, which runs before each of its runs.
            Benchmark(
                name: "store/dlt-postgres",
                run: .command { inputs in
                    [
                        paths.python, inputs.root + "/Benchmarks/peers/dlt-load.py", "postgres", paths.ndjson,
                        PostgresBench.shared.url, paths.dltWork,
                    ]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                unavailable: { inputs in
                    if let problem = PostgresBench.shared.problem { return problem }
                    return FileManager.default.isExecutableFile(atPath: paths.python)
                        ? probe(
                            [paths.python, inputs.root + "/Benchmarks/peers/dlt-load.py", "postgres", "--probe"],
                            "dlt[postgres]")
                        : "no \(paths.python) (Benchmarks/peers/install.sh, run by make bench, installs dlt there)"
                },
                beforeEachRun: { _ in
                    PostgresBench.shared.sql("DROP SCHEMA IF EXISTS dlt_notes, dlt_notes_staging CASCADE")
                    paths.remove([paths.dltWork])
                }
            ),
        ]
    }

    /// The Postgres benchmarks' targets: the walk against the walk to a file and against the server's floor,
    /// and its peak against the walk's bound.
    static func postgresTargets(_ results: [String: Figures]) -> [String] {
        var lines: [String] = []
        if let ratio = results["store/postgres"]?.ratio {
            lines.append(
                "\(ratio <= 1.5 ? "met    " : "NOT MET") fetch --all --postgres within 1.5× of the same walk to an NDJSON file: "
                    + String(format: "%.2f×", ratio))
        }
        if let walk = results["store/postgres"]?.wallP50, let floor = results["store/postgres-copy"]?.wallP50 {
            let ratio = walk / floor
            lines.append(
                "\(ratio <= 1.5 ? "met    " : "NOT MET") fetch --all --postgres within 1.5× of the server's own \\copy of "
                    + "the same rows: " + String(format: "%.2f×", ratio))
        }
        if let peak = results["store/postgres"]?.peakResident {
            let mebibytes = Double(peak) / 1_048_576
            lines.append(
                "\(mebibytes <= 64 ? "met    " : "NOT MET") fetch --all --postgres under 64 MiB: "
                    + String(format: "%.2f MiB", mebibytes))
        }
        return lines
    }
}

/// The benchmarks' PostgreSQL server: a cluster of their own, made on first use.
final class PostgresBench: @unchecked Sendable {
    static let shared = PostgresBench()
    static let psql = PostgresCluster.psql?.path ?? "psql"

    private let cluster: PostgresCluster?
    /// Why there is no server, or nil.
    let problem: String?

    private init() {
        guard PostgresCluster.isAvailable else {
            cluster = nil
            problem = "no PostgreSQL 15 server programs, psql, postgres user or root (make deps installs postgresql-15)"
            return
        }
        do {
            // The defaults, fsync on: what a server a team runs does.
            cluster = try PostgresCluster(fsync: true)
            problem = nil
        } catch {
            cluster = nil
            problem = "the cluster did not start: \(error)"
        }
    }

    var url: String { cluster?.url() ?? "" }

    /// Runs `sql`; a failure is printed (the benchmark's run then shows it).
    func sql(_ sql: String) {
        guard let cluster else { return }
        do { try cluster.psql(sql) } catch { print("store/postgres: \(error)") }
    }
}
