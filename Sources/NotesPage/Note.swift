/// One note of a page: its typed `id` and `title` and, when asked for, its exact JSON.
///
/// The bytes live in one buffer per note (one allocation); `id` and `title` are decoded on access.
public struct Note: Sendable, Hashable {
    private let storage: [UInt8]
    private let idCount: Int
    private let titleCount: Int
    private let hasJSON: Bool

    /// - Parameters:
    ///   - id: The note's id, a non-empty string.
    ///   - title: The note's title.
    ///   - json: The note's JSON text, if any; defaults to none.
    public init(id: String, title: String, json: String? = nil) {
        var id = id
        var title = title
        var json = json
        self = id.withUTF8 { id in
            title.withUTF8 { title in
                guard json != nil else {
                    return Note(id: UnsafeRawBufferPointer(id), title: UnsafeRawBufferPointer(title), json: nil)
                }
                return json!.withUTF8 {
                    Note(
                        id: UnsafeRawBufferPointer(id), title: UnsafeRawBufferPointer(title),
                        json: UnsafeRawBufferPointer($0))
                }
            }
        }
    }

    /// A note of these bytes, copied into its one buffer.
    init(id: UnsafeRawBufferPointer, title: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer?) {
        let total = id.count + title.count + (json?.count ?? 0)
        var storage: [UInt8] = []
        storage.reserveCapacity(total)
        storage.append(contentsOf: id.assumingMemoryBound(to: UInt8.self))
        storage.append(contentsOf: title.assumingMemoryBound(to: UInt8.self))
        if let json { storage.append(contentsOf: json.assumingMemoryBound(to: UInt8.self)) }
        self.storage = storage
        idCount = id.count
        titleCount = title.count
        hasJSON = json != nil
    }

    public var id: String { String(decoding: idBytes, as: UTF8.self) }

    /// At most 24 bytes of the id as a JSON string, for messages.
    public var quotedID: String {
        idBytes.withUnsafeBytes { PageState.quote($0) }
    }
    public var title: String { String(decoding: titleBytes, as: UTF8.self) }

    /// The title's UTF-8 bytes (its escapes decoded).
    public var titleBytes: ArraySlice<UInt8> { storage[idCount..<idCount + titleCount] }

    /// The id's UTF-8 bytes.
    public var idBytes: ArraySlice<UInt8> { storage[..<idCount] }

    /// The note's JSON, compact, with every field and numbers exactly as the server wrote them; `nil`
    /// unless the decoder was asked to keep it.
    public var json: ArraySlice<UInt8>? {
        hasJSON ? storage[(idCount + titleCount)...] : nil
    }
}
