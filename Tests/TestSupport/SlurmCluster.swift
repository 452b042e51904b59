public import Foundation

/// A Slurm cluster of one node of its own (Debian's `slurmctld`, `slurmd`, `slurm-client` and `munge`): a
/// munge key, socket and daemon, and a `slurm.conf` with its own ports, state and spool, all in a temporary
/// directory, the daemons run as root, stopped and removed by ``stop()``, or at the latest a second after
/// this process ends, however it ends. Jobs are submitted with ``sbatch(_:array:)``.
public final class SlurmCluster: @unchecked Sendable {
    static let programs = [
        "/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/sinfo",
    ]

    /// Why a cluster cannot be started here, or `nil` when it can.
    public static let problem: String? = {
        for program in programs where !FileManager.default.isExecutableFile(atPath: program) {
            return "no \(program) (make deps installs slurmctld, slurmd, slurm-client and munge)"
        }
        return getuid() == 0 ? nil : "not root (the daemons run as root)"
    }()

    public let directory: URL
    /// The configuration every Slurm command of the cluster reads (`SLURM_CONF`).
    public let conf: String

    /// Makes the key and the configuration, starts munged, slurmctld and slurmd, and waits until the node
    /// is idle.
    public init() throws {
        if let problem = Self.problem { throw Failure(problem) }
        var template = Array("/tmp/notes-slurm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure("mkdtemp failed") }
        directory = URL(fileURLWithPath: String(cString: made))
        let path = directory.path
        conf = path + "/slurm.conf"
        for folder in ["state", "spool"] {
            try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
        }
        var key = [UInt8](repeating: 0, count: 1024)
        for index in key.indices { key[index] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(
            atPath: path + "/munge.key", contents: Data(key), attributes: [.posixPermissions: 0o400])
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        let name = String(
            String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: ".")
                .first ?? "localhost")
        let controller = try LoopbackListener.freePort()
        let node = try LoopbackListener.freePort()
        try Files.write(
            """
            ClusterName=notes
            SlurmctldHost=\(name)(127.0.0.1)
            SlurmctldPort=\(controller)
            SlurmdPort=\(node)
            AuthType=auth/munge
            AuthInfo=socket=\(path)/munge.socket
            CredType=cred/munge
            SlurmUser=root
            SlurmdUser=root
            StateSaveLocation=\(path)/state
            SlurmdSpoolDir=\(path)/spool
            SlurmctldPidFile=\(path)/slurmctld.pid
            SlurmdPidFile=\(path)/slurmd.pid
            SlurmctldLogFile=\(path)/slurmctld.log
            SlurmdLogFile=\(path)/slurmd.log
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            JobAcctGatherType=jobacct_gather/none
            AccountingStorageType=accounting_storage/none
            JobCompType=jobcomp/none
            MpiDefault=none
            SchedulerType=sched/builtin
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            ReturnToService=2
            SlurmdParameters=config_overrides
            NodeName=\(name) NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
            PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP

            """, to: conf)
        // Each daemon in the foreground of a shell of its own that holds none of this process's descriptors,
        // and a watcher that ends them all with this process.
        let daemons = [
            "/usr/sbin/munged -F -f --socket=\(path)/munge.socket --key-file=\(path)/munge.key "
                + "--log-file=\(path)/munged.log --pid-file=\(path)/munged.pid --seed-file=\(path)/munge.seed",
            "/usr/sbin/slurmctld -D -f \(conf)", "/usr/sbin/slurmd -D -f \(conf)",
        ]
        for (index, daemon) in daemons.enumerated() {
            _ = system(
                "\(PostgresCluster.closingDescriptors) /bin/sh -c 'echo $$ > \(path)/daemon-\(index).pid; exec \(daemon)' "
                    + "</dev/null >\(path)/daemon-\(index).out 2>&1 &")
            if index == 0 {
                try waitUntil("munged's socket") { FileManager.default.fileExists(atPath: path + "/munge.socket") }
            }
        }
        let watcher =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
            + "for f in \(path)/daemon-*.pid; do kill -9 $(cat $f); done; rm -rf \(path)"
        _ = system("\(PostgresCluster.closingDescriptors) /bin/sh -c '\(watcher)' </dev/null >/dev/null 2>&1 &")
        try waitUntil("the node idle") {
            let state = try? Finished(
                URL(fileURLWithPath: "/usr/bin/sinfo"), ["-h", "-o", "%T"], environment: ["SLURM_CONF": conf],
                patience: 30)
            return state?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "idle"
        }
    }

    /// Submits `script` as an array job of tasks `array` (`0-3`) and waits for every task to end
    /// (`sbatch --wait`): its exit status is the highest of the tasks'. Each task's output is in
    /// ``output(task:)``.
    public func sbatch(_ script: String, array: String, environment: [String: String] = [:]) throws -> Finished {
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["SLURM_CONF"] = conf
        return try Finished(
            URL(fileURLWithPath: "/usr/bin/sbatch"),
            ["--wait", "--array=\(array)", "--output=\(directory.path)/task-%a.out", script],
            environment: variables, patience: 240)
    }

    /// What task `task` of the array wrote.
    public func output(task: Int) -> String {
        (try? Files.text(directory.appendingPathComponent("task-\(task).out").path)) ?? ""
    }

    /// Stops the daemons (SIGTERM, then SIGKILL for one still there after 5 s) and removes the directory.
    public func stop() {
        var pids: [Int32] = []
        for index in 0..<3 {
            if let pid = try? Files.text(directory.appendingPathComponent("daemon-\(index).pid").path),
                let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                pids.append(number)
                kill(number, SIGTERM)
            }
        }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, pids.contains(where: { kill($0, 0) == 0 }) { usleep(50_000) }
        for pid in pids where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if condition() { return }
            usleep(100_000)
        }
        throw Failure("\(what): not within 30 s; \(directory.path)/daemon-*.out and the logs say why")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}
