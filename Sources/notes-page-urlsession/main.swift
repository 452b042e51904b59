import NotesCLI
import NotesURLSession

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Read only by LeakSanitizer (`make asan`): FoundationNetworking never cleans up the libcurl handles
/// behind its URLSession, which leak a few strings at exit in this program alone (notes-page's own
/// libcurl handle is cleaned up, and no suppression covers it).
@_cdecl("__lsan_default_suppressions")
func leakSanitizerSuppressions() -> UnsafePointer<CChar> {
    UnsafePointer(strdup("leak:libcurl.so.4\n")!)
}

// `notes-page` with URLSession linked in, which `notes-page fetch --transport urlsession` runs.
exit(NotesPageCommand.main(Array(CommandLine.arguments.dropFirst()), urlSession: { URLSessionTransport() }))
