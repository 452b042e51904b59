import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `fetch`'s pagination options: `--paginate STYLE` and the parameters of each style.
enum PaginationOptions {
    /// The longest GraphQL query file (`--graphql`), variables file (`--variables @FILE`) or body file
    /// (`--body @FILE`).
    static let maxQueryFileBytes = 1 << 20
    /// The styles `--paginate` takes.
    enum Style: String, CaseIterable {
        case auto, next, link, header, offset, page, keyset, graphql, body
    }

    static let group = "PAGINATION"

    /// `--method`'s values.
    enum Method: String, CaseIterable, Sendable {
        case get = "GET"
        case post = "POST"
    }

    // The options, each declared once: its help, its default and how its value reads.
    static let paginate = Declared.choice(
        "--paginate", value: "style",
        help: "auto, next, link, header, offset, page, keyset, graphql or body (docs/pagination.md).",
        choices: Style.allCases, default: .auto, group: group)
    static let nextIs = Declared.choice(
        "--next-is", value: "kind",
        help: "next: the next value is a cursor, a url, or auto (a URL if it has a scheme or starts with /).",
        choices: NextValuePagination.Kind.allCases, default: .auto, group: group)
    static let cursorParam = name("--cursor-param", help: "The query parameter of a cursor.", default: "cursor")
    static let nextHeader = name(
        "--next-header", help: "header: the response header with the next cursor, e.g. X-Next-Cursor.", default: nil)
    static let pageSize = Declared<Int?>.integer(
        "--page-size", help: "offset, page, keyset: notes per page to ask for (offset: unless the URL has one).",
        in: 1...1_000_000, group: group)
    static let offsetParam = name("--offset-param", help: "offset: the offset parameter.", default: "offset")
    static let limitParam = name("--limit-param", help: "offset, keyset: the page size parameter.", default: "limit")
    static let pageParam = name("--page-param", help: "page: the page number parameter.", default: "page")
    static let firstPage = Declared<Int>.integer(
        "--first-page", help: "page: the number of the first page, 0 or 1.", default: 1, in: 0...1, group: group)
    static let pageSizeParam = name(
        "--page-size-param", help: "page: the page size parameter.", default: "per_page")
    static let afterParam = name(
        "--after-param", help: "keyset: the parameter that takes the last id.", default: "starting_after")
    static let hasMorePath = Declared.text(
        "--has-more-path", value: "path", help: "keyset: path of the has-more flag.", defaultShown: "has_more",
        group: group)
    static let totalPath = Declared.text(
        "--total-path", value: "path",
        help: "offset, page: path of the total number of notes, e.g. count (X-Total-Count is read anyway).",
        group: group)
    static let parallel = Declared<Int>.integer(
        "--parallel", help: "offset, page: pages in flight at once (1: one after another).",
        default: FetchConfiguration().parallel, in: 1...64, group: group)
    static let noEarlyRequests = Declared.flag(
        "--no-early-requests",
        help: "next, link, header, auto: do not request the next page before the current one has ended.",
        group: group)
    static let graphql = Declared.text(
        "--graphql", value: "file",
        help: "graphql: POST this query (it declares $after) and walk one connection of it.",
        group: group)
    static let connection = Declared.text(
        "--connection", value: "path",
        help: "graphql: the connection's path in the response, e.g. data.repository.issues.",
        group: group)
    static let variables = Declared.text(
        "--variables", value: "json", help: "graphql: the query's other variables, a JSON object (or @file).",
        group: group)
    static let cursorVariable = name(
        "--cursor-variable", help: "graphql: the variable that takes the cursor.", default: "after")
    static let method = Declared.choice(
        "--method", value: "name", help: "body: GET or POST; --body needs POST.", choices: Method.allCases,
        default: .get, group: group)
    static let body = Declared.text(
        "--body", value: "json", help: "body: the JSON object to POST (or @file).", group: group)
    static let bodyCursor = Declared.text(
        "--body-cursor", value: "path",
        help: "body: where the cursor goes in the body, e.g. start_cursor (absent on the first page).", group: group)
    static let retryPost = Declared.flag(
        "--retry-post", help: "body: the POST changes nothing: send it again after any failure.", group: group)
    static let onDuplicate = Declared.choice(
        "--on-duplicate", value: "action", help: "fail or skip a note whose id the run has seen.",
        choices: DuplicatePolicy.allCases, default: .fail, group: group)

    static let specs: [CommandSpec.Option] = [
        paginate.spec, nextIs.spec, cursorParam.spec, nextHeader.spec, pageSize.spec, offsetParam.spec,
        limitParam.spec, pageParam.spec, firstPage.spec, pageSizeParam.spec, afterParam.spec, hasMorePath.spec,
        totalPath.spec, parallel.spec, noEarlyRequests.spec, graphql.spec, connection.spec, variables.spec,
        cursorVariable.spec, method.spec, body.spec, bodyCursor.spec, retryPost.spec, onDuplicate.spec,
    ]

    /// The styles each style-specific option applies to.
    private static let appliesTo: [(option: String, styles: [Style])] = [
        (nextIs.name, [.next]),
        (cursorParam.name, [.auto, .next, .header]),
        (nextHeader.name, [.header]),
        (pageSize.name, [.offset, .page, .keyset]),
        (offsetParam.name, [.offset]),
        (limitParam.name, [.offset, .keyset]),
        (pageParam.name, [.page]),
        (firstPage.name, [.page]),
        (pageSizeParam.name, [.page]),
        (afterParam.name, [.keyset]),
        (hasMorePath.name, [.keyset, .body]),
        (totalPath.name, [.offset, .page]),
        (graphql.name, [.graphql]),
        (connection.name, [.graphql]),
        (variables.name, [.graphql]),
        (cursorVariable.name, [.graphql]),
        (method.name, [.body]),
        (body.name, [.body]),
        (bodyCursor.name, [.body]),
        (retryPost.name, [.body]),
    ]

    /// The scheme the options describe for `endpoint`.
    /// - Throws: ``UsageError`` for a bad value or an option that does not fit the style.
    static func pagination(_ parsed: ParsedArguments, endpoint: URL) throws(UsageError) -> any Pagination {
        // --graphql says the style on its own.
        let implied = parsed.has(graphql) ? Style.graphql : parsed.has(bodyCursor) ? .body : .auto
        let style = parsed.has(paginate) ? try parsed[paginate] : implied
        for (option, styles) in appliesTo.sorted(by: { $0.option < $1.option }) where parsed.has(option) {
            guard styles.contains(style) else {
                let names = styles.map(\.rawValue).joined(separator: ", ")
                throw UsageError("\(option) applies to --paginate \(names), not \(style.rawValue)")
            }
        }
        let cursorParameter = try parsed[cursorParam] ?? ""
        let pageSize = try parsed[Self.pageSize]
        let totalPath = try PageOptions.path(parsed, Self.totalPath)
        switch style {
        case .auto:
            return AutoPagination(cursorParameter: cursorParameter)
        case .next:
            return NextValuePagination(cursorParameter: cursorParameter, kind: try parsed[nextIs])
        case .link:
            return LinkPagination()
        case .header:
            guard let header = try parsed[nextHeader] else {
                throw UsageError("--paginate header needs --next-header NAME, the header with the next cursor")
            }
            return HeaderCursorPagination(header: header, cursorParameter: cursorParameter)
        case .offset:
            let offsetParameter = try parsed[offsetParam] ?? ""
            let limitParameter = try parsed[limitParam] ?? ""
            let fromURL = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == limitParameter }?.value.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            guard let limit = pageSize ?? fromURL else {
                throw UsageError(
                    "--paginate offset needs --page-size N (or a '\(limitParameter)' parameter in the URL)")
            }
            return OffsetPagination(
                offsetParameter: offsetParameter, limitParameter: limitParameter, limit: limit, totalPath: totalPath)
        case .page:
            return PageNumberPagination(
                pageParameter: try parsed[pageParam] ?? "",
                firstPage: try parsed[firstPage],
                pageSizeParameter: try parsed[pageSizeParam] ?? "",
                pageSize: pageSize,
                totalPath: totalPath)
        case .keyset:
            return KeysetPagination(
                afterParameter: try parsed[afterParam] ?? "",
                hasMorePath: try PageOptions.path(parsed, hasMorePath) ?? FieldPath("has_more"),
                limitParameter: try parsed[limitParam] ?? "",
                pageSize: pageSize)
        case .graphql:
            return try graphQL(parsed)
        case .body:
            return try bodyCursor(parsed)
        }
    }

    /// `--graphql FILE --connection PATH [--variables JSON] [--cursor-variable NAME]`, the query checked
    /// before any request.
    private static func graphQL(_ parsed: ParsedArguments) throws(UsageError) -> GraphQLPagination {
        guard let file = try parsed[graphql] else {
            throw UsageError("--paginate graphql needs --graphql FILE, the query")
        }
        guard let connection = try PageOptions.path(parsed, Self.connection) else {
            throw UsageError("--graphql needs --connection PATH, e.g. data.repository.issues")
        }
        for option in [PageOptions.itemsPath, PageOptions.nextPath] where parsed.has(option) {
            throw UsageError(
                "\(option.name) does not apply to --graphql: the connection's edges or nodes and pageInfo are read")
        }
        let text = try contents(file, of: Self.graphql.name)
        var variables = try parsed[Self.variables]
        if let value = variables, value.hasPrefix("@") {
            variables = try contents(String(value.dropFirst()), of: Self.variables.name)
        }
        do {
            let query = try GraphQLQuery(
                text, connection: connection, cursorVariable: try parsed[cursorVariable] ?? "")
            return try GraphQLPagination(query: query, variables: variables)
        } catch {
            throw UsageError("--graphql \(file.prefix(80)): \(error)")
        }
    }

    /// `--method POST --body JSON --body-cursor PATH [--has-more-path PATH] [--retry-post]`.
    private static func bodyCursor(_ parsed: ParsedArguments) throws(UsageError) -> BodyCursorPagination {
        let method = try parsed[Self.method]
        guard var body = try parsed[Self.body], let cursorPath = try PageOptions.path(parsed, bodyCursor)
        else { throw UsageError("--paginate body needs --method POST, --body JSON and --body-cursor PATH") }
        guard method == .post else { throw UsageError("--body needs --method POST") }
        if body.hasPrefix("@") { body = try contents(String(body.dropFirst()), of: Self.body.name) }
        do {
            return try BodyCursorPagination(
                body: body, cursorPath: cursorPath, hasMorePath: try PageOptions.path(parsed, hasMorePath),
                resendsBody: try parsed[retryPost])
        } catch {
            throw UsageError("--body: \(error)")
        }
    }

    /// A file's text for `option`, at most ``maxQueryFileBytes``.
    private static func contents(_ path: String, of option: String) throws(UsageError) -> String {
        let bytes: [UInt8]?
        do {
            bytes = try readFile(path, limit: PaginationOptions.maxQueryFileBytes)
        } catch {
            throw UsageError("Cannot read \(option) '\(path.prefix(80))': \(error)")
        }
        guard let bytes else { throw UsageError("Cannot read \(option) '\(path.prefix(80))': no such file") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A parameter or header name (1 to 256 bytes of visible ASCII, no `=`, `&`, `#` or `:`), `defaultValue`
    /// when absent.
    private static func name(_ option: String, help: String, default defaultValue: String?) -> Declared<String?> {
        let spec = Declared.text(option, value: "name", help: help, defaultShown: defaultValue, group: group).spec
        return Declared(spec) { parsed, option throws(UsageError) in
            guard let value = parsed.value(option) else { return defaultValue }
            let valid =
                !value.isEmpty && value.utf8.count <= 256
                && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"=&#:".utf8.contains($0) }
            guard valid else { throw UsageError("Invalid \(option) '\(value.prefix(40))': expected a name") }
            return value
        }
    }
}
