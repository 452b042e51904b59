import Foundation

/// A finished child process: its wall time and what the kernel counted for it alone.
struct ChildRun {
    var status: Int32
    var wall: Double
    var userSeconds: Double
    var systemSeconds: Double
    /// The child's own high-water mark of resident memory, in bytes (`ru_maxrss`).
    var peakResident: Int
    var output: String
}

/// Runs `arguments[0]` with `posix_spawn`, its standard output captured (or discarded), and reaps it
/// with `wait4` so its resource usage is its own, not the sum of every child so far.
/// - Parameters:
///   - captureOutput: Whether standard output is captured into ``ChildRun/output``; else it goes to
///     `/dev/null`. Defaults to `true`.
///   - mergeStandardError: Whether standard error is captured with it (a build's messages); defaults to `false`.
///   - environment: Defaults to this process's.
func spawn(
    _ arguments: [String], captureOutput: Bool = true, mergeStandardError: Bool = false,
    environment: [String: String]? = nil
) -> ChildRun {
    var pipe: [Int32] = [-1, -1]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if captureOutput {
        precondition(Glibc.pipe(&pipe) == 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        if mergeStandardError { posix_spawn_file_actions_adddup2(&actions, pipe[1], STDERR_FILENO) }
        posix_spawn_file_actions_addclose(&actions, pipe[0])
    } else {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
    }
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
    defer { for variable in env { free(variable) } }
    var pid: pid_t = 0
    let started = now()
    let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, env)
    precondition(spawned == 0, "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
    var output = Data()
    if captureOutput {
        close(pipe[1])
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count <= 0 { break }
            output.append(contentsOf: buffer[..<count])
        }
        close(pipe[0])
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let wall = now() - started
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return ChildRun(
        status: (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
        wall: wall,
        userSeconds: seconds(usage.ru_utime),
        systemSeconds: seconds(usage.ru_stime),
        peakResident: Int(usage.ru_maxrss) * 1024,
        output: String(decoding: output, as: UTF8.self)
    )
}
