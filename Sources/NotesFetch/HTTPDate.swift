/// `Retry-After`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3, §5.6.7).
enum RetryAfter {
    /// Seconds to wait from `now` (seconds since 1970), or `nil` when the value is neither form.
    static func seconds(_ value: String, now: Double) -> Double? {
        let text = value.trimming(" \t")
        if let seconds = Int(text), seconds >= 0 { return Double(seconds) }
        guard let date = parseIMFFixdate(text) else { return nil }
        return max(0, date - now)
    }

    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT` into seconds since 1970.
    static func parseIMFFixdate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (0...23).contains(time[0]), (0...59).contains(time[1]),
            (0...60).contains(time[2])
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Double(days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2])
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

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

/// Dates as HTTP writes them (IMF-fixdate, RFC 9110 §5.6.7).
enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since 1970.
    static func text(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let time = total - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[((days % 7) + 7) % 7]
        return
            "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }
}
