import Foundation
import NotesJSON
import NotesPage
import TestSupport
import Testing

// What PipelineTests decode and compare: a decode's trace, the pages they decode, their chunks, and the
// rings they decode them in.

/// What one decode of a page came to, down to what the caller can observe after each chunk.
struct Trace: CustomStringConvertible {
    var notes: [String] = []
    var error: PageError?
    var summary: PageDecoder.Summary?
    /// `offset`, `hasReadNextBeforeItems` and `nextCursorRead` after each chunk that did not fail.
    var steps: [String] = []
    /// `offset` after the end or the error.
    var offset = 0
    var idsAfter = 0

    var description: String {
        let outcome = error.map { "\($0.code.name) at \($0.offset) note \($0.noteIndex ?? -1): \($0.message)" } ?? "ok"
        return "\(notes.count) notes, \(outcome), \(steps.count) steps, offset \(offset), ids \(idsAfter)"
    }

    /// Whether a decode on two threads (`self`, with `ring`) agrees with one on one thread: the same in
    /// every way, except that the error may be thrown by a later call (two threads lag), so the steps of
    /// one thread need only be the first steps of two. After an error, `offset` is the end of the piece
    /// the parse stopped in: the same only when the ring's blocks hold whole pieces (64 KiB).
    func agrees(with one: Trace, ring: JSONPipelineOptions = .init()) -> Bool {
        let samePieces = error == nil || ring.blockBytes >= JSONPipelineOptions().blockBytes
        return notes == one.notes && error == one.error && summary == one.summary
            && (!samePieces || offset == one.offset) && idsAfter == one.idsAfter
            && (error == nil ? steps == one.steps : steps.starts(with: one.steps))
    }
}

/// Decodes `chunks` with the given pipeline, into a fresh id set.
func trace(
    _ chunks: [ArraySlice<UInt8>], configuration: PageConfiguration, pipeline: JSONPipelineOptions,
    worker: JSONPipelineWorker? = nil, announce: Int? = nil, expectPipelined: Bool? = nil
) -> Trace {
    let ids = IDSet()
    var result = Trace()
    do {
        var decoder = PageDecoder(configuration: configuration, ids: ids, pipeline: pipeline, worker: worker)
        if let announce { decoder.announce(byteCount: announce) }
        var notes: [Note] = []
        do {
            for (index, chunk) in chunks.enumerated() {
                try decoder.feed(chunk, into: &notes)
                if index == 0, announce != nil, let expectPipelined {
                    let pipelined = decoder.isPipelined
                    #expect(pipelined == expectPipelined, "as of the first chunk")
                }
                // The next value first: `offset` waits for the decoding to catch up, which would hide a lag.
                let nextFirst = decoder.hasReadNextBeforeItems
                let next = decoder.nextCursorRead ?? "nil"
                result.steps.append("\(nextFirst) \(next) \(decoder.offset)")
            }
            result.summary = try decoder.finish(into: &notes)
        } catch {
            result.error = error
        }
        result.offset = decoder.offset
        let pipelined = decoder.isPipelined
        let peak = decoder.peakBlocksInUse
        if let expectPipelined { #expect(pipelined == expectPipelined) }
        #expect(peak <= pipeline.blocks)
        result.notes = notes.map { String(decoding: $0.json ?? $0.idBytes, as: UTF8.self) }
    }
    result.idsAfter = ids.count
    return result
}

/// A page of `count` notes with every kind of value: escapes (which yajl unescapes into its own buffer),
/// non-ASCII text, numbers, nested values; `next` before or after the notes.
func page(count: Int, nextFirst: Bool = false, seed: UInt64 = 1, items: String = "notes") -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var notes: [String] = []
    for index in 0..<count {
        let pick = random.next() % 6
        var fields = [#""id":"n\#(index)""#, #""title":"t\#(index) \u00e9\n\"é漢字🙂""#]
        switch pick {
        case 0: fields.append(#""tags":["a","b\\c",{"x":[1,2.5e3,-0]}]"#)
        case 1: fields.append(#""n":123456789012345678901234567890,"t":true,"f":false,"z":null"#)
        case 2: fields.insert(#""body":"\#(String(repeating: "lorem ipsum ", count: Int(random.next() % 40)))""#, at: 0)
        case 3:
            fields.append(
                #""esc":"\ud83d\ude00\t\u0000 \#(String(repeating: "\\\\", count: Int(random.next() % 30)))""#)
        default: break
        }
        if random.next() % 2 == 0 { fields.reverse() }
        notes.append("{" + fields.joined(separator: random.next() % 3 == 0 ? " , " : ",") + "}")
    }
    let list = "\"\(items)\": [\n" + notes.joined(separator: ",\n") + "\n]"
    let next = #""next_cursor": "c\u00e9-\#(count)""#
    return Array(("{" + (nextFirst ? next + ", " + list : list + ", " + next) + ", \"more\": {\"a\": [1]}}\n").utf8)
}

/// `body` cut into chunks of `size` bytes.
func chunks(_ body: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
    stride(from: 0, to: max(body.count, 1), by: size).map { body[$0..<min(body.count, $0 + size)] }
}

/// Rings small enough that a page of a few hundred KiB crosses many blocks, waits for free ones, and
/// packs several chunks into one.
let rings: [JSONPipelineOptions] = [
    JSONPipelineOptions(threshold: 0, blockBytes: 64 << 10, blocks: 4),
    JSONPipelineOptions(threshold: 0, blockBytes: 1000, blocks: 1),
    JSONPipelineOptions(threshold: 3000, blockBytes: 4096, blocks: 2),
    JSONPipelineOptions(threshold: 100_000, blockBytes: 333, blocks: 3),
    // A fetch's shape: many small blocks, so the caller waits for several at once (half those outstanding).
    JSONPipelineOptions(threshold: 0, blockBytes: 4096, blocks: 32),
]
