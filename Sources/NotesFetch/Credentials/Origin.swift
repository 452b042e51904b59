#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Scheme, host and port: what must match for credentials to follow a redirect.
public struct Origin: Hashable, Sendable {
    public var scheme: String
    public var host: String
    public var port: Int

    public init?(_ url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased()
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether the host is this machine: `localhost`, `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".")
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
