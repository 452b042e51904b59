import NotesSystem

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
    /// `type: api-key` with `query` (a parameter's name) instead of `header`: the key in that query
    /// parameter of each request to the source's origin, never in a URL shown or kept.
    case apiKeyQuery(parameter: String, key: SourceSecret)
    /// `type: oauth2-client-credentials` or `oauth2-refresh-token`: access tokens from a token endpoint.
    case oauth2(SourceOAuth2)
    /// `type: aws-sigv4`, `region`, `service`, `access-key-id` and `secret-access-key` (secrets): each request
    /// signed with AWS Signature Version 4.
    case awsSigV4(region: String, service: String, accessKeyID: SourceSecret, secretAccessKey: SourceSecret)

    /// Each type and the keys it takes besides `type`.
    static let types: [(name: String, keys: [String])] = [
        ("bearer", ["token"]), ("basic", ["username", "password"]), ("api-key", ["header", "query", "key"]),
        ("oauth2-client-credentials", ["token-url", "client-id", "client-secret", "scopes", "client-auth"]),
        (
            "oauth2-refresh-token",
            ["token-url", "client-id", "client-secret", "refresh-token", "scopes", "client-auth"]
        ),
        ("aws-sigv4", ["region", "service", "access-key-id", "secret-access-key"]),
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
        case "aws-sigv4":
            var names: [String] = []
            for key in ["region", "service"] {
                guard let value = values[key], !value.text.isEmpty else {
                    throw SourceError("'auth' of type aws-sigv4 has no '\(key)'", file: file, at: node.mark)
                }
                guard
                    value.text.utf8.allSatisfy({
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                    }), value.text.utf8.count <= 64
                else {
                    throw SourceError(
                        "'\(SourceError.clip(value.text))' cannot be a \(key): lower-case letters, digits and -",
                        file: file,
                        at: value.mark)
                }
                names.append(value.text)
            }
            self = .awsSigV4(
                region: names[0], service: names[1], accessKeyID: try secret("access-key-id"),
                secretAccessKey: try secret("secret-access-key"))
        case "basic":
            guard let username = values["username"] else {
                throw SourceError("'auth' of type basic has no 'username'", file: file, at: node.mark)
            }
            self = .basic(username: username.text, password: try secret("password"))
        case "api-key" where values["query"] != nil:
            guard values["header"] == nil else {
                throw SourceError(
                    "'auth' of type api-key has a 'header' or a 'query', not both", file: file, at: node.mark)
            }
            let parameter = values["query"]!
            guard !parameter.text.isEmpty,
                parameter.text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"&=#?%+".utf8.contains($0) })
            else {
                throw SourceError(
                    "'\(SourceError.clip(parameter.text))' cannot name a query parameter", file: file,
                    at: parameter.mark)
            }
            self = .apiKeyQuery(parameter: parameter.text, key: try secret("key"))
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
