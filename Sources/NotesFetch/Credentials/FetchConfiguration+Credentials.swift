#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension FetchConfiguration {
    /// Whether `header` carries credentials, so that it goes to the endpoint's origin only, and never over
    /// plain http to another machine: `Authorization`, `Proxy-Authorization`, `Cookie`, or a name with
    /// `key`, `token` or `secret` in it (`X-Api-Key`, `Private-Token`, `X-Client-Secret`).
    public static func isCredential(_ header: HTTPHeader) -> Bool {
        isCredential(name: header.name)
    }

    /// ``isCredential(_:)`` for a header named `name`.
    public static func isCredential(name: String) -> Bool {
        let lower = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(lower)
            || ["key", "token", "secret"].contains { lower.contains($0) }
    }

    /// Why credentials must not be sent to `endpoint`, or `nil` when they may: a token or a credential
    /// header over plain `http://` to a host that is not this machine.
    public func credentialProblem(endpoint: URL) -> String? {
        guard token != nil || queryCredential != nil || awsSigV4 != nil || headers.contains(where: Self.isCredential),
            endpoint.scheme?.lowercased() == "http", Origin(endpoint.absoluteString)?.isLoopback != true
        else { return nil }
        return "Refusing to send credentials over plain http to '\(endpoint.host ?? "")': use https"
    }
}
