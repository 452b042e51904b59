/// `Retry-After`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3, §5.6.7).
package enum RetryAfter {
    /// Seconds to wait from `now` (seconds since 1970), or `nil` when the value is neither form.
    package static func seconds(_ value: String, now: Double) -> Double? {
        let text = value.trimming(" \t")
        if let seconds = Int(text), seconds >= 0 { return Double(seconds) }
        guard let date = parseIMFFixdate(text) else { return nil }
        return max(0, date - now)
    }

    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT` into seconds since 1970. The year is four digits, as
    /// IMF-fixdate writes it: a longer one would overflow the arithmetic below, and is no date anyway.
    package static func parseIMFFixdate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), parts[3].utf8.count == 4,
            parts[3].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let year = Int(parts[3])
        else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (0...23).contains(time[0]), (0...59).contains(time[1]),
            (0...60).contains(time[2])
        else { return nil }
        let days = CivilDate.days(year: year, month: monthIndex + 1, day: day)
        return Double(days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2])
    }
}
