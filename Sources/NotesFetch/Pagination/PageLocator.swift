internal import NotesJSON

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An endpoint and its pagination scheme: turns page locations into URLs and reads the next location
/// off a page.
public struct PageLocator: Sendable {
    /// The endpoint, e.g. `https://api.example/notes?limit=100`.
    public let endpoint: URL
    public let pagination: any Pagination

    public init(endpoint: URL, pagination: any Pagination) {
        self.endpoint = endpoint
        self.pagination = pagination
    }

    /// The endpoint with ``AutoPagination``: the body's next value (a URL, or a cursor sent as
    /// `cursorParameter`), else `Link: rel="next"`.
    public init(endpoint: URL, cursorParameter: String = "cursor") {
        self.init(endpoint: endpoint, pagination: AutoPagination(cursorParameter: cursorParameter))
    }

    /// The first page of the walk.
    public var start: PageLocation { pagination.start(endpoint: endpoint) }

    /// The URL to request for `location`.
    public func url(for location: PageLocation) -> String {
        pagination.url(for: location, endpoint: endpoint)
    }

    /// What names `location` among the walk's pages (``Pagination/identity(of:endpoint:)``): its URL for a
    /// GET.
    public func identity(for location: PageLocation) -> String {
        pagination.identity(of: location, endpoint: endpoint)
    }

    /// The page after `page`, or `nil` at the end.
    public func next(after page: PageFacts) throws(PaginationError) -> PageLocation? {
        try pagination.next(after: page, endpoint: endpoint)
    }

    /// `location`'s URL for the schemes that share these three: the endpoint, the endpoint with a cursor
    /// as `cursorParameter`, a URL as it is. Offsets, page numbers and ids are their schemes' own.
    static func url(for location: PageLocation, endpoint: URL, cursorParameter: String) -> String {
        switch location {
        case .url(let url): return url
        case .cursor(let cursor), .json(let cursor): return setting([(cursorParameter, cursor)], on: endpoint)
        case .start, .offset, .page, .after: return endpoint.absoluteString
        }
    }

    /// `endpoint` with each of `parameters` set (percent-encoded): one already in its query is replaced,
    /// never repeated; the others keep their place.
    static func setting(_ parameters: [(name: String, value: String)], on endpoint: URL) -> String {
        setting(parameters, on: endpoint.absoluteString)
    }

    /// `url` with each of `parameters` set, over its bytes: no `URLComponents` setter, which traps on
    /// names it did not encode itself (`page[offset]`). A parameter already in the query, its name raw or
    /// percent-encoded (`page%5Boffset%5D`), keeps its place and its spelling and takes the new value; a
    /// new one is appended with its name and value percent-encoded (all but RFC 3986's unreserved
    /// characters). Empty pairs (`&&`, a trailing `?`) are dropped; a fragment stays at the end.
    package static func setting(_ parameters: [(name: String, value: String)], on url: String) -> String {
        // Bytes, not characters or substrings: every separator here is ASCII, and this runs for every page
        // (three times for a walk's page: its guess, its next page and that page's check).
        var url = url
        return url.withUTF8 { bytes -> String in
            let hash = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            let question = bytes[..<hash].firstIndex(of: UInt8(ascii: "?"))
            var items: [ArraySlice<UInt8>] = []
            if let question {
                var start = question + 1
                for index in start...hash where index == hash || bytes[index] == UInt8(ascii: "&") {
                    if index > start { items.append(ArraySlice(bytes[start..<index])) }
                    start = index + 1
                }
            }
            for (name, value) in parameters {
                let wanted = Array(name.utf8)
                let matches = { (item: ArraySlice<UInt8>) -> Bool in
                    let end = item.firstIndex(of: UInt8(ascii: "=")) ?? item.endIndex
                    return Self.decodedEquals(item[item.startIndex..<end], wanted)
                }
                let encodedValue = Self.percentEncoded(value)
                if let first = items.firstIndex(where: matches) {
                    let item = items[first]
                    let end = item.firstIndex(of: UInt8(ascii: "=")) ?? item.endIndex
                    setOnce(
                        ArraySlice(Array(item[..<end]) + [UInt8(ascii: "=")] + encodedValue), in: &items, where: matches
                    )
                } else {
                    items.append(ArraySlice(Self.percentEncoded(name) + [UInt8(ascii: "=")] + encodedValue))
                }
            }
            return assembled(bytes, query: question ?? hash, hash: hash, items, keepsMark: true)
        }
    }

    /// `bytes` before `query` (its `?`, or where it would be), then `?` and `items` joined by `&`, then the
    /// fragment from `hash` on; with no items, the `?` only when `keepsMark`.
    private static func assembled(
        _ bytes: UnsafeBufferPointer<UInt8>, query: Int, hash: Int, _ items: [ArraySlice<UInt8>], keepsMark: Bool
    ) -> String {
        var result = Array(bytes[..<query])
        if keepsMark || !items.isEmpty { result.append(UInt8(ascii: "?")) }
        for (index, item) in items.enumerated() {
            if index > 0 { result.append(UInt8(ascii: "&")) }
            result += item
        }
        result += bytes[hash...]
        return String(decoding: result, as: UTF8.self)
    }

    /// `url` without the query parameter `name` (written raw or percent-encoded), every other byte as it was.
    package static func removing(_ name: String, from url: String) -> String {
        var url = url
        return url.withUTF8 { bytes -> String in
            let hash = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            guard let question = bytes[..<hash].firstIndex(of: UInt8(ascii: "?")) else {
                return String(decoding: bytes, as: UTF8.self)
            }
            let wanted = Array(name.utf8)
            var kept: [ArraySlice<UInt8>] = []
            var start = question + 1
            for index in start...hash where index == hash || bytes[index] == UInt8(ascii: "&") {
                let item = bytes[start..<index]
                let end = item.firstIndex(of: UInt8(ascii: "=")) ?? item.endIndex
                if !Self.decodedEquals(ArraySlice(item[item.startIndex..<end]), wanted) {
                    kept.append(ArraySlice(item))
                }
                start = index + 1
            }
            guard
                kept.count
                    < bytes[(question + 1)..<hash].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
                    .count
            else { return String(decoding: bytes, as: UTF8.self) }
            return assembled(bytes, query: question, hash: hash, kept.filter { !$0.isEmpty }, keepsMark: false)
        }
    }

    /// Whether a query parameter's name as written (`page%5Boffset%5D`, `page[offset]`) is `name` once its
    /// percent escapes are decoded; a `%` not followed by two hex digits stands for itself.
    static func decodedEquals(_ written: ArraySlice<UInt8>, _ name: [UInt8]) -> Bool {
        var index = written.startIndex
        var position = 0
        while index < written.endIndex {
            var byte = written[index]
            index += 1
            if byte == UInt8(ascii: "%"), written.endIndex - index >= 2, let high = ASCII.hexValue(written[index]),
                let low = ASCII.hexValue(written[index + 1])
            {
                byte = high << 4 | low
                index += 2
            }
            guard position < name.count, name[position] == byte else { return false }
            position += 1
        }
        return position == name.count
    }

    /// Puts `item` in the place of the first of `items` that `matches` and drops the later ones that do,
    /// or appends it: a query parameter is set once, never repeated, and the others keep their place.
    private static func setOnce<Item>(_ item: Item, in items: inout [Item], where matches: (Item) -> Bool) {
        guard let first = items.firstIndex(where: matches) else { return items.append(item) }
        items[first] = item
        items = items.enumerated().filter { $0.offset <= first || !matches($0.element) }.map(\.element)
    }

    /// The integer value of the query parameter `name` in `url`, if it has one.
    static func integer(_ name: String, in url: String) -> Int? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value.flatMap { Int($0) }
    }

    /// `reference` resolved against `base` (RFC 3986 §5).
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let baseURL = URL(string: base), let url = URL(string: reference, relativeTo: baseURL) else { return nil }
        return url.absoluteString
    }

    /// The target of the first link with relation type `next` in a `Link` header (RFC 8288).
    public static func nextLink(in header: String) -> String? {
        link("next", in: header)
    }

    /// The target of the first link with relation type `relation` in a `Link` header (RFC 8288); `rel`
    /// may list several types.
    public static func link(_ relation: String, in header: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = String(rest[rest.index(after: open)..<close])
            // The parameters run to the next link, which starts after a comma outside quotes.
            var index = rest.index(after: close)
            var inQuotes = false
            while index < rest.endIndex {
                let character = rest[index]
                if character == "\"" { inQuotes.toggle() }
                if character == "," && !inQuotes { break }
                index = rest.index(after: index)
            }
            let parameters = rest[rest.index(after: close)..<index]
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, String(pair[0]).trimming(" \t").lowercased() == "rel" else {
                    continue
                }
                let value = String(pair[1]).trimming(" \t\"")
                if value.lowercased().split(separator: " ").contains(Substring(relation)) { return target }
            }
            rest = rest[index...]
        }
        return nil
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so `+`, `/` and `=` survive.
    public static func percentEncode(_ text: String) -> String {
        String(decoding: percentEncoded(text), as: UTF8.self)
    }

    /// ``percentEncode(_:)``'s bytes.
    static func percentEncoded(_ text: String) -> [UInt8] {
        let digits: StaticString = "0123456789ABCDEF"
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(digits.utf8Start[Int(byte >> 4)])
                encoded.append(digits.utf8Start[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_` and `~`.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `value` starts with `scheme://` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
    static func hasScheme(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard let first = bytes.first, Self.isLetter(first) else { return false }
        var index = 1
        while index < bytes.count,
            Self.isLetter(bytes[index]) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
                || bytes[index] == UInt8(ascii: ".")
        {
            index += 1
        }
        return bytes[index...].starts(with: "://".utf8)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
