public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A cursor sent in a POST's JSON body (Notion's `start_cursor` with `next_cursor` and `has_more`, search
/// APIs): every page POSTs the same body with the cursor written at ``cursorPath`` (absent on the first
/// page, unless the walk starts at a cursor); the next cursor is the body's next value, while the
/// ``hasMorePath`` flag, when there is one, is true.
///
/// The server may act on a POST, so one whose fate is unknown is not sent again unless ``resendsBody``
/// (`--retry-post`) says it is safe; a refusal that says it was not acted on (429, 503 with `Retry-After`,
/// a connection that never opened) is retried as always.
public struct BodyCursorPagination: Pagination {
    /// The body as given.
    public let template: JSONTree
    /// Where the cursor goes in the body: object keys from its top.
    public let cursorPath: [String]
    /// The flag that says whether more pages follow, e.g. `has_more`; `nil` to end at a null next value.
    public let hasMorePath: FieldPath?
    public let resendsBody: Bool

    /// - Parameters:
    ///   - body: The JSON object to send.
    ///   - cursorPath: Where to write the cursor.
    ///   - hasMorePath: Defaults to none.
    ///   - resendsBody: Whether a POST the server may have acted on may be sent again. Defaults to `false`.
    /// - Throws: ``JSONTree/SyntaxError`` when `body` is not a JSON object, or the path goes through a value
    ///   that is not an object.
    public init(body: String, cursorPath: FieldPath, hasMorePath: FieldPath? = nil, resendsBody: Bool = false)
        throws(JSONTree.SyntaxError)
    {
        let tree = try JSONTree.parse(Array(body.utf8))
        guard case .object = tree else { throw JSONTree.SyntaxError(description: "the body is not a JSON object") }
        template = tree
        self.cursorPath = cursorPath.components.map { String(decoding: $0, as: UTF8.self) }
        guard tree.setting(.null, at: self.cursorPath[...]) != nil else {
            throw JSONTree.SyntaxError(description: "'\(cursorPath)' goes through a value that is not an object")
        }
        self.hasMorePath = hasMorePath
        self.resendsBody = resendsBody
    }

    public var description: String { "body (\(cursorPath.joined(separator: ".")))" }

    public var fieldPaths: [FieldPath] { hasMorePath.map { [$0] } ?? [] }
    public var nextValueSaysMore: Bool { hasMorePath == nil }

    public func url(for location: PageLocation, endpoint: URL) -> String { endpoint.absoluteString }

    /// The body with the cursor at ``cursorPath``: a string, or for a JSON cursor (``PageLocation/json(_:)``)
    /// that value.
    public func body(for location: PageLocation) -> [UInt8]? {
        let value: JSONTree
        switch location {
        case .cursor(let cursor): value = .string(cursor)
        case .json(let json):
            // Compact JSON the page decoder wrote (or a resumed run read back): a bad one sends no cursor.
            guard let tree = try? JSONTree.parse(Array(json.utf8)) else { return template.bytes }
            value = tree
        default: return template.bytes
        }
        return (template.setting(value, at: cursorPath[...]) ?? template).bytes
    }

    public func identity(of location: PageLocation, endpoint: URL) -> String {
        let cursor: String
        switch location {
        case .cursor(let text): cursor = text
        case .json(let json): cursor = json
        default: return endpoint.absoluteString
        }
        return endpoint.absoluteString + "#" + cursorPath.joined(separator: ".") + "="
            + PageLocator.percentEncode(cursor)
    }

    /// The page `--cursor TEXT` names: a JSON cursor when the text is a JSON object or array.
    public func location(cursor: String) -> PageLocation? {
        switch try? JSONTree.parse(Array(cursor.utf8)) {
        case let tree? where tree.isContainer: return .json(String(decoding: tree.bytes, as: UTF8.self))
        default: return .cursor(cursor)
        }
    }

    /// The next cursor: a string or number as its text, an object or array as its JSON.
    private func cursor(of page: PageFacts) -> PageLocation? {
        guard let value = page.summary.nextCursor else { return nil }
        return page.summary.nextIsJSON ? .json(value) : .cursor(value)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        guard let hasMorePath else { return cursor(of: page) }
        guard try page.flag(at: hasMorePath) else { return nil }
        guard let cursor = cursor(of: page) else {
            throw PaginationError("'\(hasMorePath)' is true, but the next cursor is null or empty")
        }
        return cursor
    }
}
