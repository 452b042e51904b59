/// Dates as HTTP writes them (IMF-fixdate, RFC 9110 §5.6.7).
package enum HTTPDate {
    /// 9999-12-31 23:59:59 GMT: the last second with a four-digit year.
    static let latest: Double = 253_402_300_799

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since 1970, rounded up to the second. A time before
    /// 1970 is written as its first second, one past 9999 (infinity included) as the last second of 9999,
    /// and not a number as 1970: the text is always an IMF-fixdate, whatever a server's numbers added up to.
    package static func text(_ seconds: Double) -> String {
        let total = seconds.isNaN ? 0 : Int(min(max(seconds.rounded(.up), 0), latest))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let time = total - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[((days % 7) + 7) % 7]
        return
            "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }
}
