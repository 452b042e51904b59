import NotesGen

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(NotesGenCommand.main(Array(CommandLine.arguments.dropFirst())))
