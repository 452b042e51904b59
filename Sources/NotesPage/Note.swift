/// One note of a page: its typed `id` and `title` and, when asked for, its exact JSON.
///
/// The notes a decoder hands over at once share one buffer: a page of 1,000 notes costs a few
/// allocations, not one a note, and freeing it a release a note rather than a `free`. `id` and `title` are
/// decoded on access. Equality and hashing are those of the note's bytes, wherever they live.
public struct Note: Sendable, Hashable {
    /// The bytes of this note and of the others handed over with it.
    private let storage: [UInt8]
    /// Where this note's bytes are in ``storage``: its id, its title, then its JSON if any.
    private let start: Int
    private let idEnd: Int
    private let titleEnd: Int
    private let end: Int
    private let hasJSON: Bool

    /// - Parameters:
    ///   - id: The note's id (a decoded note's is never empty; this initializer does not check it).
    ///   - title: The note's title.
    ///   - json: The note's JSON text, if any; defaults to none.
    public init(id: String, title: String, json: String? = nil) {
        var batch = NoteBatch(capacity: id.utf8.count + title.utf8.count + (json?.utf8.count ?? 0))
        var id = id
        var title = title
        var json = json
        id.withUTF8 { id in
            title.withUTF8 { title in
                guard json != nil else {
                    return batch.append(id: UnsafeRawBufferPointer(id), title: UnsafeRawBufferPointer(title), json: nil)
                }
                json!.withUTF8 {
                    batch.append(
                        id: UnsafeRawBufferPointer(id), title: UnsafeRawBufferPointer(title),
                        json: UnsafeRawBufferPointer($0))
                }
            }
        }
        var notes: [Note] = []
        batch.take(into: &notes)
        self = notes[0]
    }

    fileprivate init(storage: [UInt8], span: NoteBatch.Span) {
        self.storage = storage
        start = span.start
        idEnd = span.idEnd
        titleEnd = span.titleEnd
        end = span.end
        hasJSON = span.hasJSON
    }

    public var id: String { String(decoding: idBytes, as: UTF8.self) }

    /// At most 24 bytes of the id as a JSON string, for messages.
    public var quotedID: String {
        idBytes.withUnsafeBytes { PageState.quote($0) }
    }
    public var title: String { String(decoding: titleBytes, as: UTF8.self) }

    /// The title's UTF-8 bytes (its escapes decoded).
    public var titleBytes: ArraySlice<UInt8> { storage[idEnd..<titleEnd] }

    /// The id's UTF-8 bytes.
    public var idBytes: ArraySlice<UInt8> { storage[start..<idEnd] }

    /// The note's JSON, compact, with every field and numbers exactly as the server wrote them; `nil`
    /// unless the decoder was asked to keep it.
    public var json: ArraySlice<UInt8>? {
        hasJSON ? storage[titleEnd..<end] : nil
    }

    /// All of the note's bytes: its id, title and JSON.
    private var bytes: ArraySlice<UInt8> { storage[start..<end] }

    public static func == (a: Note, b: Note) -> Bool {
        a.idEnd - a.start == b.idEnd - b.start && a.titleEnd - a.idEnd == b.titleEnd - b.idEnd
            && a.hasJSON == b.hasJSON && a.bytes.elementsEqual(b.bytes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(idEnd - start)
        hasher.combine(titleEnd - idEnd)
        hasher.combine(hasJSON)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension Note: CustomStringConvertible {
    /// The note's id, title and JSON (when kept) as Swift string literals, e.g.
    /// `Note(id: "a1", title: "Groceries", json: "{\"id\":\"a1\"}")`: this note's own bytes, never those of
    /// the notes that share its buffer.
    public var description: String {
        let json = self.json.map { ", json: " + String(decoding: $0, as: UTF8.self).debugDescription } ?? ""
        return "Note(id: \(id.debugDescription), title: \(title.debugDescription)\(json))"
    }
}

/// The notes finished since the decoder's caller last took them: their bytes gathered in one growing
/// buffer, then copied into one array that the notes taken together share (``take(into:)``).
struct NoteBatch: ~Copyable {
    struct Span {
        let start: Int
        let idEnd: Int
        let titleEnd: Int
        let end: Int
        let hasJSON: Bool
    }

    /// The notes' bytes, copied into one array for them when taken: a buffer of its own rather than that
    /// array, so that adding a note is three copies, not three generic appends.
    private var bytes: ByteBuffer
    private var spans: [Span] = []

    /// A batch whose buffer starts at `capacity` bytes: a decoder's, some chunks' notes.
    init(capacity: Int = 16 << 10) {
        bytes = ByteBuffer(capacity: capacity)
    }

    var isEmpty: Bool { spans.isEmpty }

    /// Adds a note of these bytes.
    mutating func append(id: UnsafeRawBufferPointer, title: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer?) {
        let start = bytes.count
        bytes.append(id)
        let idEnd = bytes.count
        bytes.append(title)
        let titleEnd = bytes.count
        if let json { bytes.append(json) }
        spans.append(Span(start: start, idEnd: idEnd, titleEnd: titleEnd, end: bytes.count, hasJSON: json != nil))
    }

    /// Appends the notes to `notes`, sharing one new array of their bytes, and starts a new batch.
    mutating func take(into notes: inout [Note]) {
        guard !spans.isEmpty else { return }
        let storage = [UInt8](bytes.bytes.assumingMemoryBound(to: UInt8.self))
        // Appended one by one: the array grows geometrically (reserving the exact count on each take
        // would copy a page's notes again at every chunk).
        for span in spans { notes.append(Note(storage: storage, span: span)) }
        // A buffer grown past 256 KiB (a whole page's notes, read at once) is freed for a smaller one,
        // rather than held as long as the decoder beside the array just copied from it.
        bytes.removeAll(keepingCapacityUpTo: 256 << 10)
        spans.removeAll(keepingCapacity: true)
    }
}
