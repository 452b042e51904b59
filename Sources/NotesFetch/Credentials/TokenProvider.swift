#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Supplies the bearer token, asked before every request to the endpoint's origin: a token renewed by a
/// sign-in is sent from the next request on, and neither the fetcher nor the notes screen keeps it.
public protocol TokenProvider: Sendable {
    /// The token to send now, or `nil` to send none.
    func currentToken() -> Secret?

    /// The API refused `rejected` (a 401): whether there is now another token to send (an OAuth 2.0
    /// token asked for again). A walk asks once per page. `false` by default.
    func renew(rejected: Secret?) -> Bool
}

extension TokenProvider {
    public func renew(rejected: Secret?) -> Bool { false }
}

/// A token fixed for the walk (the command line's `NOTES_TOKEN` or `--token-file`, read once).
extension Secret: TokenProvider {
    public func currentToken() -> Secret? { self }
}

extension Secret {
    /// The first line of `bytes` without the spaces, tabs and carriage return around it; `nil` when that is
    /// empty.
    fileprivate init?(firstLineOf bytes: [UInt8]) {
        let line = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
        let blank: Set<UInt8> = [0x20, 0x09, 0x0D]
        let token = line.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed()
        guard !token.isEmpty else { return nil }
        self.init(String(decoding: token, as: UTF8.self))
    }
}

/// The token in an environment variable, read at every request.
public struct EnvironmentToken: TokenProvider {
    public var variable: String
    /// The variable's value now (`getenv`; tests pass their own, since changing the process's
    /// environment races every child started meanwhile).
    let lookup: @Sendable (String) -> String?

    public init(variable: String = "NOTES_TOKEN") {
        self.init(variable: variable) { name in getenv(name).map { String(cString: $0) } }
    }

    package init(variable: String, lookup: @escaping @Sendable (String) -> String?) {
        self.variable = variable
        self.lookup = lookup
    }

    public func currentToken() -> Secret? {
        guard let value = lookup(variable) else { return nil }
        return Secret(firstLineOf: Array(value.utf8))
    }
}

/// The token in a file (its first line, at most ``FetchLimits/maxTokenFileBytes``), read at every request,
/// so that a token rotated on disk is used from the next request on. No token while the file cannot be
/// read.
public struct FileToken: TokenProvider {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    public func currentToken() -> Secret? {
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: FetchLimits.maxTokenFileBytes + 1)
        let count = fread(&bytes, 1, bytes.count, file)
        guard count <= FetchLimits.maxTokenFileBytes else { return nil }
        return Secret(firstLineOf: Array(bytes[..<count]))
    }
}

#if canImport(Security)
    import Security

    /// A generic password in the Keychain (service and account), read at every request. Not verified
    /// here: nothing on Linux can build it.
    public struct KeychainToken: TokenProvider {
        public var service: String
        public var account: String

        public init(service: String, account: String) {
            self.service = service
            self.account = account
        }

        public func currentToken() -> Secret? {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
            ]
            var item: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let data = item as? Data,
                let token = String(data: data, encoding: .utf8), !token.isEmpty
            else { return nil }
            return Secret(token)
        }
    }
#endif
