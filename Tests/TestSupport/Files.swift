public import Foundation

/// Reading and writing the tests' files without handing them to children.
///
/// Foundation opens files without `O_CLOEXEC` (its atomic write, `Data(contentsOf:)`, `FileHandle`), and
/// its `Process.run()` closes only the descriptors open when it lists them: a file another test opened
/// meanwhile was still open in a child started at that moment (CI, stop 20: a `sleep` child held a test's
/// `state.json`). Every file the tests read or write goes through here, opened with `O_CLOEXEC`.
public enum Files {
    /// The whole file at `path`.
    public static func read(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            bytes += chunk[..<count]
        }
    }

    /// The whole file at `path` as UTF-8 text.
    public static func text(_ path: String) throws -> String { String(decoding: try read(path), as: UTF8.self) }

    /// The whole file at `url`.
    public static func data(_ url: URL) throws -> Data { Data(try read(url.path)) }

    /// Replaces the file at `path` with `bytes` (or, with `append`, adds them at its end).
    public static func write(_ bytes: some Collection<UInt8>, to path: String, append: Bool = false) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw failure(path) }
        defer { close(descriptor) }
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            rest = rest.dropFirst(count)
        }
    }

    /// Replaces the file at `path` with `text`.
    public static func write(_ text: String, to path: String, append: Bool = false) throws {
        try write(Array(text.utf8), to: path, append: append)
    }

    private static func failure(_ path: String) -> any Error {
        let code = POSIXErrorCode(rawValue: errno) ?? .EIO
        return NSError(
            domain: NSPOSIXErrorDomain, code: Int(code.rawValue),
            userInfo: [NSLocalizedDescriptionKey: "\(path): \(String(cString: strerror(code.rawValue)))"])
    }
}
