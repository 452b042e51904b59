public import NotesFetch
public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An incremental sync: each run asks only for the records changed since the highest value of a field
/// the runs before committed (`--since-path updated_at --since-param since`).
///
/// The highest value is kept in the walk's checkpoint, committed with each page. The next run sends it
/// as a query parameter, less ``lookback`` for servers whose clocks or commits lag; the records that
/// come again are absorbed by the destination (an upsert by id, or the id set of an NDJSON file).
public struct IncrementalSync: Sendable, Hashable {
    /// The field of each record, relative to the record.
    public var path: FieldPath
    /// The query parameter that carries the value.
    public var parameter: String
    /// Seconds taken off the value sent (timestamps and numbers only).
    public var lookback: Double

    public init(path: FieldPath, parameter: String, lookback: Double = 0) {
        self.path = path
        self.parameter = parameter
        self.lookback = lookback
    }

    /// The endpoint of a run that asks from `from` (none for the first sync).
    public func endpoint(_ url: URL, from: String?) -> URL {
        guard let from else { return url }
        return URL(string: PageLocator.setting([(parameter, from)], on: url.absoluteString)) ?? url
    }

    /// The value to send, from the highest value committed (JSON text), less the lookback.
    /// - Throws: ``StoreError`` when a lookback is asked of values that are neither timestamps nor numbers.
    public func from(highest: String) throws(StoreError) -> String {
        guard let value = SinceValue(json: Array(highest.utf8)) else {
            throw StoreError("the saved highest \(path) (\(highest.prefix(80))) is not a string or a number")
        }
        guard lookback > 0 else { return value.text }
        switch value {
        case .timestamp(_, let seconds):
            return SinceValue.rfc3339(seconds - lookback)
        case .number(let text):
            if let integer = Int(text) { return String(integer - Int(lookback.rounded(.up))) }
            guard let number = Double(text) else { return text }
            return String(number - lookback)
        case .string(let text):
            throw StoreError(
                "--lookback needs timestamps or numbers, and the highest \(path) is the string '\(text.prefix(80))'")
        }
    }

    /// The highest of `highest` (JSON text) and the values of `page`'s notes, as JSON text.
    /// - Throws: ``FetchError`` (a contract error naming the note) for a note whose field is missing, not
    ///   a string or a number, or of another type than the values before it.
    public func highest(_ highest: String?, after page: FetchedPage) throws(FetchError) -> String? {
        var best = highest.flatMap { SinceValue(json: Array($0.utf8)) }
        var bestJSON = highest
        try page.forEachField(at: path) { field, refuse throws(FetchError) in
            guard let value = SinceValue(field) else {
                throw refuse("is \(field.kindName), not a string or a number")
            }
            if let current = best {
                guard let isHigher = value.isHigher(than: current) else {
                    throw refuse("is \(value.kindName), and the values before it were \(current.kindName)")
                }
                if isHigher {
                    best = value
                    bestJSON = value.json
                }
            } else {
                best = value
                bestJSON = value.json
            }
        }
        return bestJSON
    }
}

extension FetchedPage {
    /// Calls `body` with each note's field at `path`, and what refuses the note (a contract error naming
    /// it, the page and the field). A note whose JSON was not kept, cannot be read or has no such field is
    /// refused before `body`.
    func forEachField(
        at path: FieldPath, _ body: (JSONTree, (String) -> FetchError) throws(FetchError) -> Void
    ) throws(FetchError) {
        for (index, note) in notes.enumerated() {
            let refuse = { (problem: String) -> FetchError in
                FetchError(
                    .record("note \(index + 1) (id \(note.id.prefix(80))): \(path) \(problem)"),
                    page: self.number, location: self.location, attempts: self.attempts)
            }
            guard let json = note.json else { throw refuse("cannot be read: the note's JSON was not kept") }
            let tree: JSONTree
            do {
                tree = try JSONTree.parse(Array(json))
            } catch {
                throw refuse("cannot be read: the note is over what a field is read from (\(error))")
            }
            guard let field = tree.value(at: path) else { throw refuse("is missing") }
            try body(field, refuse)
        }
    }
}

/// A value of an incremental sync's field, as compared: an RFC 3339 timestamp, a number, or a string.
enum SinceValue: Hashable {
    /// A string that parses as an RFC 3339 date-time, and its seconds since 1970.
    case timestamp(String, seconds: Double)
    /// A number, as written.
    case number(String)
    case string(String)

    init?(_ tree: JSONTree) {
        switch tree {
        case .number(let text): self = .number(text)
        case .string(let text):
            if let seconds = Self.parseRFC3339(text) {
                self = .timestamp(text, seconds: seconds)
            } else {
                self = .string(text)
            }
        default: return nil
        }
    }

    init?(json: [UInt8]) {
        guard let tree = try? JSONTree.parse(json), let value = SinceValue(tree) else { return nil }
        self = value
    }

    /// The value as a query parameter sends it.
    var text: String {
        switch self {
        case .timestamp(let text, _), .number(let text), .string(let text): return text
        }
    }

    /// The value as JSON text.
    var json: String {
        switch self {
        case .number(let text): return text
        case .timestamp(let text, _), .string(let text):
            return String(decoding: JSONTree.string(text).bytes, as: UTF8.self)
        }
    }

    var kindName: String {
        switch self {
        case .timestamp: return "a timestamp"
        case .number: return "a number"
        case .string: return "a string"
        }
    }

    /// Whether this value is above `other`; `nil` when the two cannot be compared (a number and a string).
    func isHigher(than other: SinceValue) -> Bool? {
        switch (self, other) {
        case (.timestamp(_, let a), .timestamp(_, let b)): return a > b
        case (.number(let a), .number(let b)):
            if let a = Int(a), let b = Int(b) { return a > b }
            guard let a = Double(a), let b = Double(b) else { return nil }
            return a > b
        case (.number, _), (_, .number): return nil
        default: return text > other.text  // strings, one of them not a timestamp: as strings
        }
    }

    /// Seconds since 1970 of an RFC 3339 date-time (`2026-11-30T08:00:00Z`, `…T08:00:00.123+01:00`), or `nil`.
    static func parseRFC3339(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 64 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, let digit = number(index..<index + 1) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard bytes.count == index + 6, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// `seconds` since 1970 as an RFC 3339 date-time in UTC, with microseconds when it has a fraction.
    static func rfc3339(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let micros = Int(((seconds - Double(whole)) * 1_000_000).rounded())
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let rest = whole - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let digits = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        var text =
            "\(paddedYear)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
        if micros > 0 && micros < 1_000_000 {
            let digits = String(micros)
            text += "." + String(repeating: "0", count: 6 - digits.count) + digits
        }
        return text + "Z"
    }
}

extension JSONTree {
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
