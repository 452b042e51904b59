/// Rate-limit headers: whether a response says the client's limit is spent, and for how long.
enum RateLimit {
    /// Seconds to wait before the next request, when the head says the limit is spent: `Retry-After`;
    /// GitHub's `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (epoch seconds); or the IETF
    /// `RateLimit` field with a remaining of 0 (`limit=10, remaining=0, reset=5`, or `"q";r=0;t=5`).
    /// `nil` when it says nothing of the kind.
    static func wait(_ head: HTTPResponseHead, now: Double) -> Double? {
        if let value = head.value(of: "Retry-After"), let seconds = RetryAfter.seconds(value, now: now) {
            return seconds
        }
        if head.value(of: "X-RateLimit-Remaining")?.trimming(" \t") == "0" {
            let reset = head.value(of: "X-RateLimit-Reset").flatMap { Double($0.trimming(" \t")) }
            return max(0, (reset ?? now + 60) - now)
        }
        if let field = head.value(of: "RateLimit") {
            var remaining: Int?
            var reset: Double?
            for part in field.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let pair = part.split(separator: "=", maxSplits: 1).map { String($0).trimming(" \t\"") }
                guard pair.count == 2 else { continue }
                switch pair[0].lowercased() {
                case "remaining", "r": remaining = Int(pair[1])
                case "reset", "t": reset = Double(pair[1])
                default: break
                }
            }
            if remaining == 0 { return max(0, reset ?? 60) }
        }
        return nil
    }
}
