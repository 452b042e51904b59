/// Whether the machine runs at its usual speed, judged by yajl's own decode: a ceiling no change to the
/// project moves, so that when it takes much longer than in a saved run of the same processor, core count
/// and size, it is the machine that is slow (other work on its cores), not the code.
///
/// Ratios to a ceiling measured in the same run absorb a machine's speed only in part: on two cores, a
/// benchmark of two threads loses more to other work than single-threaded yajl does. On a day yajl took
/// twice as long as in the baseline before, the typed decode's CPU time came out at 1.97 × yajl's against
/// 1.51 × on a quiet day, with the code unchanged. A baseline is saved only from a run at the usual speed.
public enum MachineSpeed {
    /// The most yajl's time may exceed the fastest saved one's before a run is not saved: a slowdown
    /// past the typed decode's own target (1.25 × yajl) would change what its ratios say.
    public static let mostSlowdown = 1.3

    /// How much slower `seconds` is than the fastest of `saved`, when by more than ``mostSlowdown``.
    /// - Parameters:
    ///   - seconds: yajl's time in this run.
    ///   - saved: yajl's time in each saved run of the same processor, core count and size.
    /// - Returns: This run's time over the fastest saved one; `nil` when within ``mostSlowdown`` or with
    ///   nothing saved to judge by.
    public static func slowdown(_ seconds: Double, saved: [Double]) -> Double? {
        guard let fastest = saved.filter({ $0 > 0 }).min() else { return nil }
        let slowdown = seconds / fastest
        return slowdown > mostSlowdown ? slowdown : nil
    }
}
