import Synchronization

/// The status line and header fields of a response.
public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPHeader]

    public init(status: Int, headers: [HTTPHeader] = []) {
        self.status = status
        self.headers = headers
    }

    /// The first value of the field `name` (case-insensitive).
    public func value(of name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether the body comes with a coding a client undoes: any `Content-Encoding` but `identity`, or any
    /// `Transfer-Encoding` but `chunked` (every field and every comma-separated value; libcurl undoes
    /// each, even a `Transfer-Encoding: gzip` it was not asked for).
    var hasCoding: Bool {
        func codings(_ name: String) -> [String] {
            values(of: name).flatMap { $0.split(separator: ",") }.map { String($0).trimming(" \t").lowercased() }
                .filter { !$0.isEmpty }
        }
        return codings("Content-Encoding").contains { $0 != "identity" }
            || codings("Transfer-Encoding").contains { $0 != "chunked" && $0 != "identity" }
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(of name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether two field names are equal but for ASCII case, without making lowercased copies (a page's
    /// head is asked for a dozen fields).
    static func sameName(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { left in
            right.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in left.indices where left[index] != right[index] {
                    let lower = left[index] | 0x20
                    guard lower == right[index] | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
