public import Foundation

/// A PostgreSQL server of its own (Debian's `postgresql-15`): a cluster made by `initdb` in a temporary
/// directory, started on a free loopback port under the `postgres` user (the server refuses root), with
/// password authentication (SCRAM) for every connection, stopped and removed by ``stop(removing:)``, or
/// at the latest a second after this process ends, however it ends. Nothing depends on a system service.
public final class PostgresCluster: @unchecked Sendable {
    /// The server's programs (`initdb`, `pg_ctl`, `postgres`).
    public static let binaries: URL? = {
        let fileManager = FileManager.default
        for version in ["15", "16", "17", "14"] {
            let directory = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
            if fileManager.isExecutableFile(atPath: directory.appendingPathComponent("initdb").path) {
                return directory
            }
        }
        return nil
    }()

    /// `psql`, the client that reads back what notes-page wrote.
    public static let psql = TestSupport.executable(
        named: "psql", searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "")

    /// Whether a cluster can be made here: the server's programs, `psql`, `runuser`, a `postgres` user, and
    /// root to become it.
    public static let isAvailable: Bool = {
        guard binaries != nil, psql != nil, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"),
            let run = try? Finished(URL(fileURLWithPath: "/usr/bin/id"), ["-u", "postgres"], patience: 30),
            run.status == 0
        else { return false }
        return getuid() == 0
    }()

    /// The superuser's password (the cluster's own, thrown away with it).
    public static let password = "s3cret-pw-\(UInt32.random(in: 0...UInt32.max))"

    public let directory: URL
    public let port: Int

    /// Whether the server syncs its writes to disk (off for tests, whose clusters are thrown away).
    public let fsync: Bool

    /// Makes and starts a cluster.
    /// - Parameter fsync: Whether the server syncs its writes (PostgreSQL's default); off unless said.
    public init(fsync: Bool = false) throws {
        self.fsync = fsync
        guard let binaries = Self.binaries else { throw Failure("no PostgreSQL server programs") }
        var template = Array("/tmp/notes-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure("mkdtemp failed") }
        directory = URL(fileURLWithPath: String(cString: made))
        port = try Self.portBelowEphemeral()
        try Self.run("/usr/bin/chown", ["postgres", directory.path])
        let passwordFile = directory.appendingPathComponent("pw").path
        try Files.write(Self.password + "\n", to: passwordFile)
        try Self.run("/usr/bin/chown", ["postgres", passwordFile])
        let initdb = try Finished(
            URL(fileURLWithPath: "/usr/sbin/runuser"),
            [
                "-u", "postgres", "--", binaries.appendingPathComponent("initdb").path, "-D", data, "-U", "postgres",
                "-A", "scram-sha-256", "--pwfile", passwordFile, "-E", "UTF8", "-N",
            ], patience: 120)
        guard initdb.status == 0 else { throw Failure("initdb: exit \(initdb.status): \(initdb.stderr)") }
        try start()
        // Whatever ends this process (a kill -9 included), the cluster ends with it. The watcher holds none of
        // this process's descriptors: one it held (another child's pipe, or the socket by which Foundation
        // learns that a child ended) would hide that child's end for as long as the tests run. It runs in a
        // session of its own: a runner that stops the tests' session (the mutation runner does) stops the
        // tests alone.
        let pgCtl = binaries.appendingPathComponent("pg_ctl").path
        let watcher =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; /usr/sbin/runuser -u postgres -- \(pgCtl) "
            + "-D \(data) -m immediate stop; rm -rf \(directory.path)"
        _ = system("/usr/bin/setsid \(Self.closingDescriptors) /bin/sh -c '\(watcher)' </dev/null >/dev/null 2>&1 &")
    }

    private var data: String { directory.appendingPathComponent("data").path }

    /// The server's log so far.
    public var log: String { (try? Files.text(directory.appendingPathComponent("log").path)) ?? "" }

    /// A URI for `user` (default the superuser) with `password` (default the superuser's).
    public func url(user: String = "postgres", password: String = PostgresCluster.password) -> String {
        "postgresql://\(user):\(password)@127.0.0.1:\(port)/postgres"
    }

    /// Starts the server (after ``init()``, or a ``stop(removing:)`` that kept the directory), and waits
    /// until it accepts connections.
    public func start() throws {
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1\(fsync ? "" : " -c fsync=off")"
        pgCtl(["-o", options, "-l", directory.appendingPathComponent("log").path, "-w", "start"])
        try waitUntil("the server accepts connections") { self.accepts() }
    }

    /// Restarts the server at once (`pg_ctl stop -m immediate`, then start): every connection is cut.
    public func restart() throws {
        pgCtl(["-m", "immediate", "-w", "stop"])
        try waitUntil("the server stopped") { !self.running }
        try start()
    }

    /// Stops the server and, unless `removing` is false, removes the cluster.
    public func stop(removing: Bool = true) {
        pgCtl(["-m", "immediate", "-w", "stop"])
        try? waitUntil("the server stopped") { !self.running }
        if removing { try? FileManager.default.removeItem(at: directory) }
    }

    deinit { stop() }

    /// Whether the server's process is there (its `postmaster.pid`).
    private var running: Bool { FileManager.default.fileExists(atPath: data + "/postmaster.pid") }

    /// What `psql` prints for `sql` (unaligned, tuples only), as `user`; a failure is thrown with its message.
    @discardableResult
    public func psql(_ sql: String, user: String = "postgres", password: String = PostgresCluster.password) throws
        -> String
    {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = password
        let run = try Finished(
            Self.psql!,
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-tAX",
                "-c", sql,
            ],
            environment: environment, patience: 60)
        guard run.status == 0 else { throw Failure("psql '\(sql)': exit \(run.status): \(run.stderr)") }
        return run.stdout
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let run = try Finished(URL(fileURLWithPath: path), arguments, patience: 120)
        guard run.status == 0 else {
            throw Failure("\(path) \(arguments.joined(separator: " ")): exit \(run.status): \(run.stderr)")
        }
    }

    /// Runs `pg_ctl -D DATA ARGUMENTS` as the `postgres` user through the shell, its output appended to a
    /// file and no descriptor of this process handed on: the server it starts outlives it, and a pipe it held
    /// would never reach its end. Its status is not what counts (a child reaper of this process may take it
    /// first): callers wait for the server to be up or down.
    private func pgCtl(_ arguments: [String]) {
        let output = directory.appendingPathComponent("pg_ctl.out").path
        let words =
            ["/usr/sbin/runuser", "-u", "postgres", "--", Self.binaries!.appendingPathComponent("pg_ctl").path]
            + ["-D", data] + arguments
        let quoted = words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        // Every descriptor of this process but the standard three is closed first: a server started with
        // thousands of them open (a long test run's) finds too few left and refuses to start.
        _ = system("\(Self.closingDescriptors) \(quoted) </dev/null >>\(output) 2>&1")
    }

    /// A command prefix that runs the command after it with none of this process's descriptors but the
    /// standard three.
    static let closingDescriptors =
        "python3 -c 'import os, sys; os.closerange(3, 1 << 20); os.execv(sys.argv[1], sys.argv[1:])'"

    /// Whether the server's port takes a TCP connection.
    private func accepts() -> Bool {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = Self.loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Waits up to 60 s for `condition`, then throws naming `what` with what pg_ctl and the server said.
    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else {
                let said = (try? Files.text(directory.appendingPathComponent("pg_ctl.out").path)) ?? ""
                throw Failure("waited 60 s for \(what): pg_ctl said \(said); the log: \(log.suffix(2000))")
            }
            usleep(50_000)
        }
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// A port free on 127.0.0.1 below the system's ephemeral range (32768 and up): while the server restarts,
    /// the port is free, and no listener of another test, which binds port 0, can take it meanwhile.
    private static func portBelowEphemeral() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard probe >= 0 else { continue }
            defer { close(probe) }
            var address = loopback(port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            if bound { return port }
        }
        throw Failure("no free port below 32000")
    }
}

extension LoopbackListener {
    /// A port free on 127.0.0.1 a moment ago (bound, then closed).
    public static func freePort() throws -> Int {
        let listener = try LoopbackListener()
        defer { listener.close() }
        return listener.port
    }
}
