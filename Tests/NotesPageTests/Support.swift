import Foundation
import NotesJSON
import NotesPage
import TestSupport

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// What decoding a page came to: comparable across chunkings.
enum Outcome: Equatable, CustomStringConvertible {
    case page(notes: [String], next: String?)
    case failure(PageError, notesBefore: Int)

    var description: String {
        switch self {
        case .page(let notes, let next): return "page(\(notes.count) notes, next: \(next ?? "nil"))"
        case .failure(let error, let count): return "failure(\(error.code.name): \(error), after \(count) notes)"
        }
    }
}

/// Decodes `body` fed as the given chunks.
func decode(_ chunks: [ArraySlice<UInt8>], configuration: PageConfiguration = PageConfiguration(), ids: IDSet = IDSet())
    -> Outcome
{
    var decoder = PageDecoder(configuration: configuration, ids: ids)
    var notes: [Note] = []
    do {
        for chunk in chunks { try decoder.feed(chunk, into: &notes) }
        let summary = try decoder.finish(into: &notes)
        return .page(
            notes: notes.map { String(decoding: $0.json ?? $0.idBytes, as: UTF8.self) }, next: summary.nextCursor)
    } catch {
        return .failure(error, notesBefore: notes.count)
    }
}

func decode(_ body: [UInt8], configuration: PageConfiguration = PageConfiguration()) -> Outcome {
    decode([body[...]], configuration: configuration)
}

/// `body` cut at random points into chunks of 0 to `maxChunk` bytes, empty chunks included.
func randomChunks(_ body: [UInt8], maxChunk: Int, using random: inout SeededRandom) -> [ArraySlice<UInt8>] {
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    while start < body.count {
        let size = Int.random(in: 0...maxChunk, using: &random)
        let end = min(body.count, start + size)
        chunks.append(body[start..<end])
        start = end
    }
    return chunks
}
