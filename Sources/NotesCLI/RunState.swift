import NotesFetch
import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `fetch --state FILE` keeps between runs: where to go on, and how much output is committed.
///
/// Rewritten atomically after each committed page. Beside it, `FILE.journal` holds the committed ids
/// (page by page) and the visited page URLs, so a resumed run still checks uniqueness and cycles.
struct RunState: Codable, Equatable {
    /// The format of the file: a state of another version is refused, never misread.
    static let currentVersion = 2

    var version = currentVersion
    /// The endpoint the run walks.
    var url: String
    /// The pagination scheme and its parameters (``Pagination/description``): a resumed run must walk the
    /// same way, since the next page is in the scheme's own terms.
    var pagination: String
    /// The next page to fetch; `nil` when the run reached the last page.
    var next: PageLocation?
    var pages = 0
    var notes = 0
    /// Bytes of page bodies downloaded.
    var bytes = 0
    /// Committed length of the output file.
    var outputBytes = 0
    /// Committed length of the journal.
    var journalBytes = 0
    /// Notes left out as duplicates (`--on-duplicate skip`).
    var skipped = 0
    /// The total the server last announced, if it did.
    var total: Int?
    /// Bytes of page bodies on the wire (compressed, when the server compressed them).
    var wireBytes: Int?

    var isDone: Bool { next == nil && pages > 0 }

    static func load(_ path: String) throws(SystemError) -> RunState? {
        struct Version: Decodable { var version: Int }
        guard let bytes = try readFile(path, limit: FetchLimits.maxStateFileBytes) else { return nil }
        guard let version = try? JSONDecoder().decode(Version.self, from: Data(bytes)).version else {
            throw SystemError(operation: "'\(path)' is not a notes-page state file", code: EINVAL)
        }
        guard version == currentVersion else {
            throw SystemError(
                operation:
                    "'\(path)' is a state of version \(version), not \(currentVersion): written by another notes-page; remove it to start over",
                code: EINVAL)
        }
        do {
            return try JSONDecoder().decode(RunState.self, from: Data(bytes))
        } catch {
            throw SystemError(operation: "'\(path)' is not a notes-page state file", code: EINVAL)
        }
    }

    func save(_ path: String) throws(SystemError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = (try? encoder.encode(self)) ?? Data()
        try writeAtomically(Array(data) + [UInt8(ascii: "\n")], to: path)
    }
}

/// The journal beside a state file: `P <count> <id>…` for each committed page, `V <url>` for each page
/// URL the run will visit, lengths as LEB128 varints.
enum Journal {
    /// Appends page `page`'s ids and the URL of its next page to `buffer`.
    static func record(_ page: FetchedPage, nextURL: String?, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "P"))
        appendVarint(page.notes.count, to: &buffer)
        for note in page.notes {
            appendVarint(note.idBytes.count, to: &buffer)
            buffer.append(contentsOf: note.idBytes)
        }
        if let nextURL {
            buffer.append(UInt8(ascii: "V"))
            appendVarint(nextURL.utf8.count, to: &buffer)
            buffer.append(contentsOf: nextURL.utf8)
        }
    }

    /// Rebuilds the id set (one committed page per record) and the visited URLs.
    static func replay(_ bytes: [UInt8], ids: IDSet, visited: IDSet) throws(SystemError) {
        var index = 0
        func varint() throws(SystemError) -> Int {
            var value = 0
            var shift = 0
            while index < bytes.count, shift < 63 {
                let byte = bytes[index]
                index += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            throw SystemError(operation: "the journal is damaged", code: EINVAL)
        }
        func field() throws(SystemError) -> ArraySlice<UInt8> {
            let length = try varint()
            guard length <= bytes.count - index else {
                throw SystemError(operation: "the journal is damaged", code: EINVAL)
            }
            defer { index += length }
            return bytes[index..<index + length]
        }
        while index < bytes.count {
            let tag = bytes[index]
            index += 1
            switch tag {
            case UInt8(ascii: "P"):
                let count = try varint()
                for _ in 0..<count {
                    let id = try field()
                    _ = id.withUnsafeBytes { ids.insert($0) }
                }
                ids.commitPage()
            case UInt8(ascii: "V"):
                let url = try field()
                _ = url.withUnsafeBytes { visited.insert($0) }
                visited.commitPage()
            default:
                throw SystemError(operation: "the journal is damaged", code: EINVAL)
            }
        }
    }

    private static func appendVarint(_ value: Int, to buffer: inout [UInt8]) {
        var value = value
        repeat {
            buffer.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
            value >>= 7
        } while value > 0
    }
}
