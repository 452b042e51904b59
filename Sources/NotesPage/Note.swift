/// One note of a page: its typed `id` and `title` and, when asked for, its exact JSON.
///
/// The notes a decoder hands over at once share one buffer (``NoteBatch``): a page of 1,000 notes costs a
/// few allocations, not one a note, and freeing it a release a note rather than a `free`. `id` and `title`
/// are decoded on access. Equality and hashing are those of the note's bytes, wherever they live.
public struct Note: Sendable, Hashable {
    /// The bytes of this note and of the others handed over with it.
    private let storage: [UInt8]
    /// Where this note's bytes are in ``storage``: its id, its title, then its JSON if any.
    private let start: Int
    private let end: Int
    private let idCount: Int32
    private let titleCount: Int32

    /// - Parameters:
    ///   - id: The note's id, a non-empty string.
    ///   - title: The note's title.
    ///   - json: The note's JSON text, if any; defaults to none.
    public init(id: String, title: String, json: String? = nil) {
        var batch = NoteBatch()
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
        end = span.end
        idCount = span.idCount
        titleCount = span.titleCount
    }

    public var id: String { String(decoding: idBytes, as: UTF8.self) }

    /// At most 24 bytes of the id as a JSON string, for messages.
    public var quotedID: String {
        idBytes.withUnsafeBytes { PageState.quote($0) }
    }
    public var title: String { String(decoding: titleBytes, as: UTF8.self) }

    /// The title's UTF-8 bytes (its escapes decoded).
    public var titleBytes: ArraySlice<UInt8> {
        let from = start + Int(idCount)
        return storage[from..<from + Int(titleCount)]
    }

    /// The id's UTF-8 bytes.
    public var idBytes: ArraySlice<UInt8> { storage[start..<start + Int(idCount)] }

    /// The note's JSON, compact, with every field and numbers exactly as the server wrote them; `nil`
    /// unless the decoder was asked to keep it (a note's JSON is never empty).
    public var json: ArraySlice<UInt8>? {
        let from = start + Int(idCount) + Int(titleCount)
        return from < end ? storage[from..<end] : nil
    }

    /// All of the note's bytes: its id, title and JSON, as counted.
    private var bytes: ArraySlice<UInt8> { storage[start..<end] }

    public static func == (a: Note, b: Note) -> Bool {
        a.idCount == b.idCount && a.titleCount == b.titleCount && a.bytes.elementsEqual(b.bytes)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(idCount)
        hasher.combine(titleCount)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// The notes finished since the decoder's caller last took them: their bytes in one growing buffer, which
/// the notes share once taken (``take(into:)``).
struct NoteBatch {
    struct Span {
        let start: Int
        let end: Int
        let idCount: Int32
        let titleCount: Int32
    }

    private var bytes: [UInt8] = []
    private var spans: [Span] = []

    var isEmpty: Bool { spans.isEmpty }

    /// Adds a note of these bytes. An id or title is at most a string's cap, far below 2 GiB.
    mutating func append(id: UnsafeRawBufferPointer, title: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer?) {
        let start = bytes.count
        bytes.append(contentsOf: id.assumingMemoryBound(to: UInt8.self))
        bytes.append(contentsOf: title.assumingMemoryBound(to: UInt8.self))
        if let json { bytes.append(contentsOf: json.assumingMemoryBound(to: UInt8.self)) }
        spans.append(Span(start: start, end: bytes.count, idCount: Int32(id.count), titleCount: Int32(title.count)))
    }

    /// Appends the notes to `notes`, sharing this batch's buffer, and starts a new one.
    mutating func take(into notes: inout [Note]) {
        guard !spans.isEmpty else { return }
        let storage = bytes
        notes.reserveCapacity(notes.count + spans.count)
        for span in spans { notes.append(Note(storage: storage, span: span)) }
        // A fresh buffer: the one taken is the notes' now (appending to it would copy it whole).
        bytes = []
        bytes.reserveCapacity(min(storage.count, 256 << 10))
        spans.removeAll(keepingCapacity: true)
    }
}
