/// How a benchmark and its ceilings take turns, and the ratio read from their runs.
///
/// Each measured run of a benchmark comes right after one run of each of its ceilings, and the ratio is
/// the median of the per-pair ratios: on a shared machine whose speed drifts during a run, both sides of
/// a pair see the same machine. Measuring a ceiling's samples first and the benchmark's minutes later let
/// drift alone move a ratio by a third (the typed decode at 1.16x, then 1.43x and 1.63x the ceiling, with
/// the code unchanged).
public enum Pairing {
    /// Runs the benchmark and its `ceilings` in turn for a warm-up round and then `samples` rounds, each
    /// round the ceilings first (in order) and the benchmark last.
    /// - Parameter run: Runs ceiling `index`, or the benchmark for `nil`.
    /// - Returns: The benchmark's measured runs and each ceiling's, round by round (warm-up left out).
    public static func interleave<Run>(
        samples: Int, ceilings: Int, _ run: (_ ceiling: Int?) -> Run
    ) -> (runs: [Run], ceilingRuns: [[Run]]) {
        var runs: [Run] = []
        var ceilingRuns = [[Run]](repeating: [], count: ceilings)
        for round in 0...samples {
            for ceiling in 0..<ceilings {
                let result = run(ceiling)
                if round > 0 { ceilingRuns[ceiling].append(result) }
            }
            let result = run(nil)
            if round > 0 { runs.append(result) }
        }
        return (runs, ceilingRuns)
    }

    /// The median over rounds of the benchmark's time divided by the slowest of its ceilings' times in
    /// the same round; `nil` without ceilings or rounds.
    /// - Parameters:
    ///   - times: The benchmark's time in each round.
    ///   - ceilings: For each ceiling, its time in each round.
    public static func ratio(_ times: [Double], ceilings: [[Double]]) -> Double? {
        guard !ceilings.isEmpty, !times.isEmpty, ceilings.allSatisfy({ $0.count == times.count }) else { return nil }
        let ratios = times.indices.map { round in
            times[round] / max(Double.leastNonzeroMagnitude, ceilings.map { $0[round] }.max()!)
        }
        return median(ratios)
    }

    /// The middle value, or the mean of the two middle ones.
    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
