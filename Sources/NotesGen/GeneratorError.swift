import NotesSystem

/// Why a run stopped: the output could not be created, or writing failed part way.
///
/// The description names the path and the system's reason (`strerror`), never file contents.
public struct GeneratorError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The `--out` path could not be created or opened (`mkdir` or `open` failed before anything
        /// was written). The command treats it as a usage error.
        case cannotCreate
        /// A write, close, read-back or rename failed after the output was created (`EIO`, `ENOSPC`…).
        case cannotWrite
    }

    public var code: Code
    /// The path that failed, or `-` for standard output.
    public var path: String
    /// The system's text for the `errno`, e.g. `Not a directory`.
    public var reason: String

    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    init(_ code: Code, path: String, _ error: SystemError) {
        self.init(code, path: path, reason: error.message)
    }

    public var description: String {
        switch code {
        case .cannotCreate: return "Cannot write to '\(path)': \(reason)"
        case .cannotWrite: return "Cannot write '\(path)': \(reason)"
        }
    }
}
