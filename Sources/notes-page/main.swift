import NotesCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(NotesPageCommand.main(Array(CommandLine.arguments.dropFirst())))
