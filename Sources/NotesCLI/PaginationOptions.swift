import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `fetch`'s pagination options: `--paginate STYLE` and the parameters of each style.
enum PaginationOptions {
    /// The styles `--paginate` takes.
    enum Style: String, CaseIterable {
        case auto, next, link, header, offset, page, keyset, graphql, body
    }

    static let group = "PAGINATION"

    static let specs: [CommandSpec.Option] = [
        .init(
            "--paginate", value: "style",
            help:
                "auto, next, link, header, offset, page, keyset, graphql or body (docs/pagination.md). Default: auto.",
            group: group),
        .init(
            "--next-is", value: "kind",
            help: "next: the next value is a cursor, a url, or auto (a URL if it has a scheme or starts with /).",
            group: group),
        .init("--cursor-param", value: "name", help: "The query parameter of a cursor. Default: cursor.", group: group),
        .init(
            "--next-header", value: "name",
            help: "header: the response header with the next cursor, e.g. X-Next-Cursor.",
            group: group),
        .init(
            "--page-size", value: "n",
            help: "offset, page, keyset: notes per page to ask for (offset: unless the URL has one).", group: group),
        .init("--offset-param", value: "name", help: "offset: the offset parameter. Default: offset.", group: group),
        .init(
            "--limit-param", value: "name", help: "offset, keyset: the page size parameter. Default: limit.",
            group: group),
        .init("--page-param", value: "name", help: "page: the page number parameter. Default: page.", group: group),
        .init(
            "--first-page", value: "n", help: "page: the number of the first page, 0 or 1. Default: 1.", group: group),
        .init(
            "--page-size-param", value: "name", help: "page: the page size parameter. Default: per_page.", group: group),
        .init(
            "--after-param", value: "name",
            help: "keyset: the parameter that takes the last id. Default: starting_after.",
            group: group),
        .init(
            "--has-more-path", value: "path", help: "keyset: path of the has-more flag. Default: has_more.",
            group: group),
        .init(
            "--total-path", value: "path",
            help: "offset, page: path of the total number of notes, e.g. count (X-Total-Count is read anyway).",
            group: group),
        .init(
            "--parallel", value: "n",
            help:
                "offset, page: pages in flight at once (1: one after another). Default: \(FetchConfiguration().parallel).",
            group: group),
        .init(
            "--no-early-requests",
            help: "next, link, header, auto: do not request the next page before the current one has ended.",
            group: group),
        .init(
            "--graphql", value: "file",
            help: "graphql: POST this query (it declares $after) and walk one connection of it.", group: group),
        .init(
            "--connection", value: "path",
            help: "graphql: the connection's path in the response, e.g. data.repository.issues.", group: group),
        .init(
            "--variables", value: "json",
            help: "graphql: the query's other variables, a JSON object (or @file).", group: group),
        .init(
            "--cursor-variable", value: "name", help: "graphql: the variable that takes the cursor. Default: after.",
            group: group),
        .init(
            "--method", value: "name", help: "body: GET or POST; --body needs POST. Default: GET.", group: group),
        .init("--body", value: "json", help: "body: the JSON object to POST (or @file).", group: group),
        .init(
            "--body-cursor", value: "path",
            help: "body: where the cursor goes in the body, e.g. start_cursor (absent on the first page).",
            group: group),
        .init(
            "--retry-post", help: "body: the POST changes nothing: send it again after any failure.",
            group: group),
        .init(
            "--on-duplicate", value: "action", help: "fail or skip a note whose id the run has seen. Default: fail.",
            group: group),
    ]

    /// The styles each style-specific option applies to.
    private static let appliesTo: [String: [Style]] = [
        "--next-is": [.next],
        "--cursor-param": [.auto, .next, .header],
        "--next-header": [.header],
        "--page-size": [.offset, .page, .keyset],
        "--offset-param": [.offset],
        "--limit-param": [.offset, .keyset],
        "--page-param": [.page],
        "--first-page": [.page],
        "--page-size-param": [.page],
        "--after-param": [.keyset],
        "--has-more-path": [.keyset, .body],
        "--total-path": [.offset, .page],
        "--graphql": [.graphql],
        "--connection": [.graphql],
        "--variables": [.graphql],
        "--cursor-variable": [.graphql],
        "--method": [.body],
        "--body": [.body],
        "--body-cursor": [.body],
        "--retry-post": [.body],
    ]

    /// The scheme the options describe for `endpoint`.
    /// - Throws: ``UsageError`` for a bad value or an option that does not fit the style.
    static func pagination(_ parsed: ParsedArguments, endpoint: URL) throws(UsageError) -> any Pagination {
        // --graphql says the style on its own.
        let implied = parsed.has("--graphql") ? Style.graphql : parsed.has("--body-cursor") ? .body : .auto
        let style = Style(
            rawValue: try parsed.choice(
                "--paginate", default: implied.rawValue, from: Style.allCases.map(\.rawValue)))!
        for (option, styles) in appliesTo.sorted(by: { $0.key < $1.key }) where parsed.has(option) {
            guard styles.contains(style) else {
                let names = styles.map(\.rawValue).joined(separator: ", ")
                throw UsageError("\(option) applies to --paginate \(names), not \(style.rawValue)")
            }
        }
        let cursorParameter = try name(parsed, "--cursor-param", default: "cursor")
        let pageSize =
            parsed.has("--page-size") ? try parsed.integer("--page-size", default: 0, in: 1...1_000_000) : nil
        let totalPath = try PageOptions.path(parsed, "--total-path")
        switch style {
        case .auto:
            return AutoPagination(cursorParameter: cursorParameter)
        case .next:
            let kind = try parsed.choice(
                "--next-is", default: NextValuePagination.Kind.auto.rawValue,
                from: NextValuePagination.Kind.allCases.map(\.rawValue))
            return NextValuePagination(
                cursorParameter: cursorParameter, kind: NextValuePagination.Kind(rawValue: kind)!)
        case .link:
            return LinkPagination()
        case .header:
            guard parsed.has("--next-header") else {
                throw UsageError("--paginate header needs --next-header NAME, the header with the next cursor")
            }
            return HeaderCursorPagination(
                header: try name(parsed, "--next-header", default: ""), cursorParameter: cursorParameter)
        case .offset:
            let offsetParameter = try name(parsed, "--offset-param", default: "offset")
            let limitParameter = try name(parsed, "--limit-param", default: "limit")
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
                pageParameter: try name(parsed, "--page-param", default: "page"),
                firstPage: try parsed.integer("--first-page", default: 1, in: 0...1),
                pageSizeParameter: try name(parsed, "--page-size-param", default: "per_page"),
                pageSize: pageSize,
                totalPath: totalPath)
        case .keyset:
            return KeysetPagination(
                afterParameter: try name(parsed, "--after-param", default: "starting_after"),
                hasMorePath: try PageOptions.path(parsed, "--has-more-path") ?? FieldPath("has_more"),
                limitParameter: try name(parsed, "--limit-param", default: "limit"),
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
        guard let file = parsed.value("--graphql") else {
            throw UsageError("--paginate graphql needs --graphql FILE, the query")
        }
        guard let connection = try PageOptions.path(parsed, "--connection") else {
            throw UsageError("--graphql needs --connection PATH, e.g. data.repository.issues")
        }
        for option in ["--items-path", "--next-path"] where parsed.has(option) {
            throw UsageError(
                "\(option) does not apply to --graphql: the connection's edges or nodes and pageInfo are read")
        }
        let text = try contents(file, of: "--graphql")
        var variables = parsed.value("--variables")
        if let value = variables, value.hasPrefix("@") {
            variables = try contents(String(value.dropFirst()), of: "--variables")
        }
        do {
            let query = try GraphQLQuery(
                text, connection: connection, cursorVariable: try name(parsed, "--cursor-variable", default: "after"))
            return try GraphQLPagination(query: query, variables: variables)
        } catch {
            throw UsageError("--graphql \(file.prefix(80)): \(error)")
        }
    }

    /// `--method POST --body JSON --body-cursor PATH [--has-more-path PATH] [--retry-post]`.
    private static func bodyCursor(_ parsed: ParsedArguments) throws(UsageError) -> BodyCursorPagination {
        let method = try parsed.choice("--method", default: "GET", from: ["GET", "POST"])
        guard var body = parsed.value("--body"), let cursorPath = try PageOptions.path(parsed, "--body-cursor")
        else { throw UsageError("--paginate body needs --method POST, --body JSON and --body-cursor PATH") }
        guard method == "POST" else { throw UsageError("--body needs --method POST") }
        if body.hasPrefix("@") { body = try contents(String(body.dropFirst()), of: "--body") }
        do {
            return try BodyCursorPagination(
                body: body, cursorPath: cursorPath, hasMorePath: try PageOptions.path(parsed, "--has-more-path"),
                resendsBody: parsed.has("--retry-post"))
        } catch {
            throw UsageError("--body: \(error)")
        }
    }

    /// A file's text for `option`, at most ``FetchLimits/maxQueryFileBytes``.
    private static func contents(_ path: String, of option: String) throws(UsageError) -> String {
        let bytes: [UInt8]?
        do {
            bytes = try readFile(path, limit: FetchLimits.maxQueryFileBytes)
        } catch {
            throw UsageError("Cannot read \(option) '\(path.prefix(80))': \(error)")
        }
        guard let bytes else { throw UsageError("Cannot read \(option) '\(path.prefix(80))': no such file") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What to do with a note whose id the run has seen.
    static func duplicates(_ parsed: ParsedArguments) throws(UsageError) -> DuplicatePolicy {
        DuplicatePolicy(
            rawValue: try parsed.choice(
                "--on-duplicate", default: DuplicatePolicy.fail.rawValue, from: DuplicatePolicy.allCases.map(\.rawValue)
            ))!
    }

    /// A parameter or header name: 1 to 256 bytes of visible ASCII, no `=`, `&`, `#` or `:`.
    private static func name(_ parsed: ParsedArguments, _ option: String, default defaultValue: String)
        throws(UsageError) -> String
    {
        guard let value = parsed.value(option) else { return defaultValue }
        let valid =
            !value.isEmpty && value.utf8.count <= 256
            && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"=&#:".utf8.contains($0) }
        guard valid else { throw UsageError("Invalid \(option) '\(value.prefix(40))': expected a name") }
        return value
    }
}
