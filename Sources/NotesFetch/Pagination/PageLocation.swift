/// Where a page is, in its pagination scheme's terms: the endpoint itself, the endpoint with a cursor,
/// a URL the server gave, an offset, a page number, or the id a keyset page starts after.
public enum PageLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    case start
    case cursor(String)
    case url(String)
    case offset(Int)
    case page(Int)
    case after(String)
    /// A cursor that is a JSON object or array (DynamoDB's `LastEvaluatedKey`), as its compact JSON: it
    /// goes into a POST body as that value (``BodyCursorPagination``).
    case json(String)

    public var description: String {
        switch self {
        case .start: return "the first page"
        case .cursor(let cursor): return "cursor \(cursor)"
        case .url(let url): return url
        case .offset(let offset): return "offset \(offset)"
        case .page(let number): return "page number \(number)"
        case .after(let id): return "after id \(id)"
        case .json(let json): return "cursor \(json)"
        }
    }
}
