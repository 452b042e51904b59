/// Rate-limit headers: whether a response says the client's limit is spent, and for how long.
package enum RateLimit {
    /// Seconds to wait before the next request, when the head says the limit is spent: `Retry-After`;
    /// GitHub's `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (epoch seconds); or the IETF
    /// `RateLimit` field with a remaining of 0 (`limit=10, remaining=0, reset=5`, or `"q";r=0;t=5`).
    /// `nil` when it says nothing of the kind. A number that is not finite says nothing; a wait is at most
    /// ``longest``, so that it always converts to whole seconds and to a date.
    package static func wait(_ head: HTTPResponseHead, now: Double) -> Double? {
        said(head, now: now).map { min($0, longest) }
    }

    /// About 31 years: the longest wait a server can name.
    package static let longest: Double = 1e9

    private static func seconds(_ text: String) -> Double? {
        Double(text.trimming(" \t\"")).flatMap { $0.isFinite ? $0 : nil }
    }

    private static func said(_ head: HTTPResponseHead, now: Double) -> Double? {
        if let value = head.value(of: "Retry-After"), let seconds = RetryAfter.seconds(value, now: now) {
            return seconds
        }
        if head.value(of: "X-RateLimit-Remaining")?.trimming(" \t") == "0" {
            let reset = head.value(of: "X-RateLimit-Reset").flatMap(seconds)
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
                case "reset", "t": reset = seconds(pair[1])
                default: break
                }
            }
            if remaining == 0 { return max(0, reset ?? 60) }
        }
        return nil
    }
}
