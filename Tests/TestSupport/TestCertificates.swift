public import Foundation

/// A throwaway certificate authority, another one, and a certificate for `localhost` and 127.0.0.1 signed by
/// the first, made with openssl.
public struct TestCertificates {
    public let directory: URL
    public var ca: String { directory.appendingPathComponent("ca.pem").path }
    public var otherCA: String { directory.appendingPathComponent("other.pem").path }
    public var certificate: String { directory.appendingPathComponent("server.pem").path }
    public var key: String { directory.appendingPathComponent("server.key").path }

    public static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("notes-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        let authority = [
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ]
        for name in ["ca", "other"] {
            try openssl(
                ["req", "-x509"] + key + ["-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2"]
                    + ["-subj", "/CN=\(name) test authority"] + authority)
        }
        try openssl(["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try Files.write(
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
            to: directory.appendingPathComponent("server.ext").path)
        try openssl([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7", "-days", "2",
            "-out", "server.pem", "-extfile", "server.ext",
        ])
    }

    private func openssl(_ arguments: [String]) throws {
        let run = try Finished(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, directory: directory)
        guard run.status == 0 else { throw CocoaError(.executableLoad) }
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
