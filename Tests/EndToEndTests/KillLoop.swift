import Foundation
import TestSupport

/// `notes-page` killed with SIGKILL at random moments, seeded so that a failure can be replayed.
enum KillLoop {
    /// Runs `arguments` up to `rounds` times (its output thrown away), each killed after a delay
    /// (microseconds) drawn from `delays`, until one run finishes by itself or `isDone` says the work is.
    /// - Parameters:
    ///   - beforeEachRound: Called with the round's number before its run starts: checks of what the runs
    ///     before left, a mark in a server's log.
    ///   - isDone: Asked after each round: whether the work is done though the run was killed (a kill after
    ///     the last commit).
    /// - Returns: Whether a run finished, the delays of the kills, and how to replay them
    ///   (`NOTES_TEST_SEED=…`).
    static func run(
        _ arguments: [String], rounds: Int, delays: ClosedRange<UInt32>,
        beforeEachRound: (Int) throws -> Void = { _ in }, isDone: () throws -> Bool = { false }
    ) throws -> (finished: Bool, kills: [UInt32], replay: String) {
        let seed =
            ProcessInfo.processInfo.environment["NOTES_TEST_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var finished = false
        var kills: [UInt32] = []
        for round in 0..<rounds where !finished {
            try beforeEachRound(round)
            let process = Process()
            process.executableURL = Run.binary
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try Spawning.run(process)
            let delay = UInt32.random(in: delays, using: &random)
            usleep(delay)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills.append(delay)
            }
            process.waitUntilExit()
            finished = try (process.terminationReason == .exit && process.terminationStatus == 0) || isDone()
        }
        return (finished, kills, "NOTES_TEST_SEED=\(seed); kills after \(kills.map { "\($0 / 1000) ms" })")
    }
}
