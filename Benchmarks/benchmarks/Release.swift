import Foundation

/// Where SwiftPM put this executable, `<scratch>/<triple>/<configuration>/benchmarks`, and so where its
/// release twin and the release `notes-page` and `notes-gen` go.
struct BuildLocation {
    /// This executable, symbolic links resolved.
    var executable: String
    /// The scratch path (`.build`, or what `--scratch-path` named); nil when the layout is not SwiftPM's.
    var scratch: String?

    /// This process's location (`/proc/self/exe`, else `argv[0]`).
    static func current() -> BuildLocation {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        return BuildLocation(executable: path)
    }

    init(executable: String) {
        self.executable = executable
        let configuration = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let triple = configuration.deletingLastPathComponent()
        scratch =
            ["debug", "release"].contains(configuration.lastPathComponent)
            ? triple.deletingLastPathComponent().path : nil
    }

    /// `swift build -c release` for `product` of the package at `root`, in this scratch path.
    func releaseBuild(_ product: String, root: String) -> [String] {
        ["swift", "build", "-c", "release", "--package-path", root]
            + (scratch.map { ["--scratch-path", $0] } ?? []) + ["--product", product]
    }

    /// Where the release build of `product` goes: beside this executable when it is the release one,
    /// else in the sibling `release` directory.
    func releaseExecutable(_ product: String) -> String {
        let configuration = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return configuration.deletingLastPathComponent().appendingPathComponent("release")
            .appendingPathComponent(product).path
    }
}

/// In a debug build, whose figures would mean nothing: builds the release benchmarks in the same package
/// and scratch path and runs them in this process's place with the same arguments. Returns only when
/// that cannot be done; the build's own output is shown only when it fails.
/// - Parameters:
///   - root: The package directory.
///   - arguments: This run's arguments, without the executable.
/// - Returns: The exit status to stop with.
func runReleaseInstead(root: String, arguments: [String]) -> Int32 {
    let location = BuildLocation.current()
    let build = location.releaseBuild("benchmarks", root: root)
    FileHandle.standardError.write(
        Data(
            "This is a debug build, whose figures would mean nothing: building the release benchmarks (\(build.joined(separator: " "))) and running them instead.\n"
                .utf8))
    let result = spawn(build, mergeStandardError: true)
    guard result.status == 0 else {
        FileHandle.standardError.write(Data(result.output.utf8))
        FileHandle.standardError.write(
            Data("Error: the release build failed (exit \(result.status)); nothing was measured.\n".utf8))
        return result.status
    }
    let release = location.releaseExecutable("benchmarks")
    let argv = ([release] + arguments).map { strdup($0) } + [nil]
    execv(release, argv)
    FileHandle.standardError.write(
        Data("Error: cannot run \(release): \(String(cString: strerror(errno)))\n".utf8))
    return 1
}

/// The full path of `program` on `PATH`, or nil.
func findProgram(_ program: String) -> String? {
    if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(program)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
