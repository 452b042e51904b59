#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The file calls notes-gen makes, each retrying on `EINTR`.

/// Why a shared library could not be opened: the dynamic linker's message.
package struct LibraryError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// Thin wrappers over the POSIX calls the generator needs; each retries on `EINTR`.
package enum System {
    package static let standardOutput: Int32 = 1

    /// Opens `path` for writing, created with mode 0644 and truncated (`open(2)`).
    /// - Parameter readable: Also open for reading; defaults to `false`.
    package static func create(_ path: String, readable: Bool = false) throws(SystemError) -> Int32 {
        let flags = (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC
        while true {
            let descriptor = open(path, flags, 0o644)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw SystemError(operation: "cannot create '\(path)'") }
        }
    }

    /// Makes the directory `path` (`mkdir(2)`, mode 0755); a directory already there is fine.
    package static func makeDirectory(_ path: String) throws(SystemError) {
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        guard code == EEXIST else { throw SystemError(operation: "cannot make the directory '\(path)'", code: code) }
        // Something is there: make sure it is a directory.
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(operation: "cannot make the directory '\(path)'") }
        _ = close(descriptor)
    }

    /// Makes the directory `path` (`mkdir(2)`, mode 0755), which must not exist yet.
    /// - Returns: `false` when something (a directory, a file, a link) is already there.
    package static func makeNewDirectory(_ path: String) throws(SystemError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemError(operation: "cannot make the directory '\(path)'")
    }

    /// Whether file descriptor `descriptor` is a terminal (`isatty(3)`).
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The shared library to open: the file the environment variable `variable` names, or `standard` when
    /// it is unset or empty.
    package static func libraryPath(_ standard: String, overriddenBy variable: String) -> String {
        guard let named = getenv(variable), named.pointee != 0 else { return standard }
        return String(cString: named)
    }

    /// Opens the shared library `path` for the rest of the process (`dlopen(3)`, its symbols kept to itself
    /// and each function bound at its first call, as for a library linked in: binding all of libcurl's at
    /// once cost 3 M instructions more a run); a file name without a slash is looked up as the dynamic
    /// linker does.
    /// - Returns: Its handle, for `dlsym`, or the dynamic linker's reason it cannot be (which names the file).
    package static func openLibrary(_ path: String) -> Result<UnsafeMutableRawPointer, LibraryError> {
        guard let library = dlopen(path, RTLD_LAZY | RTLD_LOCAL) else {
            return .failure(LibraryError(message: dlerror().map { String(cString: $0) } ?? "\(path): not loaded"))
        }
        return .success(library)
    }

    /// Writes all of `bytes` (`write(2)`), continuing after short writes.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "cannot write")
            }
            done += written
        }
    }

    /// Reads at most `buffer.count` bytes (`read(2)`); 0 at the end of the file.
    package static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError)
        -> Int
    {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw SystemError(operation: "cannot read") }
        }
    }

    /// Moves the read/write position back to the start (`lseek(2)`).
    package static func rewind(_ descriptor: Int32) throws(SystemError) {
        if lseek(descriptor, 0, SEEK_SET) < 0 { throw SystemError(operation: "cannot rewind") }
    }

    /// Closes `descriptor` (`close(2)`); an error here can mean lost data, so it is reported.
    package static func closeFile(_ descriptor: Int32) throws(SystemError) {
        if close(descriptor) != 0 && errno != EINTR { throw SystemError(operation: "cannot close") }
    }

    /// Renames `source` to `destination`, replacing it atomically (`rename(2)`).
    package static func renameFile(_ source: String, to destination: String) throws(SystemError) {
        if rename(source, destination) != 0 { throw SystemError(operation: "cannot rename '\(source)'") }
    }

    /// Removes the file `path` (`unlink(2)`).
    package static func removeFile(_ path: String) throws(SystemError) {
        if unlink(path) != 0 { throw SystemError(operation: "cannot remove '\(path)'") }
    }
}

extension System {
    /// Writes `text` to `descriptor`, ignoring errors: for help and error messages.
    package static func writeText(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { try? writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}
