// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "notes-page",
    // Linux is the home platform; on Apple platforms Synchronization's Mutex and Atomic need these.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(
            name: "NotesPage", targets: ["NotesPage", "NotesFetch", "NotesStore", "NotesURLSession", "NotesScreen"]),
        .library(name: "NotesFetchTesting", targets: ["NotesFetchTesting"]),
        .executable(name: "notes-page", targets: ["notes-page"]),
        .executable(name: "notes-page-urlsession", targets: ["notes-page-urlsession"]),
        .executable(name: "notes-gen", targets: ["notes-gen"]),
        .executable(name: "benchmarks", targets: ["benchmarks"]),
    ],
    targets: [
        // MARK: - C libraries from Debian

        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]
        ),

        /// Linux only: Apple platforms have no libcurl (they use NotesURLSession). Its headers only: the
        /// library is loaded when the first transport needs it (Sources/CCurl/shim.h), not linked.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        /// libpq, for the Postgres destination (Linux; every `PQ*` call is in NotesStore/Postgres). Its headers
        /// only: the library is loaded by the first connection (Sources/CPostgres/shim.h), not linked.
        .systemLibrary(
            name: "CPostgres",
            providers: [.apt(["libpq-dev"])]
        ),

        /// libyaml, for sync's source files (every `yaml_*` call is in NotesSync/YAML/YAMLReader.swift).
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),

        // MARK: - Libraries

        /// The system, at the bottom: files read and written with POSIX calls, threads of their own, locks.
        .target(name: "NotesSystem", swiftSettings: swiftSettings),
        /// The scanner's block classifiers (SSE2, NEON or plain C inline; AVX2 and AVX-512BW chosen at run time),
        /// the recording of yajl's events, and the id set's prefetch.
        .target(name: "CJSONBlocks"),
        /// A push parser over yajl with hard limits; knows nothing about notes.
        .target(
            name: "NotesJSON", dependencies: ["CYajl", "CJSONBlocks", "NotesSystem"], swiftSettings: swiftSettings),
        /// The page contract: notes, cursors, the id set.
        .target(name: "NotesPage", dependencies: ["NotesJSON", "CJSONBlocks"], swiftSettings: swiftSettings),
        /// Walking a paginated endpoint: the transport protocol and libcurl's (Linux), retries, cursors, the
        /// run's id set. No Foundation networking: a program that links it maps no more than it uses.
        .target(
            name: "NotesFetch",
            dependencies: [
                "NotesSystem", "NotesJSON", "NotesPage", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings),
        /// The transport on Foundation's URLSession (Apple platforms' default; on Linux for comparison), and
        /// `defaultTransport()`. A module of its own: on Linux, Foundation and FoundationNetworking cost
        /// 7.6 MB resident in every process that links them.
        .target(name: "NotesURLSession", dependencies: ["NotesFetch"], swiftSettings: swiftSettings),
        /// Where a walk commits its pages: an NDJSON file with its state, a SQLite or a Postgres database; the
        /// checkpoint, resume and incremental syncs.
        .target(
            name: "NotesStore",
            dependencies: [
                "NotesSystem", "NotesFetch", "CSQLite",
                .target(name: "CPostgres", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings),
        /// A transport that answers from memory, for tests of code that walks an endpoint.
        .target(name: "NotesFetchTesting", dependencies: ["NotesSystem", "NotesFetch"], swiftSettings: swiftSettings),
        /// The notes screen: a platform-neutral view model (and a SwiftUI view where SwiftUI exists).
        .target(
            name: "NotesScreen", dependencies: ["NotesFetch", "NotesStore", "NotesURLSession"],
            swiftSettings: swiftSettings),
        /// A sync's source file (YAML or JSON): its resources, defaults and authentication, checked with
        /// where each key is.
        .target(
            name: "NotesSync", dependencies: ["NotesSystem", "NotesPage", "NotesFetch", "CYaml"],
            swiftSettings: swiftSettings),
        /// Hand-written command-line parsing and help in the style of swift-argument-parser.
        .target(name: "ArgumentParsing", dependencies: ["NotesSystem"], swiftSettings: swiftSettings),
        /// Deterministic fixture pages for tests and benchmarks.
        .target(name: "NotesGen", dependencies: ["NotesSystem", "ArgumentParsing"], swiftSettings: swiftSettings),
        /// The `notes-page` command line, as a library so tests can call it.
        .target(
            name: "NotesCLI",
            dependencies: [
                "NotesSystem", "NotesJSON", "NotesPage", "NotesFetch", "NotesStore", "NotesSync", "ArgumentParsing",
            ],
            swiftSettings: swiftSettings),

        // MARK: - Executables

        .executableTarget(
            name: "notes-page",
            dependencies: [
                "NotesCLI",
                .target(
                    name: "NotesURLSession", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ],
            swiftSettings: swiftSettings),
        /// `notes-page` with URLSession linked in: `notes-page fetch --transport urlsession` runs it, so
        /// that every other run stays free of Foundation networking.
        .executableTarget(
            name: "notes-page-urlsession", dependencies: ["NotesCLI", "NotesURLSession"], swiftSettings: swiftSettings),
        .executableTarget(name: "notes-gen", dependencies: ["NotesGen"], swiftSettings: swiftSettings),

        // MARK: - Benchmarks

        /// The ceiling: yajl with no-op callbacks, in C.
        .target(name: "YajlNoop", dependencies: ["CYajl"], path: "Benchmarks/YajlNoop"),
        /// Counts heap allocations (glibc): its malloc and friends interpose the C library's.
        .target(name: "AllocationCounter", path: "Benchmarks/AllocationCounter"),
        /// A benchmark's runs in turn with its ceilings', and the paired ratio.
        .target(name: "BenchmarkPairs", path: "Benchmarks/BenchmarkPairs", swiftSettings: swiftSettings),
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "NotesPage", "NotesFetch", "NotesStore", "YajlNoop", "AllocationCounter", "ArgumentParsing",
                "BenchmarkPairs",
                "TestSupport",
            ],
            path: "Benchmarks/benchmarks",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        /// What the test modules share: starting child processes safely, running one to its end, files and
        /// sockets that no child is handed.
        .target(
            name: "TestSupport", dependencies: ["NotesGen"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesSyncTests", dependencies: ["NotesSync", "NotesFetch", "NotesPage", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesJSONTests", dependencies: ["NotesSystem", "NotesJSON", "CJSONBlocks", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "NotesPageTests", dependencies: ["NotesPage", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesFetchTests", dependencies: ["NotesFetch", "NotesFetchTesting", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesStoreTests", dependencies: ["NotesStore", "NotesFetch", "NotesFetchTesting", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesURLSessionTests", dependencies: ["NotesURLSession", "NotesFetch", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesScreenTests", dependencies: ["NotesScreen", "NotesFetchTesting", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesCLITests",
            dependencies: [
                "NotesCLI", "NotesFetch", "NotesFetchTesting", "NotesStore", "NotesURLSession", "NotesPage",
                "ArgumentParsing", "TestSupport",
            ],
            swiftSettings: swiftSettings),
        /// The command run end to end against servers of their own: the fixture server (Node), the real
        /// framework apps (Python), PostgreSQL. Needs what `make deps` installs; skips what is missing.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["NotesFetch", "NotesPage", "NotesURLSession", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "NotesGenTests", dependencies: ["NotesGen", "NotesPage", "TestSupport"], swiftSettings: swiftSettings),
        /// Runs the built `benchmarks --report --from-baselines` and checks the page against the JSON.
        .testTarget(
            name: "BenchmarkReportTests", dependencies: ["TestSupport", "BenchmarkPairs"], swiftSettings: swiftSettings),
    ]
)
