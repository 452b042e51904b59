public import Foundation

/// Every child process of the tests starts here, and every pipe to one is made here, one at a time.
///
/// Foundation's `Process.run()` on Linux closes the descriptors a child should not have by listing the
/// ones open at that moment; a pipe or socket another thread opens between that list and the start is
/// handed to the child, and so is the socket by which Foundation learns that a child ended, when two
/// children start at once. A fixture server that was handed a run's output pipe kept it open as long as it
/// lived, so the run never saw its end and held a slot the server's own test waited for: the whole test
/// process hung (CI, stop 19). A child handed another's socket hides that one's end until it ends itself.
/// One lock over every start and every pipe (in all the test modules, hence this module) keeps the list
/// and the start together.
///
/// That list is also why this process must hold few descriptors: Foundation 6.3 copies 256 bytes from each
/// entry of `/proc/self/fd` it reads, past the entry's end, and crashes when the last entry of a full
/// buffer (over a thousand descriptors) lies at the end of a page. Every child is therefore waited for
/// (``waitOrKill(_:within:)``), which is when Foundation lets go of it and of its pipes.
public enum Spawning {
    private static let lock = NSLock()

    /// A pipe for a child's standard stream.
    public static func pipe() -> Pipe { lock.withLock { Pipe() } }

    /// Descriptors this process may hold when it starts a child: a few hundred under the margin of the
    /// crash above.
    public static let descriptorLimit = 1_000

    /// How long a start waits for this process to hold few enough descriptors.
    public static let descriptorWait: Duration = .seconds(120)

    /// Starts `process`: it holds its standard streams and nothing else of this process.
    ///
    /// While this process holds more than ``descriptorLimit`` descriptors the start waits, the lock held
    /// so that no other start or pipe adds to them, for the tests running beside this one to end their
    /// children. Still over the limit after ``descriptorWait``, it throws ``TooManyDescriptors`` rather than
    /// start (and risk Foundation's crash): a test that leaks them fails by name.
    ///
    /// The wait is a last resort. It blocks its thread, and the tests run on a pool of one thread per core:
    /// two starts waiting stop every test, and none ends its children. Unbounded, the tests all start
    /// together, each end-to-end test starts its servers and waits, and the process held close to a thousand
    /// descriptors for a minute (over it on a slower machine, where the wait ran out). `make test` therefore
    /// runs sixteen tests at a time (`TEST_WIDTH`), which hold some two hundred.
    public static func run(_ process: Process) throws {
        try lock.withLock {
            try waitForRoom(limit: descriptorLimit, within: descriptorWait, held: heldDescriptors)
            try process.run()
        }
    }

    /// Returns once `held()` is at most `limit`, checking every 20 ms; throws ``TooManyDescriptors`` with
    /// the last count when it is still over after `wait`.
    public static func waitForRoom(limit: Int, within wait: Duration, held: () -> Int) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        var count = held()
        while count > limit {
            guard clock.now < deadline else { throw TooManyDescriptors(held: count) }
            Thread.sleep(forTimeInterval: 0.02)
            count = held()
        }
    }

    /// The descriptors this process holds now.
    public static func heldDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}

/// This process held too many descriptors to start a child safely (see ``Spawning``).
public struct TooManyDescriptors: Error, CustomStringConvertible {
    public var held: Int

    public var description: String {
        "this test process held \(held) descriptors, over \(Spawning.descriptorLimit), for \(Spawning.descriptorWait): "
            + "a test leaks them (a Process never waited for keeps its pipes), or too many tests ran at once "
            + "(make test runs TEST_WIDTH at a time), and Foundation's Process.run() can crash listing that many"
    }
}

/// Reads a pipe to its end on a thread of its own, so that a child writing to two pipes never waits on the
/// one nobody reads.
public final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    public init(_ pipe: Pipe) {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        Thread { [self, pipe] in
            data = Self.readToEnd(descriptor)
            withExtendedLifetime(pipe) {}
            done.signal()
        }.start()
    }

    /// Reads `descriptor` to its end (or its first error).
    private static func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = readSome(descriptor, into: &buffer)
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }
    /// Everything the pipe carried, once its writers have closed it; the semaphore orders the accesses.
    public func text() -> String {
        done.wait()
        done.signal()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Reads what `descriptor` has, at most `buffer.count` bytes, into `buffer`: the count, 0 at its end, -1 on
/// an error. A read a signal interrupts is read again: Foundation's `readDataToEndOfFile()` and
/// `readData(ofLength:)` trap on `EINTR`, and the tests' process takes signals (a run stopped with SIGINT
/// in the process is one).
public func readSome(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int {
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count >= 0 || errno != EINTR { return count }
    }

}

/// Ends a server child: SIGTERM, then SIGKILL if it has not ended within 20 s (its own grace is shorter),
/// saying so with its threads' stacks, as `name`.
public func terminate(server process: Process, name: String) {
    guard process.isRunning else { return }
    process.terminate()
    if let stacks = waitOrKill(process, within: 20) { print("\(name) ignored SIGTERM: \(stacks)") }
}

/// Waits for `process` to end, for at most `seconds`. One still running then is taken for a hang: what its
/// threads are doing is read (every stack, with gdb where it is installed) and it is killed.
/// - Returns: `nil` once the process has ended in time, or what it was doing when it was killed.
public func waitOrKill(_ process: Process, within seconds: Double) -> String? {
    guard !ends(process, within: seconds) else { return nil }
    let pid = process.processIdentifier
    var report = "threads of \(pid):"
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    for task in tasks.sorted() {
        let channel = (try? Files.text("/proc/\(pid)/task/\(task)/wchan")) ?? "?"
        report += " \(task) waits in \(channel);"
    }
    if let gdb = executable(named: "gdb", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "") {
        let debugger = Process()
        debugger.executableURL = gdb
        debugger.arguments = ["-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt 30"]
        let out = Spawning.pipe()
        debugger.standardOutput = out
        debugger.standardError = out
        let text = PipeReader(out)
        if (try? Spawning.run(debugger)) != nil {
            if !ends(debugger, within: 60) { kill(debugger.processIdentifier, SIGKILL) }
            report +=
                "\n"
                + text.text().split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }
                .joined(separator: "\n")
        }
    }
    kill(pid, SIGKILL)
    process.waitUntilExit()
    return report
}

/// Whether `process` ends within `seconds`.
///
/// A process seen ended is also waited for: Foundation on Linux lets go of a `Process` (and so of its pipes'
/// descriptors) only in `waitUntilExit()`, so one only polled kept two descriptors each. The suite leaked
/// two thousand, and `Process.run()` then crashed listing them (it reads each entry of `/proc/self/fd`
/// past its end, and faults when the last entry of a full buffer lies at the end of a page).
private func ends(_ process: Process, within seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    guard !process.isRunning else { return false }
    process.waitUntilExit()
    return true
}

/// The first regular, executable file called `name` in the directories of `searchPath` (separated by `:`;
/// an empty entry is the current directory), as `command -v` finds it, or `nil`.
public func executable(named name: String, searchPath: String) -> URL? {
    for entry in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
        let candidate = URL(fileURLWithPath: entry.isEmpty ? "." : String(entry)).appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
            !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
        {
            return candidate.absoluteURL
        }
    }
    return nil
}

/// A child process run to its end: what it wrote and how it ended.
public struct Finished: Sendable {
    public var status: Int32
    public var reason: Process.TerminationReason
    public var stdout: String
    public var stderr: String
    /// From the start of the process to its end.
    public var seconds: Double

    /// Runs `executable` with `arguments` to its end, both output streams read as they come, standard
    /// input the bytes of `stdin` (then closed). A child still running after `patience` seconds is
    /// killed and thrown as ``Hung``, with what it was doing.
    public init(
        _ executable: URL, _ arguments: [String], directory: URL? = nil, environment: [String: String]? = nil,
        stdin: Data? = nil, patience: Double = 300
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Spawning.pipe()
        let err = Spawning.pipe()
        let input = Spawning.pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let started = Date()
        try Spawning.run(process)
        let outText = PipeReader(out)
        let errText = PipeReader(err)
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        if let stacks = waitOrKill(process, within: patience) {
            throw Hung(
                command: ([executable.lastPathComponent] + arguments).joined(separator: " "), seconds: patience,
                stderr: errText.text(), stacks: stacks)
        }
        seconds = Date().timeIntervalSince(started)
        status = process.terminationStatus
        reason = process.terminationReason
        stdout = outText.text()
        stderr = errText.text()
    }
}

/// A child process that did not end within its time: a hang, with what it was doing.
public struct Hung: Error, CustomStringConvertible {
    public var command: String
    public var seconds: Double
    public var stderr: String
    public var stacks: String

    public var description: String {
        "\(command) still ran after \(Int(seconds)) s and was killed.\nIts standard error:\n\(stderr)\n"
            + "What it was doing: \(stacks)"
    }
}
