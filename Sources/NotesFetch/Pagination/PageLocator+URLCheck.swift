internal import NotesJSON
import NotesPage

// The check every URL a walk would request passes first: a page's, a next reference's, an early request's.

extension PageLocator {
    /// Why `url` cannot be a page of the walk, or `nil` when it can.
    /// - Parameter what: The URL's name in the message.
    package static func urlProblem(_ url: String, what: String = "the next URL") -> String? {
        let maxURLBytes = FetchLimits.maxURLBytes
        let count = url.utf8.count
        if count > maxURLBytes { return "the next page's URL is \(count) bytes, over the limit of \(maxURLBytes)" }
        // Only http and https, with a host: a server's next reference must not point the walk at a file, or
        // at another protocol libcurl speaks.
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "\(what) has no scheme" }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "\(what) has scheme \(scheme.prefix(20)); only http and https are followed"
        }
        let rest = bytes[(colon + 1)...]
        guard rest.starts(with: "//".utf8) else { return "\(what) has no host" }
        let authority = rest.dropFirst(2).prefix { !"/?#".utf8.contains($0) }
        let host = authority.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false).last ?? []
        if host.isEmpty || host.first == UInt8(ascii: ":") { return "\(what) has no host" }
        // A URL libcurl cannot parse would fail every attempt as a transport error, retried; the server sent
        // something that is not a URL, which is a contract error.
        if let problem = syntaxProblem(bytes, authority: authority.startIndex..<authority.endIndex) {
            return "\(what) is not a valid URL (RFC 3986): \(problem)"
        }
        return nil
    }

    /// Where an http or https URL, its authority at `authority`, breaks RFC 3986 (§3, appendix A): a byte
    /// its part may not hold (a space, a quote, a bracket outside an IP literal, anything past ASCII), a `%`
    /// not followed by two hex digits, more than one `@`, an IP literal that is not IPv6 (libcurl takes no
    /// IPvFuture), a port that is not a number up to 65535. `nil` when it holds. Never quotes the URL.
    private static func syntaxProblem(_ bytes: [UInt8], authority: Range<Int>) -> String? {
        func invalid(_ range: Range<Int>, in part: URLPart) -> String? {
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < range.upperBound, ASCII.hexValue(bytes[index + 1]) != nil,
                        ASCII.hexValue(bytes[index + 2]) != nil
                    else { return "the '%' at byte \(index) is not followed by two hex digits" }
                    index += 3
                    continue
                }
                guard part.allows(byte) else {
                    return "byte \(index) (0x\(String(byte, radix: 16))) is not allowed in its \(part.rawValue)"
                }
                index += 1
            }
            return nil
        }
        var hostStart = authority.lowerBound
        if let at = bytes[authority].firstIndex(of: UInt8(ascii: "@")) {
            if let problem = invalid(authority.lowerBound..<at, in: .userInformation) { return problem }
            hostStart = at + 1
        }
        let portStart: Int
        if hostStart < authority.upperBound, bytes[hostStart] == UInt8(ascii: "[") {
            guard let close = bytes[hostStart..<authority.upperBound].firstIndex(of: UInt8(ascii: "]")),
                isIPv6(bytes[(hostStart + 1)..<close])
            else { return "its host is an IP literal that is not an IPv6 address" }
            guard close + 1 == authority.upperBound || bytes[close + 1] == UInt8(ascii: ":") else {
                return "byte \(close + 1) follows its IP literal"
            }
            portStart = close + 1
        } else {
            portStart =
                bytes[hostStart..<authority.upperBound].firstIndex(of: UInt8(ascii: ":")) ?? authority.upperBound
            if let problem = invalid(hostStart..<portStart, in: .host) { return problem }
        }
        if portStart < authority.upperBound {
            var port = 0
            for byte in bytes[(portStart + 1)..<authority.upperBound] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), port <= 65_535 else {
                    return "its port is not a number up to 65535"
                }
                port = port * 10 + Int(byte - UInt8(ascii: "0"))
            }
            if port > 65_535 { return "its port is not a number up to 65535" }
        }
        let pathEnd =
            bytes[authority.upperBound...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.count
        if let problem = invalid(authority.upperBound..<pathEnd, in: .path) { return problem }
        var index = pathEnd
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            let queryEnd = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            if let problem = invalid((index + 1)..<queryEnd, in: .query) { return problem }
            index = queryEnd
        }
        if index < bytes.count, let problem = invalid((index + 1)..<bytes.count, in: .fragment) {
            return problem
        }
        return nil
    }

    /// Whether `text` is an IPv6 address (RFC 3986 §3.2.2, without a zone): groups of one to four hex digits
    /// separated by `:`, the last two possibly written as an IPv4 address, eight in all, or fewer with one
    /// `::` standing for the rest.
    private static func isIPv6(_ text: ArraySlice<UInt8>) -> Bool {
        let colon = UInt8(ascii: ":")
        var index = text.startIndex
        var groups = 0
        var elided = false
        if text.starts(with: [colon, colon]) {
            elided = true
            index += 2
        } else if text.first == colon {
            return false
        }
        while index < text.endIndex {
            let start = index
            while index < text.endIndex, ASCII.hexValue(text[index]) != nil { index += 1 }
            if index < text.endIndex, text[index] == UInt8(ascii: ".") {
                // The last 32 bits as an IPv4 address.
                guard isIPv4(text[start...]) else { return false }
                groups += 2
                break
            }
            guard (1...4).contains(index - start) else { return false }
            groups += 1
            guard index < text.endIndex else { break }
            guard text[index] == colon, index + 1 < text.endIndex else { return false }
            index += 1
            if text[index] == colon {
                guard !elided else { return false }
                elided = true
                index += 1
            }
        }
        return elided ? groups <= 7 : groups == 8
    }

    /// Four decimal numbers up to 255, without leading zeros, separated by dots.
    private static func isIPv4(_ text: ArraySlice<UInt8>) -> Bool {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                guard (1...3).contains(part.count), part.allSatisfy({ (0x30...0x39).contains($0) }),
                    part.count == 1 || part.first != UInt8(ascii: "0")
                else { return false }
                return part.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 255
            }
    }

    /// The part's own bytes besides the unreserved ones and the sub-delimiters: `:` in the user
    /// information; `:`, `@` and `/` in the path; those and `?` in the query and the fragment.
    private enum URLPart: String {
        case userInformation = "user information"
        case host, path, query, fragment

        func allows(_ byte: UInt8) -> Bool {
            switch (self, byte) {
            case (.userInformation, UInt8(ascii: ":")): return true
            case (.path, UInt8(ascii: ":")), (.path, UInt8(ascii: "@")), (.path, UInt8(ascii: "/")): return true
            case (.query, UInt8(ascii: ":")), (.query, UInt8(ascii: "@")), (.query, UInt8(ascii: "/")),
                (.query, UInt8(ascii: "?")), (.fragment, UInt8(ascii: ":")), (.fragment, UInt8(ascii: "@")),
                (.fragment, UInt8(ascii: "/")), (.fragment, UInt8(ascii: "?")):
                return true
            default: return PageLocator.isUnreservedOrSubDelimiter(byte)
            }
        }
    }

    /// RFC 3986's unreserved characters and sub-delimiters: letters, digits, `-._~` and `!$&'()*+,;=`.
    private static func isUnreservedOrSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
