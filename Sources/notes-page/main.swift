import NotesCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// On Linux this program links no Foundation networking (7.6 MB resident in every run);
// `fetch --transport urlsession` runs notes-page-urlsession instead. Elsewhere URLSession is the transport.
#if os(Linux)
    exit(NotesPageCommand.main(Array(CommandLine.arguments.dropFirst())))
#else
    import NotesURLSession

    exit(NotesPageCommand.main(Array(CommandLine.arguments.dropFirst()), urlSession: { URLSessionTransport() }))
#endif
