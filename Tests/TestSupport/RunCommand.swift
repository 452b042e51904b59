public import Foundation

/// Runs the built `notes-page` binary and captures what it did.
public struct Run: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// From the start of the process to its end (not counting the wait for a slot).
    public var seconds: Double

    public static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("notes-page")
    public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/contract")

    /// The sanitizer `make asan` and `make tsan` built notes-page with (`NOTES_SANITIZER`): a run is slower,
    /// and takes the sanitizer's memory.
    public static let sanitizer = ProcessInfo.processInfo.environment["NOTES_SANITIZER"]

    /// Processes that run at once: tests that measure how long a run takes need the cores.
    private static let slots = DispatchSemaphore(value: 2)

    /// Runs `notes-page ARGUMENTS` to its end, waiting off the concurrency pool (see ``offPool(_:)``).
    public init(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws {
        self = try await offPool {
            try Run(launching: Self.binary, arguments, stdin: stdin, environment: environment)
        }
    }

    /// Runs `prefix` (a wrapper such as GNU time) with the notes-page binary and `arguments` after it.
    public init(_ prefix: [String], wrapping arguments: [String]) async throws {
        self = try await offPool {
            try Run(
                launching: URL(fileURLWithPath: prefix[0]), prefix.dropFirst() + [Run.binary.path] + arguments,
                stdin: nil, environment: [:])
        }
    }

    private init(launching executable: URL, _ arguments: [String], stdin: Data?, environment: [String: String]) throws {
        Self.slots.wait()
        defer { Self.slots.signal() }
        var inherited = ProcessInfo.processInfo.environment
        inherited["NOTES_TOKEN"] = nil
        inherited["NOTES_URL"] = nil
        let finished = try Finished(
            executable, arguments, directory: Self.fixtures, environment: inherited.merging(environment) { $1 },
            stdin: stdin)
        status = finished.status
        stdout = finished.stdout
        stderr = finished.stderr
        seconds = finished.seconds
    }

    /// Standard error without the line `--paginate auto` writes after the first page.
    public var messages: String { withoutRecognition(stderr) }
}

/// Runs `body` on a thread of its own, not one of the concurrency pool's, and waits for it without holding
/// a pool thread: the pool has one thread per core, and the code under test needs them (an early request
/// starts as a task), so a test that waits for a process must not sit on one.
public func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// `text` without a first line `Pagination: auto …`.
public func withoutRecognition(_ text: String) -> String {
    var text = Substring(text)
    while text.hasPrefix("Pagination: "), let end = text.firstIndex(of: "\n") { text = text[text.index(after: end)...] }
    return String(text)
}
