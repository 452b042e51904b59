#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension FetchConfiguration {
    /// Whether `header` carries credentials, so that it goes to the endpoint's origin only.
    static func isCredential(_ header: HTTPHeader) -> Bool {
        ["authorization", "proxy-authorization", "cookie"].contains(header.name.lowercased())
    }

    /// Why credentials must not be sent to `endpoint`, or `nil` when they may: a token or a credential
    /// header over plain `http://` to a host that is not this machine.
    public func credentialProblem(endpoint: URL) -> String? {
        guard token != nil || headers.contains(where: Self.isCredential),
            endpoint.scheme?.lowercased() == "http", Origin(endpoint.absoluteString)?.isLoopback != true
        else { return nil }
        return "Refusing to send credentials over plain http to '\(endpoint.host ?? "")': use https"
    }
}
