import NotesPage

/// The bounds of what a server or a user's file controls outside the page decoder (whose bounds are the
/// options of ``PageConfiguration`` and ``FetchConfiguration``), in one place. ARCHITECTURE.md's table of
/// every limit names each, where it is enforced and the error it gives.
public enum FetchLimits {
    /// A page's URL, a cursor or an id to go on after included: the set of pages visited holds no more.
    public static let maxURLBytes = IDSet.maxIDBytes
    /// A response's status line and header fields together.
    public static let maxHeadBytes = 64 << 10
    /// Redirects followed in a row before a page fails (``FetchConfiguration/maxRedirects``'s default).
    public static let maxRedirects = 5
    /// The file `--token-file` names.
    public static let maxTokenFileBytes = 64 << 10
    /// The file `--cacert` names.
    public static let maxCAFileBytes = 16 << 20
    /// The `--state` file.
    public static let maxStateFileBytes = 1 << 20
    /// A GraphQL query file (`--graphql`) or a variables file (`--variables @FILE`).
    public static let maxQueryFileBytes = 1 << 20
    /// The journal beside the state file (ids and visited URLs of the run's pages).
    public static let maxJournalBytes = 1 << 30

    /// Why `url` cannot be a page of the walk, or `nil` when it can.
    /// - Parameter what: The URL's name in the message.
    package static func urlProblem(_ url: String, what: String = "the next URL") -> String? {
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
        return nil
    }
}
