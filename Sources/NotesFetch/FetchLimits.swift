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
    /// The journal beside the state file (ids and visited URLs of the run's pages).
    public static let maxJournalBytes = 1 << 30

    /// Why `url` cannot be a page of the walk, or `nil` when it can.
    package static func urlProblem(_ url: String) -> String? {
        let count = url.utf8.count
        return count > maxURLBytes ? "the next page's URL is \(count) bytes, over the limit of \(maxURLBytes)" : nil
    }
}
