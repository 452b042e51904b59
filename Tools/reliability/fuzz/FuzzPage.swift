// libFuzzer target for the page decoder: `make fuzz` builds it with `-sanitize=fuzzer,address` together
// with Sources/NotesJSON and Sources/NotesPage (Tools/reliability/fuzz/fuzz.sh), outside `swift build`, since
// libFuzzer brings its own `main`.
//
// Each input is one page body under small limits. It is decoded several ways, and every way must come
// to the same outcome: the same notes (their exact JSON), the same next cursor, the same error (code,
// offset, message, note index). A difference, a broken invariant or a crash is a finding: the target
// calls `fatalError`, and libFuzzer saves the input as `crash-<sha1>`.
//
// The chunkings are derived from the input itself (FNV-1a of its bytes seeds a SplitMix64), so each
// input replays exactly, and `Tests/NotesPageTests/RegressionTests.swift` derives the same ones:
//   1. one chunk;
//   2. two chunks, cut at `hash % (count + 1)`;
//   3. random chunks of 0 to `1 + (hash >> 16) % 64` bytes, empty chunks included;
//   4. one byte at a time, for inputs of at most 256 bytes;
//   and 1. and 3. again on two threads (`JSONPipelineOptions`: a threshold and a ring of 1 to 97-byte
//   blocks the input picks), which must agree with one thread.
// Every chunk is copied into a heap block of exactly its size and freed right after `feed`, so that
// AddressSanitizer catches a read past a chunk or a pointer kept into one.
//
// Besides agreement, it checks what the README and ARCHITECTURE promise: at most `maxPageNotes` notes;
// a note's JSON never longer than its text in the body; offsets inside the body; short messages; the id
// set holding exactly the committed page's ids, or none after a failure (rolled back, with a table that
// starts small so that it grows and rebuilds); decoding the page again into the same id set refuses its
// first note as a duplicate of page 1; and the notes, re-decoded as a bare array, come back byte for
// byte (the compact re-encoding is valid and stable). And a differential check against a small strict
// RFC 8259 validator written beside it (StrictJSON.swift): a page the decoder accepts must be valid JSON,
// and one it calls invalid JSON or truncated must not be (a limit or contract error stops it early, so
// those say nothing). This check found Fixtures/regressions/trailing-unterminated-string.json, fixed in
// 38d0571.

import NotesJSON
import NotesPage

/// The limits of the brief: small, so that every limit is reachable by a short input.
private let limits = JSONLimits(maxDocumentBytes: 4096, maxTokenBytes: 256, maxDepth: 16)
private let maxPageNotes = 50

/// What decoding a page came to, comparable across chunkings.
private struct Outcome: Equatable {
    /// Each note's JSON (or id, NUL and title when the JSON is not kept).
    var notes: [[UInt8]]
    var next: String?
    var error: PageError?
    /// `Summary.noteCount` and `Summary.byteCount` on success.
    var counts: [Int]
}

/// FNV-1a (64-bit) of the input: the seed of every choice the target makes.
private func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    return hash
}

/// SplitMix64, as in Tests/NotesPageTests/Support.swift.
private struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The configuration for an input: mostly the contract's paths, sometimes DRF's or nested ones, and now
/// and then without keeping each note's JSON.
private func configuration(hash: UInt64) -> PageConfiguration {
    var configuration = PageConfiguration(limits: limits, maxPageNotes: maxPageNotes)
    switch hash % 8 {
    case 6:
        configuration.itemsPath = FieldPath("results")
        configuration.nextPath = FieldPath("next")
    case 7:
        configuration.itemsPath = FieldPath("data.items")
        configuration.nextPath = FieldPath("meta.next_page")
    default:
        break
    }
    configuration.keepsJSON = (hash >> 8) % 8 != 0
    return configuration
}

/// The chunk boundaries of each chunking, as (start, end) pairs.
private func chunkings(count: Int, hash: UInt64) -> [(name: String, ranges: [Range<Int>])] {
    var result: [(String, [Range<Int>])] = [("one chunk", [0..<count])]
    let split = Int(hash % UInt64(count + 1))
    result.append(("two chunks at \(split)", [0..<split, split..<count]))
    var random = SplitMix64(state: hash)
    let maxChunk = 1 + Int((hash >> 16) % 64)
    var ranges: [Range<Int>] = []
    var start = 0
    while start < count {
        let end = min(count, start + Int(random.next() % UInt64(maxChunk + 1)))
        ranges.append(start..<end)
        start = end
    }
    result.append(("random chunks of up to \(maxChunk) bytes", ranges))
    if count <= 256 { result.append(("one byte at a time", (0..<count).map { $0..<$0 + 1 })) }
    return result
}

/// One worker for every input, as a walk keeps one for all its pages: its thread and ring carry over from
/// input to input, after failures and stops too.
private let sharedWorker = JSONPipelineWorker()

/// The threads a decode runs on: one (the default), or two with `pipeline`'s ring, the parse on `worker`'s
/// thread when one is given.
private struct Threads {
    var pipeline: JSONPipelineOptions = .singleThreaded
    var worker: JSONPipelineWorker?
}

/// Decodes `body` fed as `ranges`, each chunk in a heap block of its own exact size.
private func decode(
    _ body: UnsafeRawBufferPointer, _ ranges: [Range<Int>], configuration: PageConfiguration, ids: IDSet,
    threads: Threads = Threads(), announce: Int? = nil
) -> Outcome {
    var decoder = PageDecoder(
        configuration: configuration, ids: ids, pipeline: threads.pipeline, worker: threads.worker)
    if let announce { decoder.announce(byteCount: announce) }
    var notes: [Note] = []
    var outcome = Outcome(notes: [], next: nil, error: nil, counts: [])
    do {
        for range in ranges {
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: range.count, alignment: 1)
            defer { chunk.deallocate() }
            if range.count > 0 { chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[range])) }
            try decoder.feed(UnsafeRawBufferPointer(chunk), into: &notes)
        }
        let summary = try decoder.finish(into: &notes)
        outcome.next = summary.nextCursor
        outcome.counts = [summary.noteCount, summary.byteCount]
    } catch {
        outcome.error = error
    }
    outcome.notes = notes.map { note in
        note.json.map(Array.init) ?? Array(note.idBytes) + [0] + Array(note.title.utf8)
    }
    return outcome
}

private func describe(_ outcome: Outcome) -> String {
    let error = outcome.error.map {
        "\($0.code.name) at byte \($0.offset), note \($0.noteIndex.map(String.init) ?? "-"): \($0.message)"
    }
    let next = outcome.next ?? "nil"
    return "\(outcome.notes.count) notes, next \(next), counts \(outcome.counts), error \(error ?? "none")"
}

/// Stops the run with a finding: libFuzzer saves the input.
private func finding(_ what: String) -> Never {
    fatalError("fuzz-page finding: \(what)")
}

/// The invariants of one outcome of a body of `count` bytes.
private func check(_ outcome: Outcome, count: Int, ids: IDSet, configuration: PageConfiguration, _ name: String) {
    if outcome.notes.count > maxPageNotes { finding("\(name): \(outcome.notes.count) notes, over the cap") }
    if configuration.keepsJSON {
        let bytes = outcome.notes.reduce(0) { $0 + $1.count }
        if bytes > count { finding("\(name): notes' JSON is \(bytes) bytes, longer than the \(count)-byte body") }
    }
    if let error = outcome.error {
        if error.offset < 0 || error.offset > min(count, limits.maxDocumentBytes) {
            finding("\(name): error offset \(error.offset) outside the \(count)-byte body")
        }
        if error.message.isEmpty || error.message.utf8.count > 256 {
            finding("\(name): error message of \(error.message.utf8.count) bytes")
        }
        if ids.count != 0 || ids.committedPages != 0 {
            finding("\(name): failed page left \(ids.count) ids, \(ids.committedPages) pages in the set")
        }
    } else {
        if outcome.counts != [outcome.notes.count, count] {
            finding("\(name): summary counts \(outcome.counts) for \(outcome.notes.count) notes of \(count) bytes")
        }
        if ids.count != outcome.notes.count || ids.committedPages != 1 {
            finding(
                "\(name): \(ids.count) ids, \(ids.committedPages) pages in the set for \(outcome.notes.count) notes")
        }
    }
}

/// The decoder's verdict on the JSON against the strict validator's, where the decoder gives one.
private func checkValidity(_ outcome: Outcome, body: UnsafeRawBufferPointer) {
    let valid = isStrictJSON(body)
    if let error = outcome.error {
        switch error.code {
        case .invalidJSON, .truncated:
            if valid { finding("valid JSON refused as \(error.code.name) at byte \(error.offset): \(error.message)") }
        default:
            break
        }
    } else if !valid {
        finding("a page that is not valid JSON (RFC 8259) was accepted with \(outcome.notes.count) notes")
    }
}

/// The notes of a successful decode, re-decoded as a bare array, must come back unchanged.
private func checkRoundTrip(_ outcome: Outcome, configuration: PageConfiguration) {
    guard configuration.keepsJSON, outcome.error == nil, !outcome.notes.isEmpty else { return }
    var array: [UInt8] = [UInt8(ascii: "[")]
    for (index, note) in outcome.notes.enumerated() {
        if index > 0 { array.append(UInt8(ascii: ",")) }
        array += note
    }
    array.append(UInt8(ascii: "]"))
    var again = configuration
    again.limits.maxDocumentBytes = 1 << 20
    let result = array.withUnsafeBytes { decode($0, [0..<$0.count], configuration: again, ids: IDSet()) }
    if result.error != nil || result.notes != outcome.notes {
        finding("round trip: the notes re-decoded as a bare array gave \(describe(result))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    let hash = fnv1a(body)
    let configuration = configuration(hash: hash)
    let ways = chunkings(count: size, hash: hash)

    // One chunk, into an id set that starts small (16 slots) so that a page of a dozen ids grows it.
    let ids = IDSet(capacity: 1)
    let whole = decode(body, ways[0].ranges, configuration: configuration, ids: ids)
    check(whole, count: size, ids: ids, configuration: configuration, ways[0].name)
    checkRoundTrip(whole, configuration: configuration)
    checkValidity(whole, body: body)

    for (index, way) in ways.enumerated().dropFirst() {
        // After a failure the set must be as new: the random chunking reuses it.
        let reused = whole.error != nil && index == 2
        let set = reused ? ids : IDSet(capacity: 1)
        let outcome = decode(body, way.ranges, configuration: configuration, ids: set)
        check(outcome, count: size, ids: set, configuration: configuration, way.name)
        if outcome != whole {
            finding(
                "\(way.name)\(reused ? " (id set reused)" : ""): \(describe(outcome)); one chunk: \(describe(whole))")
        }
    }

    // On two threads (the parse in a ring of tiny blocks, from a threshold the input picks), the same.
    let pipeline = JSONPipelineOptions(
        threshold: Int((hash >> 24) % UInt64(size + 1)), blockBytes: 1 + Int((hash >> 32) % 97),
        blocks: 1 + Int((hash >> 40) % 3))
    // The second on the shared worker, its length announced as it is, as some other length, or not at all.
    let announced = [nil, size, Int((hash >> 50) % UInt64(2 * size + 1))][Int((hash >> 48) % 3)]
    for (run, way) in [ways[0], ways[2]].enumerated() {
        let set = IDSet(capacity: 1)
        let outcome = decode(
            body, way.ranges, configuration: configuration, ids: set,
            threads: Threads(pipeline: pipeline, worker: run == 1 ? sharedWorker : nil),
            announce: run == 1 ? announced : nil)
        let name =
            way.name
            + (run == 1 ? " on two threads, the shared worker, announced \(announced ?? -1)" : " on two threads")
        check(outcome, count: size, ids: set, configuration: configuration, name)
        if outcome != whole {
            finding("\(name) (\(pipeline)): \(describe(outcome)); one thread: \(describe(whole))")
        }
    }

    // After a success the page's ids are committed: the same page again stops at its first note.
    if whole.error == nil && !whole.notes.isEmpty {
        let again = decode(body, ways[0].ranges, configuration: configuration, ids: ids)
        guard let error = again.error, case .duplicateID(firstPage: 0) = error.code, error.noteIndex == 0,
            again.notes.isEmpty
        else { finding("the same page again into the same id set: \(describe(again))") }
        if ids.count != whole.notes.count || ids.committedPages != 1 {
            finding("the refused page left \(ids.count) ids, \(ids.committedPages) pages in the set")
        }
    }
    return 0
}
