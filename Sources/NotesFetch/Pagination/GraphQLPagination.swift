public import NotesPage

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A GraphQL connection (Relay's cursor connections, GitHub's and Shopify's APIs): each page is a POST of
/// `{"query": …, "variables": {…, "<cursor variable>": <cursor or null>}}`; the records are the
/// connection's `edges[].node` or `nodes[]`; the next cursor is `pageInfo.endCursor` while
/// `pageInfo.hasNextPage` is true; `totalCount`, when asked for, is the total.
///
/// A 200 whose body has `errors` is no page (``refusal(of:now:)``): GitHub's `RATE_LIMITED` is a rate limit
/// waited out, anything else fails the walk with the first error's message and path.
public struct GraphQLPagination: Pagination {
    public let query: GraphQLQuery
    /// The members of the `variables` object besides the cursor, as JSON text (without the braces).
    private let variableMembers: String
    private let hasNextPagePath: FieldPath
    private let totalCountPath: FieldPath
    static let errorsPath = FieldPath("errors")

    /// - Parameters:
    ///   - query: The query, checked (``GraphQLQuery``).
    ///   - variables: A JSON object of the query's other variables, or `nil`.
    /// - Throws: ``GraphQLQuery/Problem`` when `variables` is not a JSON object or sets the cursor variable.
    public init(query: GraphQLQuery, variables: String? = nil) throws(GraphQLQuery.Problem) {
        self.query = query
        let connection = query.connection.components
        hasNextPagePath = FieldPath(components: connection + [Array("pageInfo".utf8), Array("hasNextPage".utf8)])
        totalCountPath = FieldPath(components: connection + [Array("totalCount".utf8)])
        guard let variables else {
            variableMembers = ""
            return
        }
        let decoded: [String: JSONValue]
        do {
            decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(variables.utf8))
        } catch {
            throw GraphQLQuery.Problem("the variables are not a JSON object")
        }
        guard decoded[query.cursorVariable] == nil else {
            throw GraphQLQuery.Problem(
                "the variables set $\(query.cursorVariable), the cursor: the walk sets it (start elsewhere with --cursor)"
            )
        }
        // The object as written, without its braces: its numbers keep their digits.
        let text = variables.trimming(" \t\r\n")
        variableMembers = String(text.dropFirst().dropLast()).trimming(" \t\r\n")
    }

    public var description: String { "graphql (\(query.connection), $\(query.cursorVariable))" }

    public var fieldPaths: [FieldPath] {
        [hasNextPagePath, Self.errorsPath] + (query.asksTotalCount ? [totalCountPath] : [])
    }

    public var readsNextValue: Bool { true }
    public var nextValueSaysMore: Bool { false }

    public func adapt(_ page: inout PageConfiguration) {
        let records = Array(query.shape.rawValue.utf8)
        page.itemsPath = FieldPath(components: query.connection.components + [records])
        page.nextPath = FieldPath(
            components: query.connection.components + [Array("pageInfo".utf8), Array("endCursor".utf8)])
        page.recordKey = query.shape == .edges ? "node" : nil
        // A response with errors may have no data: what it says is read (``refusal(of:now:)``).
        page.requiresItems = false
        page.detects = []
    }

    public func url(for location: PageLocation, endpoint: URL) -> String { endpoint.absoluteString }

    public func body(for location: PageLocation) -> [UInt8]? {
        var body = Array(#"{"query":"#.utf8)
        JSONText.appendQuoted(query.text, to: &body)
        body += Array(#","variables":{"#.utf8)
        if !variableMembers.isEmpty { body += Array(variableMembers.utf8) + [UInt8(ascii: ",")] }
        JSONText.appendQuoted(query.cursorVariable, to: &body)
        body.append(UInt8(ascii: ":"))
        if case .cursor(let cursor) = location {
            JSONText.appendQuoted(cursor, to: &body)
        } else {
            body += Array("null".utf8)
        }
        body += Array("}}".utf8)
        return body
    }

    public func identity(of location: PageLocation, endpoint: URL) -> String {
        guard case .cursor(let cursor) = location else { return endpoint.absoluteString }
        return endpoint.absoluteString + "#" + query.cursorVariable + "=" + PageLocator.percentEncode(cursor)
    }

    public func next(after page: PageFacts, endpoint: URL) throws(PaginationError) -> PageLocation? {
        guard page.summary.hasItems else {
            throw PaginationError("the response has no '\(query.shape.rawValue)' at \(query.connection)")
        }
        guard try page.flag(at: hasNextPagePath) else { return nil }
        guard let cursor = page.summary.nextCursor else {
            throw PaginationError("'\(hasNextPagePath)' is true, but the endCursor is null or empty")
        }
        return .cursor(cursor)
    }

    /// The next page as soon as `pageInfo` is read, when the query asks for it before the records: its
    /// `hasNextPage` true and its `endCursor` read (`hasNextPage` must come first within `pageInfo`).
    public func earlyNext(
        head: HTTPResponseHead, nextValue: NextValue, read: (FieldPath) -> FieldValue?, url: String, endpoint: URL
    ) -> PageLocation? {
        guard case .value(let cursor) = nextValue, read(hasNextPagePath) == .bool(true) else { return nil }
        return .cursor(cursor)
    }

    public func total(of page: PageFacts) -> Int? {
        guard query.asksTotalCount, case .number(let text)? = page.value(at: totalCountPath) else { return nil }
        return Int(text)
    }

    public func refusal(of page: PageFacts, now: Double) -> PageRefusal? {
        guard case .container? = page.value(at: Self.errorsPath) else { return nil }
        guard let json = page.json(at: Self.errorsPath) else {
            return .failed("the server answered with errors (over 16 KiB: not shown)")
        }
        guard let errors = try? JSONDecoder().decode([GraphQLError].self, from: Data(json.utf8)) else {
            return .failed("the server answered with errors that are not a list of objects: \(json.prefix(200))")
        }
        guard let first = errors.first else { return nil }
        if first.type == "RATE_LIMITED" || first.extensions?.code == "RATE_LIMITED" {
            return .rateLimited(reason: "GraphQL RATE_LIMITED", wait: RateLimit.wait(page.head, now: now) ?? 60)
        }
        var message = "the server answered with errors: \"\((first.message ?? "no message").prefix(300))\""
        if let path = first.path, !path.isEmpty { message += " at " + path.map(\.text).joined(separator: ".") }
        if errors.count > 1 { message += " (and \(errors.count - 1) more)" }
        return .failed(message)
    }
}

/// One error of a GraphQL response, as far as a message needs it.
private struct GraphQLError: Decodable {
    var message: String?
    var path: [PathElement]?
    /// GitHub's kind of error (`RATE_LIMITED`, `NOT_FOUND`).
    var type: String?
    var extensions: Extensions?

    struct Extensions: Decodable {
        var code: String?
    }

    /// A field name or a list index.
    struct PathElement: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let index = try? container.decode(Int.self) {
                text = String(index)
            } else {
                text = String(try container.decode(String.self).prefix(100))
            }
        }
    }
}

/// Any JSON value, to check that a text is a JSON object.
private enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
