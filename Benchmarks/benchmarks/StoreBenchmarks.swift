import Foundation

// The SQLite destination: `notes-page fetch --all --sqlite FILE` beside the same walk to an NDJSON file
// (`-o FILE`) in the same run, and the tools a user would load the same notes into SQLite with instead:
// `sqlite-utils insert` and a dlt pipeline, both from PyPI (`Benchmarks/peers/install.sh`, which `make
// bench` runs and `make bench-quick` does not), each skipped with the reason where it is not installed.
// Every run starts from no file: what the run before wrote is removed first, outside the time measured.

extension Benchmark {
    /// The peers of the store benchmarks, each beside the notes-page benchmark it does the job of.
    static let storePeers = ["store/sqlite-utils": "store/sqlite", "store/dlt": "store/sqlite"]

    static let storeSummaries = [
        "store/ndjson-file":
            "notes-page fetch --all -o FILE: the walk to an NDJSON file on disk (store/sqlite's reference)",
        "store/sqlite": "notes-page fetch --all --sqlite FILE: the same walk into a new database, a transaction a page",
        "store/sqlite-utils":
            "sqlite-utils insert of that NDJSON file (--nl --pk id; integers past 64 bits as text): the load alone, no fetch",
        "store/dlt":
            "a dlt pipeline merging that NDJSON file's records on id into SQLite (sqlalchemy): the load alone, no fetch",
    ]

    /// SQLite's page cache as `SQLiteDestination` leaves it (the default `cache_size` of -2000: 2,000 KiB),
    /// which the `--sqlite` walk may take beyond the bound of the walk to a file.
    static let sqlitePageCache = 2000 * 1024

    /// The `--sqlite` walk and its reference, then the peers; every path under `<scratch>/store`.
    static func store(_ inputs: Inputs) -> [Benchmark] {
        let paths = StorePaths(inputs)
        let walk: (Inputs) -> (Int, Int) = { ($0.directoryBytes, $0.count) }
        return [
            Benchmark(
                name: "store/ndjson-file",
                run: .command { [$0.notesPage, "fetch", "--all", "--quiet", $0.serverURL, "-o", paths.ndjson] },
                ceiling: [],
                size: walk,
                beforeEachRun: { _ in paths.remove([paths.ndjson]) }
            ),
            Benchmark(
                name: "store/sqlite",
                run: .command {
                    [$0.notesPage, "fetch", "--all", "--quiet", $0.serverURL, "--sqlite", paths.database]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                beforeEachRun: { _ in paths.removeDatabase(paths.database) }
            ),
            // The peers load the file the reference walk wrote, which runs before each of their runs. A note's
            // `big` (18446744073709551615) is past SQLite's 64-bit integers: sqlite-utils stops at the first one
            // ("Python int too large to convert to SQLite INTEGER") and dlt too ("Integer exceeds 64-bit
            // range"), so both keep such integers as text, as a user of either would have to.
            Benchmark(
                name: "store/sqlite-utils",
                run: .command { _ in
                    [
                        paths.sqliteUtils, "insert", paths.sqliteUtilsDatabase, "notes", paths.ndjson, "--nl", "--pk",
                        "id", "--convert", Self.integersPast64BitsAsText,
                    ]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                unavailable: { _ in
                    FileManager.default.isExecutableFile(atPath: paths.sqliteUtils)
                        ? probe([paths.sqliteUtils, "--version"], "sqlite-utils")
                        : "no \(paths.sqliteUtils) (Benchmarks/peers/install.sh, run by make bench, installs it)"
                },
                beforeEachRun: { _ in paths.removeDatabase(paths.sqliteUtilsDatabase) }
            ),
            Benchmark(
                name: "store/dlt",
                run: .command { inputs in
                    [
                        paths.python, inputs.root + "/Benchmarks/peers/dlt-load.py", "sqlite", paths.ndjson,
                        paths.dltDatabase,
                        paths.dltWork,
                    ]
                },
                ceiling: ["store/ndjson-file"],
                size: walk,
                unavailable: { inputs in
                    FileManager.default.isExecutableFile(atPath: paths.python)
                        ? probe(
                            [paths.python, inputs.root + "/Benchmarks/peers/dlt-load.py", "sqlite", "--probe"],
                            "dlt[sqlalchemy]")
                        : "no \(paths.python) (Benchmarks/peers/install.sh, run by make bench, installs dlt there)"
                },
                beforeEachRun: { _ in
                    paths.removeDatabase(paths.dltDatabase)
                    paths.removeDatabase(paths.dltStagingDatabase)
                    paths.remove([paths.dltWork])
                }
            ),
        ]
    }

    /// sqlite-utils' `--convert`: a note's integers outside SQLite's 64 bits as their digits.
    static let integersPast64BitsAsText =
        "return {k: (str(v) if type(v) is int and not -2**63 <= v < 2**63 else v) for k, v in row.items()}"

    /// The store benchmarks' targets: the time of the `--sqlite` walk against the walk to a file (1.3×, the
    /// cost-per-record goal), its peak
    /// against the walk's bound (`fetch --all under 64 MiB`) plus SQLite's page cache.
    static func storeTargets(_ results: [String: Figures]) -> [String] {
        var lines: [String] = []
        if let ratio = results["store/sqlite"]?.ratio {
            lines.append(
                "\(ratio <= 1.3 ? "met    " : "NOT MET") fetch --all --sqlite within 1.3× of the same walk to an NDJSON file: "
                    + String(format: "%.2f×", ratio))
        }
        if let peak = results["store/sqlite"]?.peakResident {
            let bound = 64 + Double(sqlitePageCache) / 1_048_576
            let mebibytes = Double(peak) / 1_048_576
            lines.append(
                "\(mebibytes <= bound ? "met    " : "NOT MET") fetch --all --sqlite under \(String(format: "%.2f", bound)) MiB "
                    + "(64 MiB and SQLite's page cache): \(String(format: "%.2f", mebibytes)) MiB")
        }
        return lines
    }
}

/// Where the store benchmarks write (`<scratch>/store/`), and where the peers are installed
/// (`<package>/.build/bench-peers`, a virtual environment of Python packages from PyPI).
struct StorePaths: Sendable {
    let ndjson: String
    let database: String
    let sqliteUtilsDatabase: String
    let dltDatabase: String
    /// dlt's staging dataset of a merge, a database of its own beside the destination's.
    let dltStagingDatabase: String
    /// dlt's pipelines directory (its state and load packages), so that every run is a first one.
    let dltWork: String
    let sqliteUtils: String
    let python: String

    init(_ inputs: Inputs) {
        let directory = inputs.scratch + "/store"
        ndjson = directory + "/notes.ndjson"
        database = directory + "/notes.db"
        sqliteUtilsDatabase = directory + "/sqlite-utils.db"
        dltDatabase = directory + "/dlt.db"
        dltStagingDatabase = directory + "/dlt__main_staging.db"
        dltWork = directory + "/dlt-pipelines"
        let peers = inputs.root + "/.build/bench-peers"
        sqliteUtils = peers + "/bin/sqlite-utils"
        python = peers + "/bin/python"
    }

    /// Removes `paths` (files or directories) where they exist, and makes their directory.
    func remove(_ paths: [String]) {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        try? FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: ndjson).deletingLastPathComponent().path, withIntermediateDirectories: true)
    }

    /// Removes a SQLite database with its journal, WAL and shared-memory files.
    func removeDatabase(_ path: String) {
        remove(["", "-journal", "-wal", "-shm"].map { path + $0 })
    }
}
