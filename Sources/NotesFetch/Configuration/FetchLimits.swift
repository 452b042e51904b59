import NotesPage

/// The bounds the fetch layer holds on what a server or a user's file controls, outside the page decoder
/// (whose bounds are the options of ``PageConfiguration`` and ``FetchConfiguration``); the store and the
/// command line keep theirs beside the code that enforces them. ARCHITECTURE.md's table of every limit
/// names each, where it is enforced and the error it gives.
public enum FetchLimits {
    /// A page's URL, a cursor or an id to go on after included: the set of pages visited holds no more.
    public static let maxURLBytes = IDSet.maxIDBytes
    /// A response's status line and header fields together.
    public static let maxHeadBytes = 64 << 10
    /// Redirects followed in a row before a page fails (``FetchConfiguration/maxRedirects``'s default).
    public static let maxRedirects = 5
    /// The file `--token-file` names.
    public static let maxTokenFileBytes = 64 << 10
}
