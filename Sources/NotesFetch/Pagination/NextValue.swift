/// What a page's body has said of its next value so far, for a request made before the page's end.
public enum NextValue: Sendable, Hashable {
    /// Not read: the body has not reached it (yet), or has none.
    case unread
    /// `null`: the page names no next page.
    case null
    /// The next value as the page wrote it.
    case value(String)

    /// A value read off the page: `nil` for `null`.
    public init(read: String?) {
        self = read.map { .value($0) } ?? .null
    }

    /// The value's text; `nil` for `null` or a value not read.
    public var text: String? {
        if case .value(let text) = self { return text }
        return nil
    }
}
