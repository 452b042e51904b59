import NotesCLI
import NotesURLSession

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `notes-page` with URLSession linked in, which `notes-page fetch --transport urlsession` runs.
exit(NotesPageCommand.main(Array(CommandLine.arguments.dropFirst()), urlSession: { URLSessionTransport() }))
