public import NotesPage
import NotesSystem

/// A sync's source file: the API's base URL, how to authenticate, defaults for every resource, and the
/// resources, each walked into a table (or a file) of its own. YAML or JSON:
///
/// ```yaml
/// base-url: https://api.example.com/
/// auth:
///   type: bearer
///   token: ${EXAMPLE_TOKEN}
/// defaults:
///   parallel: 4
/// resources:
///   - name: projects
///     path: projects/
///   - name: notes
///     path: notes/
///     since-path: updated_at
/// ```
///
/// Reading checks the source's own shape: the keys it knows, a name and a path for each resource, names
/// fit for tables and each once, secrets that come from the environment or a file. What a resource's other
/// keys mean is the command's to check (they are `fetch`'s options), before any request.
public struct SourceFile: Sendable {
    /// The file's name, for errors.
    public var file: String
    /// What each resource's path is relative to; `nil` when every path is a whole URL.
    public var baseURL: String?
    public var auth: SourceAuth?
    /// Options every resource has unless it sets them itself.
    public var defaults: [SourceEntry]
    public var resources: [SourceResource]

    /// The largest source file read.
    public static let maxBytes = 1 << 20
    /// The keys at the top of a source.
    public static let keys = ["base-url", "auth", "defaults", "resources"]
    /// The keys of a resource that are not options.
    public static let resourceKeys = ["name", "path", "parent", "include-from-parent"]

    /// Reads the source file at `path`.
    public init(path: String) throws(SourceError) {
        let bytes: [UInt8]?
        do {
            bytes = try readFile(path, limit: Self.maxBytes + 1)
        } catch {
            throw SourceError("cannot be read: \(error)", file: path)
        }
        guard let bytes else { throw SourceError("no such file", file: path) }
        guard bytes.count <= Self.maxBytes else {
            throw SourceError("longer than \(Self.maxBytes) bytes", file: path)
        }
        try self.init(bytes: bytes, file: path)
    }

    /// Reads a source from `bytes`, named `file` in errors.
    public init(bytes: [UInt8], file: String) throws(SourceError) {
        self.file = file
        let root = try YAMLReader.read(bytes, file: file)
        guard case .mapping(let entries) = root.value else {
            throw SourceError(
                "the source is \(root.kind), not a mapping of \(Self.keys.joined(separator: ", "))", file: file,
                at: root.mark)
        }
        defaults = []
        resources = []
        var sawResources = false
        for entry in entries {
            switch entry.key {
            case "base-url":
                baseURL = try Self.text(entry, file: file)
            case "auth":
                auth = try SourceAuth(entry.value, file: file)
            case "defaults":
                guard case .mapping(let options) = entry.value.value else {
                    throw SourceError(
                        "'defaults' is \(entry.value.kind), not a mapping of options", file: file, at: entry.value.mark)
                }
                for option in options where Self.resourceKeys.contains(option.key) {
                    throw SourceError(
                        "'\(option.key)' is each resource's own, not a default", file: file, at: option.keyMark)
                }
                defaults = options
            case "resources":
                sawResources = true
                resources = try Self.resources(entry.value, file: file)
            default:
                throw SourceError(
                    Self.unknown(entry.key, known: Self.keys, in: "the source"), file: file, at: entry.keyMark)
            }
        }
        guard sawResources, !resources.isEmpty else {
            throw SourceError(
                "no resources: 'resources' lists them, each with a name and a path", file: file, at: root.mark)
        }
    }

    private static func resources(_ node: SourceNode, file: String) throws(SourceError) -> [SourceResource] {
        guard case .sequence(let items) = node.value else {
            throw SourceError("'resources' is \(node.kind), not a list", file: file, at: node.mark)
        }
        var lines: [String: Int] = [:]
        var resources: [SourceResource] = []
        for item in items {
            let resource = try SourceResource(item, file: file)
            // Tables are named without regard to case, and so are files on some systems.
            if let first = lines[resource.name.lowercased()] {
                throw SourceError(
                    "a second resource named '\(resource.name)' (the first at line \(first))", file: file, at: item.mark
                )
            }
            lines[resource.name.lowercased()] = item.mark.line
            if let parent = resource.parent, !resources.contains(where: { $0.name == parent }) {
                let known = resources.map(\.name)
                let hint = closest(to: parent, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw SourceError(
                    "resource '\(resource.name)': its parent '\(SourceError.clip(parent))' is not a resource listed before it\(hint)",
                    file: file, at: resource.parentMark ?? item.mark)
            }
            resources.append(resource)
        }
        return resources
    }

    /// The value of `entry`, which must be a scalar.
    static func text(_ entry: SourceEntry, file: String) throws(SourceError) -> String {
        guard case .scalar(let text, _) = entry.value.value else {
            throw SourceError("'\(entry.key)' is \(entry.value.kind), not a value", file: file, at: entry.value.mark)
        }
        return text
    }

    /// "unknown key 'x' in the source (did you mean 'y'?)", or listing the keys when none is close.
    public static func unknown(_ key: String, known: [String], in place: String) -> String {
        if let close = closest(to: key, in: known) {
            return "unknown key '\(SourceError.clip(key))' in \(place) (did you mean '\(close)'?)"
        }
        return "unknown key '\(SourceError.clip(key))' in \(place); known: \(known.joined(separator: ", "))"
    }

    /// The one of `candidates` at most two edits from `word`, the nearest first.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let word = Array(word.utf8.prefix(64))
        var best: (String, Int)?
        for candidate in candidates {
            let other = Array(candidate.utf8)
            var previous = Array(0...other.count)
            for (i, a) in word.enumerated() {
                var row = [i + 1] + Array(repeating: 0, count: other.count)
                for (j, b) in other.enumerated() {
                    row[j + 1] = min(previous[j + 1] + 1, row[j] + 1, previous[j] + (a == b ? 0 : 1))
                }
                previous = row
            }
            let distance = previous[other.count]
            if distance <= 2, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }
}

/// One resource: its name (its table, or its file), where it is, and its options.
public struct SourceResource: Sendable {
    public var name: String
    /// Relative to the source's base URL, or a whole URL.
    public var path: String
    /// Every other key: `fetch`'s options, without `--`.
    public var options: [SourceEntry]
    public var mark: SourceMark
    /// The resource whose records this one is walked for, once each (`parent:`); its placeholders
    /// (``ParentTemplate``) read the parent's record.
    public var parent: String?
    public var parentMark: SourceMark?
    /// The parent's fields kept in each of this resource's rows, as columns `parent_FIELD`.
    public var includeFromParent: [FieldPath] = []

    init(_ node: SourceNode, file: String) throws(SourceError) {
        guard case .mapping(let entries) = node.value else {
            throw SourceError(
                "a resource is \(node.kind), not a mapping with a name and a path", file: file, at: node.mark)
        }
        mark = node.mark
        var name: String?
        var path: String?
        options = []
        for entry in entries {
            switch entry.key {
            case "name": name = try SourceFile.text(entry, file: file)
            case "path": path = try SourceFile.text(entry, file: file)
            case "parent":
                parent = try SourceFile.text(entry, file: file)
                parentMark = entry.value.mark
            case "include-from-parent":
                includeFromParent = try Self.fields(entry, file: file)
            default: options.append(entry)
            }
        }
        guard let name else { throw SourceError("a resource with no 'name'", file: file, at: node.mark) }
        guard Self.isValidName(name) else {
            throw SourceError(
                "'\(SourceError.clip(name))' cannot name a resource: letters, digits and _, not starting with a digit, at most 63, not starting with sqlite_ or notes_page_",
                file: file, at: node.mark)
        }
        guard let path, !path.isEmpty else {
            throw SourceError("resource '\(name)' has no 'path'", file: file, at: node.mark)
        }
        self.name = name
        self.path = path
        if parent == nil {
            if !includeFromParent.isEmpty {
                throw SourceError(
                    "resource '\(name)' has 'include-from-parent' but no 'parent'", file: file, at: node.mark)
            }
            if path.contains("{parent.") {
                throw SourceError(
                    "resource '\(name)' has no 'parent', and 'path' has a {parent.…} placeholder", file: file,
                    at: node.mark)
            }
            for entry in options where Self.mentionsParent(entry.value) {
                throw SourceError(
                    "resource '\(name)' has no 'parent', and '\(entry.key)' has a {parent.…} placeholder",
                    file: file, at: entry.value.mark)
            }
        }
    }

    /// Whether a value (or a list's) has a `{parent.` placeholder.
    private static func mentionsParent(_ node: SourceNode) -> Bool {
        switch node.value {
        case .scalar(let text, _): return text.contains("{parent.")
        case .sequence(let items): return items.contains { mentionsParent($0) }
        case .mapping(let entries): return entries.contains { mentionsParent($0.value) }
        }
    }

    /// `include-from-parent`'s fields: a list of paths, each once, whose columns are each once and fit for a
    /// table (`parent_` and the keys joined by `_`).
    private static func fields(_ entry: SourceEntry, file: String) throws(SourceError) -> [FieldPath] {
        guard case .sequence(let items) = entry.value.value, !items.isEmpty else {
            throw SourceError(
                "'include-from-parent' lists the parent's fields, as [id] does", file: file, at: entry.value.mark)
        }
        var paths: [FieldPath] = []
        var columns: Set<String> = []
        for item in items {
            guard case .scalar(let text, _) = item.value else {
                throw SourceError(
                    "'include-from-parent' lists fields, and this is \(item.kind)", file: file, at: item.mark)
            }
            let path: FieldPath
            do {
                path = try FieldPath.parse(text)
            } catch {
                throw SourceError("'include-from-parent': \(error)", file: file, at: item.mark)
            }
            let column = columnName(for: path)
            guard isValidName(column), columns.insert(column.lowercased()).inserted else {
                throw SourceError(
                    "'include-from-parent': field '\(SourceError.clip(text))' would be column '\(SourceError.clip(column))', which is taken or cannot name a column",
                    file: file, at: item.mark)
            }
            paths.append(path)
        }
        return paths
    }

    /// The column of an included parent field: `parent_` and its keys joined by `_`.
    public static func columnName(for path: FieldPath) -> String {
        "parent_" + path.components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "_")
    }

    /// Whether `name` can name a table of SQLite or PostgreSQL and a file: ASCII letters, digits and `_`,
    /// not starting with a digit, at most 63 bytes, none of the names the databases and notes-page keep.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        let lower = name.lowercased()
        if lower.hasPrefix("sqlite_") || lower.hasPrefix("notes_page_") { return false }
        return bytes.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}

/// Where a secret comes from: never the source file itself.
public enum SourceSecret: Sendable, Equatable {
    /// `${NAME}`: the environment variable.
    case environment(String)
    /// `@path`: the file's contents (trimmed), read once before the first request; a relative path is from
    /// the directory the command runs in.
    case file(String)

    /// The secret `text` names, or `nil` for a secret written out.
    public init?(_ text: String) {
        if text.hasPrefix("${"), text.hasSuffix("}"), text.count > 3 {
            let name = String(text.dropFirst(2).dropLast())
            guard
                name.utf8.allSatisfy({
                    $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                })
            else { return nil }
            self = .environment(name)
        } else if text.hasPrefix("@"), text.count > 1 {
            self = .file(String(text.dropFirst()))
        } else {
            return nil
        }
    }
}

extension SourceSecret {
    /// Why `${…}` in a value cannot be replaced.
    public struct ExpansionError: Error, Sendable {
        public var message: String
    }

    /// `text` without its `${NAME}` references: what is written in the source itself (all of it when a `${`
    /// is left open).
    public static func literal(_ text: String) -> String {
        (try? replacingReferences(in: text) { _ throws(ExpansionError) in "" }) ?? text
    }

    /// `text` with each `${NAME}` replaced by the environment variable's value.
    /// - Throws: ``ExpansionError`` naming a variable that is not set (or empty), or a `${` left open.
    public static func expand(_ text: String, from environment: [String: String]) throws(ExpansionError) -> String {
        try replacingReferences(in: text) { name throws(ExpansionError) in
            guard let value = environment[name], !value.isEmpty else {
                throw ExpansionError(message: "the variable \(SourceError.clip(name)) is not set")
            }
            return value
        }
    }

    /// `text` with each `${NAME}` replaced by `value(NAME)`; a `$` not followed by `{` is kept.
    private static func replacingReferences(
        in text: String, _ value: (String) throws(ExpansionError) -> String
    ) throws(ExpansionError) -> String {
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let after = rest.index(after: dollar)
            guard after < rest.endIndex, rest[after] == "{" else {
                result += rest[...dollar]
                rest = rest[after...]
                continue
            }
            result += rest[..<dollar]
            let start = rest.index(after: after)
            guard let close = rest[start...].firstIndex(of: "}") else {
                throw ExpansionError(message: "'${' with no '}'")
            }
            result += try value(String(rest[start..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}

/// How the source's requests authenticate.
public enum SourceAuth: Sendable, Equatable {
    /// `type: bearer`, `token: ${NAME}` or `token: @file`: `Authorization: Bearer …`.
    case bearer(SourceSecret)
    /// `type: basic`, `username` (written, or `${NAME}`) and `password` (a secret): `Authorization: Basic …`.
    case basic(username: String, password: SourceSecret)
    /// `type: api-key`, `header` (its name, default `X-Api-Key`) and `key` (a secret): the key in that header.
    case apiKey(header: String, key: SourceSecret)
    /// `type: oauth2-client-credentials` or `oauth2-refresh-token`: access tokens from a token endpoint.
    case oauth2(SourceOAuth2)

    /// Each type and the keys it takes besides `type`.
    static let types: [(name: String, keys: [String])] = [
        ("bearer", ["token"]), ("basic", ["username", "password"]), ("api-key", ["header", "key"]),
        ("oauth2-client-credentials", ["token-url", "client-id", "client-secret", "scopes", "client-auth"]),
        (
            "oauth2-refresh-token",
            ["token-url", "client-id", "client-secret", "refresh-token", "scopes", "client-auth"]
        ),
    ]

    init(_ node: SourceNode, file: String) throws(SourceError) {
        guard case .mapping(let entries) = node.value else {
            throw SourceError("'auth' is \(node.kind), not a mapping with a type", file: file, at: node.mark)
        }
        let names = Self.types.map(\.name).joined(separator: ", ")
        guard let typeEntry = entries.first(where: { $0.key == "type" }) else {
            throw SourceError("'auth' has no 'type' (\(names))", file: file, at: node.mark)
        }
        let type = try SourceFile.text(typeEntry, file: file)
        guard let keys = Self.types.first(where: { $0.name == type })?.keys else {
            throw SourceError(
                "'auth' type '\(SourceError.clip(type))' is not one of \(names)", file: file, at: typeEntry.value.mark)
        }
        var values: [String: (text: String, mark: SourceMark)] = [:]
        for entry in entries where entry.key != "type" {
            guard keys.contains(entry.key) else {
                throw SourceError(
                    SourceFile.unknown(entry.key, known: ["type"] + keys, in: "'auth' of type \(type)"), file: file,
                    at: entry.keyMark)
            }
            values[entry.key] = (try SourceFile.text(entry, file: file), entry.value.mark)
        }
        /// The secret at `key`, which must be given and not written out.
        func secret(_ key: String) throws(SourceError) -> SourceSecret {
            guard let value = values[key] else {
                throw SourceError("'auth' of type \(type) has no '\(key)'", file: file, at: node.mark)
            }
            guard let secret = SourceSecret(value.text) else {
                throw SourceError(
                    "the \(key) is written in the source: give it as ${NAME} (an environment variable) or @path (a file)",
                    file: file, at: value.mark)
            }
            return secret
        }
        switch type {
        case "oauth2-client-credentials", "oauth2-refresh-token":
            func required(_ key: String) throws(SourceError) -> (text: String, mark: SourceMark) {
                guard let value = values[key], !value.text.isEmpty else {
                    throw SourceError("'auth' of type \(type) has no '\(key)'", file: file, at: node.mark)
                }
                return value
            }
            let tokenURL = try required("token-url")
            guard tokenURL.text.hasPrefix("https://") || tokenURL.text.hasPrefix("http://") else {
                throw SourceError(
                    "the token-url '\(SourceError.clip(tokenURL.text))' is not an http:// or https:// URL", file: file,
                    at: tokenURL.mark)
            }
            let clientAuth = values["client-auth"]?.text ?? "basic"
            guard clientAuth == "basic" || clientAuth == "post" else {
                throw SourceError(
                    "'client-auth' is basic (client_secret_basic) or post (client_secret_post), not '\(SourceError.clip(clientAuth))'",
                    file: file, at: values["client-auth"]?.mark ?? node.mark)
            }
            var refreshToken: String?
            if type == "oauth2-refresh-token" {
                let written = try required("refresh-token")
                guard case .file(let path)? = SourceSecret(written.text) else {
                    throw SourceError(
                        "the refresh-token is given as @path, a file of its own: a rotated one is written there",
                        file: file, at: written.mark)
                }
                refreshToken = path
            }
            self = .oauth2(
                SourceOAuth2(
                    tokenURL: tokenURL.text, clientID: try required("client-id").text,
                    clientSecret: values["client-secret"] == nil && type == "oauth2-refresh-token"
                        ? nil : try secret("client-secret"),
                    scopes: (values["scopes"]?.text ?? "").split(separator: " ").map(String.init),
                    clientAuth: clientAuth, refreshTokenFile: refreshToken))
        case "basic":
            guard let username = values["username"] else {
                throw SourceError("'auth' of type basic has no 'username'", file: file, at: node.mark)
            }
            self = .basic(username: username.text, password: try secret("password"))
        case "api-key":
            let header = values["header"]?.text ?? "X-Api-Key"
            guard !header.isEmpty, !header.contains(":"), header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw SourceError(
                    "'\(SourceError.clip(header))' cannot name a header", file: file,
                    at: values["header"]?.mark ?? node.mark)
            }
            self = .apiKey(header: header, key: try secret("key"))
        default:
            self = .bearer(try secret("token"))
        }
    }
}

/// `auth` of an OAuth 2.0 type: the token endpoint, the client, and for the refresh token grant the file
/// of the refresh token (rotated ones are written there).
public struct SourceOAuth2: Sendable, Equatable {
    public var tokenURL: String
    /// Written, or `${NAME}`.
    public var clientID: String
    /// A public client of the refresh token grant may have none.
    public var clientSecret: SourceSecret?
    public var scopes: [String]
    /// `basic` (`client_secret_basic`, the default) or `post` (`client_secret_post`).
    public var clientAuth: String
    /// The refresh token grant's file; `nil` for client credentials.
    public var refreshTokenFile: String?
}
