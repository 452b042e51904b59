import Foundation

/// The lines of a sync's closing summary, from its "Sync:" line on, each resource's seconds as `S`: what
/// tests compare, the seconds aside.
public func syncSummary(_ stderr: String) -> [String] {
    guard let start = stderr.range(of: "Sync: ", options: .backwards) else { return [] }
    return stderr[start.lowerBound...].split(separator: "\n").map {
        String($0.replacing(#/, [0-9.]+ s$/#, with: ", S s"))
    }
}
