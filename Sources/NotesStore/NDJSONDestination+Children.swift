public import NotesFetch
public import NotesPage
import NotesSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A resource's files in a sync's directory (`-o DIR`), read as its parents' children read a table.
///
/// A resource without a parent keeps its notes in `DIR/NAME.ndjson` and its state in `DIR/NAME.state`.
/// A child resource keeps each parent's walk in files of its own, `DIR/NAME/KEY.ndjson` and
/// `DIR/NAME/KEY.state` (``walkFiles(parent:)``), KEY the parent's key with every byte but lowercase
/// letters, digits, `-` and `_` written `%XX` (capitals too, so that no two keys share a file where case is
/// not told apart): a walk stopped anywhere goes on in its own files, beside every other parent's. Only what a state file counts as committed is read: lines past it (a run killed mid-page) are
/// not a parent's.
public struct NDJSONResourceFiles: ParentTable, Sendable {
    /// The longest file name a parent's key may make (the system's limit is 255 bytes, with the suffix).
    public static let maxFileNameBytes = 200

    public let directory: String
    public let name: String

    public init(directory: String, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The lines and the state of the resource's walk for `parent`.
    /// - Throws: ``StoreError`` naming the parent when its key makes a file name over
    ///   ``maxFileNameBytes``.
    public func walkFiles(parent: String) throws(StoreError) -> (output: String, state: String) {
        let stem = Self.fileName(for: parent)
        guard stem.utf8.count <= Self.maxFileNameBytes else {
            let shown = parent.count > 80 ? String(parent.prefix(80)) + "…" : parent
            throw StoreError(
                "its key '\(shown)' makes a file name of \(stem.utf8.count) bytes, over the \(Self.maxFileNameBytes) of a walk's files in '\(directory)/\(name)' (-o DIR): keep this sync with --sqlite FILE or --postgres URL"
            )
        }
        let base = directory + "/" + name + "/" + stem
        return (base + ".ndjson", base + ".state")
    }

    /// The resource's checkpoint (a resource without a parent).
    public func checkpoint() throws(StoreError) -> WalkCheckpoint? {
        try SavedState.load(directory + "/" + name + ".state")?.checkpoint
    }

    /// The checkpoint of the resource's walk for `parent`; none for a parent whose key makes no file name
    /// (making its walk says why, for that parent alone).
    public func childWalk(parent: String) throws(StoreError) -> WalkCheckpoint? {
        guard let files = try? walkFiles(parent: parent) else { return nil }
        return try SavedState.load(files.state)?.checkpoint
    }

    /// None: a sliced resource is kept in tables, never in files (`sync` refuses `slice` with `-o DIR`).
    public func windowWalks(path: FieldPath) throws(StoreError) -> [(window: SliceWindow, isDone: Bool)] { [] }

    /// Each committed note of the resource, in order, keyed by its id, or for a child resource by
    /// ``ChildUnit/key(parent:id:)`` (only those of the walk for `parent`, when given).
    public func forEachParentRow(
        child: Bool, under parent: String?, _ body: (ParentRow) throws(StoreError) -> Void
    ) throws(StoreError) {
        guard child else {
            try Self.forEachNote(output: directory + "/" + name + ".ndjson", state: directory + "/" + name + ".state") {
                id, json throws(StoreError) in try body(ParentRow(key: id, json: json, run: 1))
            }
            return
        }
        var walks: [String] = []
        if let parent {
            walks = [parent]
        } else {
            let folder = directory + "/" + name
            var names: [String] = []
            if FileManager.default.fileExists(atPath: folder) {
                do {
                    names = try FileManager.default.contentsOfDirectory(atPath: folder)
                } catch {
                    throw StoreError("cannot read the directory '\(folder)': \(error)")
                }
            }
            walks = names.filter { $0.hasSuffix(".state") }.sorted().compactMap {
                Self.key(fromFileName: String($0.dropLast(".state".count)))
            }
        }
        for walk in walks {
            let files = try walkFiles(parent: walk)
            try Self.forEachNote(output: files.output, state: files.state) { id, json throws(StoreError) in
                try body(ParentRow(key: ChildUnit.key(parent: walk, id: id), json: json, run: 1))
            }
        }
    }

    /// Each committed line of `output` with its id from the journal beside `state`.
    private static func forEachNote(
        output: String, state: String, _ body: (String, [UInt8]) throws(StoreError) -> Void
    ) throws(StoreError) {
        guard let saved = try SavedState.load(state), saved.journalBytes > 0 else { return }
        do {
            guard let journal = try Journal.committed(state, saved), journal.count == saved.journalBytes else {
                throw StoreError("'\(Journal.path(state))' is shorter than its state file says")
            }
            var ids: [String] = []
            do {
                try Journal.forEachEntry(journal) { entry throws(SystemError) in
                    if case .page(let page) = entry { ids += page.map { String(decoding: $0, as: UTF8.self) } }
                }
            } catch {
                throw StoreError("'\(Journal.path(state))': \(error)")
            }
            let reader = try ChunkReader(path: output)
            var line: [UInt8] = []
            var left = saved.outputBytes
            var index = 0
            while left > 0 {
                let chunk = try reader.next()
                guard !chunk.isEmpty else { break }
                for byte in chunk.prefix(left) {
                    guard byte == UInt8(ascii: "\n") else {
                        line.append(byte)
                        continue
                    }
                    guard index < ids.count else {
                        throw StoreError(
                            "'\(output)' holds more notes than the \(ids.count) its state file '\(state)' counts (-o DIR)"
                        )
                    }
                    try body(ids[index], line)
                    index += 1
                    line.removeAll(keepingCapacity: true)
                }
                left -= min(left, chunk.count)
            }
            guard index == ids.count, left == 0 else {
                throw StoreError(
                    "'\(output)' does not hold the \(ids.count) notes its state file '\(state)' counts (-o DIR)")
            }
        } catch let error as SystemError {
            throw StoreError(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("'\(output)': \(error)")
        }
    }

    /// `key` as a file name: lowercase letters, digits, `-` and `_` as they are, every other byte `%XX`.
    static func fileName(for key: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "_"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The key a ``fileName(for:)`` was made from, or `nil` for a name it does not make.
    static func key(fromFileName name: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = name.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let key = String(decoding: bytes, as: UTF8.self)
        return fileName(for: key) == name ? key : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
