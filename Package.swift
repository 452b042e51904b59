// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "notes-page",
    products: [
        .library(name: "NotesPage", targets: ["NotesPage"]),
        .executable(name: "notes-page", targets: ["notes-page"]),
    ],
    targets: [
        // MARK: - C libraries from Debian

        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]
        ),

        // MARK: - Libraries

        /// A push parser over yajl with hard limits; knows nothing about notes.
        .target(name: "NotesJSON", dependencies: ["CYajl"], swiftSettings: swiftSettings),
        /// The page contract: notes, cursors, the id set.
        .target(name: "NotesPage", dependencies: ["NotesJSON"], swiftSettings: swiftSettings),
        /// The `notes-page` command line, as a library so tests can call it.
        .target(name: "NotesCLI", dependencies: ["NotesPage"], swiftSettings: swiftSettings),

        // MARK: - Executables

        .executableTarget(name: "notes-page", dependencies: ["NotesCLI"], swiftSettings: swiftSettings),

        // MARK: - Tests


        .testTarget(name: "NotesPageTests", dependencies: ["NotesPage"], swiftSettings: swiftSettings),

    ]
)
