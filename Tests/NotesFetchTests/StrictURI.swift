/// RFC 3986's URI grammar (§3, appendix A), strictly, with RFC 9110's rule that an http or https URI has a
/// host: the oracle for every URL the walk would request. Written apart from `PageLocator.urlProblem`, so
/// that the fuzz target compares two readings of the RFC.
enum StrictURI {
    /// Why `text` is not a URI, or `nil` when it is one.
    static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "no scheme" }
        let scheme = bytes[..<colon]
        guard let first = scheme.first, isAlpha(first),
            scheme.allSatisfy({ isAlpha($0) || isDigit($0) || [0x2B, 0x2D, 0x2E].contains($0) })  // + - .
        else { return "the scheme" }
        var index = colon + 1
        let isHTTP = ["http", "https"].contains(String(decoding: scheme, as: UTF8.self).lowercased())
        if bytes[index...].starts(with: "//".utf8) {
            index += 2
            let end = bytes[index...].firstIndex { [0x2F, 0x3F, 0x23].contains($0) } ?? bytes.count  // / ? #
            if let problem = authorityProblem(bytes[index..<end], needsHost: isHTTP) { return problem }
            index = end
        } else if isHTTP {
            return "an http URI without an authority"
        }
        // path-abempty, path-absolute, path-rootless or path-empty: with "//" handled above, all are
        // *( pchar / "/" ) here.
        let pathEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        if let bad = firstInvalid(bytes[index..<pathEnd], allowing: { isPChar($0) || $0 == UInt8(ascii: "/") }) {
            return "byte \(bad) in the path"
        }
        index = pathEnd
        let queryOrFragment = { (byte: UInt8) in isPChar(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            if let bad = firstInvalid(bytes[(index + 1)..<end], allowing: queryOrFragment) {
                return "byte \(bad) in the query"
            }
            index = end
        }
        if index < bytes.count {  // at '#'
            if let bad = firstInvalid(bytes[(index + 1)...], allowing: queryOrFragment) {
                return "byte \(bad) in the fragment"
            }
        }
        return nil
    }

    /// authority = [ userinfo "@" ] host [ ":" port ].
    static func authorityProblem(_ authority: ArraySlice<UInt8>, needsHost: Bool) -> String? {
        var rest = authority
        if let at = authority.firstIndex(of: UInt8(ascii: "@")) {
            if let bad = firstInvalid(
                authority[..<at], allowing: { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") })
            {
                return "byte \(bad) in the userinfo"
            }
            rest = authority[(at + 1)...]
        }
        let port: ArraySlice<UInt8>
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return "an unclosed IP literal" }
            let literal = rest[(rest.startIndex + 1)..<close]
            guard isIPv6(literal) || isIPvFuture(literal) else {
                return "an IP literal that is neither IPv6 nor IPvFuture"
            }
            let after = rest[(close + 1)...]
            guard after.isEmpty || after.first == UInt8(ascii: ":") else { return "bytes after an IP literal" }
            port = after.dropFirst()
        } else {
            let colon = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
            let host = rest[..<colon]
            if let bad = firstInvalid(host, allowing: { isUnreserved($0) || isSubDelim($0) }) {
                return "byte \(bad) in the host"
            }
            if needsHost && host.isEmpty { return "an empty host" }
            port = rest[colon...].dropFirst()
        }
        guard port.allSatisfy(isDigit) else { return "a port that is not digits" }
        return nil
    }

    /// The offset of the first byte `allowing` refuses, a percent sign counting as allowed when two hex
    /// digits follow it (pct-encoded); `nil` when every byte is allowed.
    static func firstInvalid(_ bytes: ArraySlice<UInt8>, allowing: (UInt8) -> Bool) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                    return index
                }
                index += 3
                continue
            }
            guard allowing(bytes[index]) else { return index }
            index += 1
        }
        return nil
    }

    /// IPv6address (RFC 3986 §3.2.2): eight groups of one to four hex digits, the last two possibly an
    /// IPv4 address, at most one `::` standing for one or more groups of zeros.
    static func isIPv6(_ text: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(text)
        var halves: [[UInt8]] = []
        var start = 0
        var index = 0
        var elided = false
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: ":") {
                if elided { return false }
                elided = true
                halves.append(Array(bytes[start..<index]))
                start = index + 2
                index += 2
                continue
            }
            index += 1
        }
        halves.append(Array(bytes[start...]))
        var groups = 0
        for (half, part) in halves.enumerated() {
            if part.isEmpty { continue }
            let pieces = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            for (position, piece) in pieces.enumerated() {
                let isLast = half == halves.count - 1 && position == pieces.count - 1
                if isLast && piece.contains(UInt8(ascii: ".")) {
                    guard isIPv4(piece) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(isHex) else { return false }
                    groups += 1
                }
            }
        }
        return elided ? groups <= 7 : groups == 8
    }

    /// IPv4address: four dec-octets (0 to 255, no leading zero) separated by dots.
    static func isIPv4(_ text: ArraySlice<UInt8>) -> Bool {
        let octets = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                guard (1...3).contains(octet.count), octet.allSatisfy(isDigit) else { return false }
                if octet.count > 1 && octet.first == UInt8(ascii: "0") { return false }
                return octet.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
            }
    }

    /// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
    static func isIPvFuture(_ text: ArraySlice<UInt8>) -> Bool {
        guard let first = text.first, first | 0x20 == UInt8(ascii: "v"),
            let dot = text.firstIndex(of: UInt8(ascii: "."))
        else { return false }
        let version = text[(text.startIndex + 1)..<dot]
        let rest = text[(dot + 1)...]
        return !version.isEmpty && version.allSatisfy(isHex) && !rest.isEmpty
            && rest.allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || unreservedMarks.contains(byte)
    }
    static func isSubDelim(_ byte: UInt8) -> Bool { subDelimiters.contains(byte) }
    /// `-._~`, and `!$&'()*+,;=`.
    static let unreservedMarks: Set<UInt8> = Set("-._~".utf8)
    static let subDelimiters: Set<UInt8> = Set("!$&'()*+,;=".utf8)
    static func isPChar(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelim(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }
}
