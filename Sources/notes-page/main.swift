import NotesCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(await NotesPageCommand.main(Array(CommandLine.arguments.dropFirst())))
