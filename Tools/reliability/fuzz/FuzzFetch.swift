// libFuzzer target for the fetch layer's handling of what a server sends: `make fuzz-fetch` builds it with
// Sources/NotesJSON, Sources/NotesPage and Sources/NotesFetch (Tools/reliability/fuzz/fuzz-fetch.sh), outside
// `swift build`, since libFuzzer brings its own `main`.
//
// The driver is Tests/NotesFetchTests/FetchDriver.swift and its extensions (FetchDriver+*.swift), compiled
// into this target as they are (the input's format and every check are described in FetchDriver.swift):
// Tests/NotesFetchTests/FetchRegressionTests.swift replays the saved inputs through the same code. A finding stops the run with `fatalError`, and libFuzzer saves
// the input as `crash-<sha1>`; a trap in NotesFetch (an overflow, a subscript out of range) does the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFetch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    if let finding = FetchDriver.run(input).first {
        fatalError("fuzz-fetch finding: \(finding)")
    }
    return 0
}
