/// Dates as HTTP writes them (IMF-fixdate, RFC 9110 §5.6.7).
package enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since 1970.
    package static func text(_ seconds: Double) -> String {
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
