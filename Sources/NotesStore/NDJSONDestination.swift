public import NotesFetch
public import NotesPage
import NotesSystem

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

/// Notes as lines of a file (or standard output), with an optional state file that makes the walk
/// resumable: `FILE` holds the ``WalkCheckpoint`` and the committed length of the output, `FILE.journal`
/// the committed ids and visited pages.
///
/// A page commits in three steps: its lines are appended to the output, its ids and next page to the
/// journal, then the state file is replaced atomically. A crash between steps leaves bytes past the
/// committed lengths, which opening cuts off.
public final class NDJSONDestination: PageDestination {
    /// The longest state file read back.
    public static let maxStateFileBytes = 1 << 20
    /// The longest journal read back (the ids and visited URLs of the run's pages).
    public static let maxJournalBytes = 1 << 30
    /// What each note's line holds.
    public enum Format: String, Sendable, CaseIterable {
        /// The note's exact JSON.
        case ndjson
        /// The note's id.
        case ids
        /// Nothing: the walk validates only.
        case none
    }

    public let format: Format
    public let outputPath: String?
    public let statePath: String?
    private var output: OutputFile?
    private var journal: OutputFile?
    private var saved = SavedState(checkpoint: WalkCheckpoint(url: "", pagination: ""))
    /// Called after each step of a commit; throwing stops the commit there, leaving the files as a
    /// `kill -9` at that point would (tests crash a run at every step with it).
    package var afterStep: (CommitStep) throws(CommitStop) -> Void = { _ throws(CommitStop) in }

    /// - Parameters:
    ///   - outputPath: The file of lines; `nil` for standard output (which cannot be resumed into).
    ///   - statePath: The state file, whose journal is beside it; `nil` for a walk that keeps none.
    ///   - unit: The parent this walk is for, a child resource's (its files are that parent's alone:
    ///     ``NDJSONResourceFiles``); its checkpoint records the parent's run and digest.
    public init(outputPath: String?, statePath: String?, format: Format = .ndjson, unit: ChildUnit? = nil) {
        self.outputPath = outputPath
        self.statePath = statePath
        self.format = format
        self.unit = unit
    }

    /// The parent this walk is for, a child resource's.
    public let unit: ChildUnit?

    /// Standard output and no state: what cannot resume refreshes.
    public var refreshesWhenComplete: Bool { false }

    /// Committed length of the output file.
    public var outputBytes: Int { saved.outputBytes }

    public func open(url: String, pagination: String, ids: IDSet, visited: IDSet) throws(StoreError)
        -> WalkCheckpoint?
    {
        var found: WalkCheckpoint?
        saved = SavedState(checkpoint: WalkCheckpoint(url: url, pagination: pagination))
        if let statePath, let state = try SavedState.load(statePath) {
            guard state.checkpoint.url == url else {
                throw StoreError("'\(statePath)' is the state of another run (\(state.checkpoint.url))")
            }
            guard state.checkpoint.pagination == pagination else {
                throw StoreError(
                    "'\(statePath)' is the state of a run with --paginate \(state.checkpoint.pagination), not \(pagination)"
                )
            }
            saved = state
            found = state.checkpoint
        }
        do {
            if let outputPath {
                output = try OutputFile(path: outputPath, length: saved.outputBytes)
            } else {
                output = OutputFile(standardOutput: ())
            }
            if let statePath {
                if let bytes = try Journal.committed(statePath, saved) {
                    try Journal.replay(bytes, ids: ids, visited: visited)
                }
                journal = try OutputFile(path: Journal.path(statePath), length: saved.journalBytes)
            }
        } catch {
            throw StoreError(error)
        }
        return found
    }

    public func commit(_ page: FetchedPage, checkpoint: WalkCheckpoint, nextIdentity: String?) throws(StoreError) {
        guard let output else { throw StoreError("the destination was not opened") }
        var bytes: [UInt8] = []
        for note in page.notes {
            switch format {
            case .ndjson: bytes.append(contentsOf: note.json ?? [])
            case .ids: bytes.append(contentsOf: note.idBytes)
            case .none: continue
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            try output.write(bytes)
            try afterStep(.output)
            var checkpoint = checkpoint
            checkpoint.parentRun = unit?.parentRun
            checkpoint.parentDigest = unit?.parentDigest
            var state = SavedState(checkpoint: checkpoint, outputBytes: output.length, journalBytes: saved.journalBytes)
            if let journal, let statePath {
                var entry: [UInt8] = []
                // The first page of a run after another: the pages the runs before visited are forgotten.
                if checkpoint.pages == 1 && checkpoint.runNumber > 1 { entry.append(UInt8(ascii: "R")) }
                Journal.entry(page, nextURL: nextIdentity, into: &entry)
                try journal.write(entry)
                try afterStep(.journal)
                state.journalBytes = journal.length
                try state.save(statePath)
                try afterStep(.state)
            }
            saved = state
        } catch let error as SystemError {
            throw StoreError(error)
        } catch let stop as CommitStop {
            throw StoreError(stop.description)
        } catch {
            throw StoreError("\(error)")
        }
    }
}

/// What the state file holds: the checkpoint, and the committed lengths of the output and the journal.
struct SavedState: Equatable, Codable {
    /// The format of the file: a state of another version is refused, never misread.
    static let currentVersion = 2

    var checkpoint: WalkCheckpoint
    /// Committed length of the output file.
    var outputBytes = 0
    /// Committed length of the journal.
    var journalBytes = 0

    init(checkpoint: WalkCheckpoint, outputBytes: Int = 0, journalBytes: Int = 0) {
        self.checkpoint = checkpoint
        self.outputBytes = outputBytes
        self.journalBytes = journalBytes
    }

    private enum CodingKeys: String, CodingKey {
        case version, outputBytes, journalBytes
    }

    // One flat object: the checkpoint's fields beside the lengths and the version.
    init(from decoder: any Decoder) throws {
        checkpoint = try WalkCheckpoint(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outputBytes = try container.decode(Int.self, forKey: .outputBytes)
        journalBytes = try container.decode(Int.self, forKey: .journalBytes)
    }

    func encode(to encoder: any Encoder) throws {
        try checkpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentVersion, forKey: .version)
        try container.encode(outputBytes, forKey: .outputBytes)
        try container.encode(journalBytes, forKey: .journalBytes)
    }

    static func load(_ path: String) throws(StoreError) -> SavedState? {
        struct Version: Decodable { var version: Int }
        let read: [UInt8]?
        do {
            read = try readFile(path, limit: NDJSONDestination.maxStateFileBytes)
        } catch {
            throw StoreError(error)
        }
        guard let bytes = read else { return nil }
        guard let version = try? JSONDecoder().decode(Version.self, from: Data(bytes)).version else {
            throw StoreError("'\(path)' is not a notes-page state file")
        }
        guard version == currentVersion else {
            throw StoreError(
                "'\(path)' is a state of version \(version), not \(currentVersion): written by another notes-page; remove it to start over"
            )
        }
        do {
            return try JSONDecoder().decode(SavedState.self, from: Data(bytes))
        } catch {
            throw StoreError("'\(path)' is not a notes-page state file")
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
/// URL the run will visit, `R` where a run after a complete one begins (the visited pages before it are
/// forgotten; the ids stay, so that an incremental sync's overlap is not written twice); lengths as
/// LEB128 varints.
enum Journal {
    /// The journal beside the state file `statePath`.
    static func path(_ statePath: String) -> String { statePath + ".journal" }

    /// The committed part of the journal beside `statePath`, as `saved` counts it; `nil` when it has none.
    static func committed(_ statePath: String, _ saved: SavedState) throws(SystemError) -> [UInt8]? {
        guard saved.journalBytes > 0,
            var bytes = try readFile(path(statePath), limit: NDJSONDestination.maxJournalBytes)
        else { return nil }
        if bytes.count > saved.journalBytes { bytes.removeSubrange(saved.journalBytes...) }
        return bytes
    }

    /// Appends page `page`'s ids and the URL of its next page to `buffer`.
    static func entry(_ page: FetchedPage, nextURL: String?, into buffer: inout [UInt8]) {
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

    /// An entry of the journal, as ``forEachEntry(_:_:)`` reads it.
    enum Entry {
        /// A committed page's ids, in the order of its lines.
        case page([ArraySlice<UInt8>])
        /// A URL the run visits.
        case visits(ArraySlice<UInt8>)
        /// A run after a complete one begins.
        case run
    }

    /// Reads the journal's entries in order.
    static func forEachEntry(_ bytes: [UInt8], _ body: (Entry) throws(SystemError) -> Void) throws(SystemError) {
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
                guard count <= bytes.count - index else {
                    throw SystemError(operation: "the journal is damaged", code: EINVAL)
                }
                var ids: [ArraySlice<UInt8>] = []
                for _ in 0..<count { ids.append(try field()) }
                try body(.page(ids))
            case UInt8(ascii: "V"):
                try body(.visits(try field()))
            case UInt8(ascii: "R"):
                try body(.run)
            default:
                throw SystemError(operation: "the journal is damaged", code: EINVAL)
            }
        }
    }

    /// Rebuilds the id set (one committed page per entry) and the visited URLs of the last run.
    static func replay(_ bytes: [UInt8], ids: IDSet, visited: IDSet) throws(SystemError) {
        var urls: [ArraySlice<UInt8>] = []
        try forEachEntry(bytes) { entry throws(SystemError) in
            switch entry {
            case .page(let page):
                for id in page { _ = id.withUnsafeBytes { ids.insert($0) } }
                ids.commitPage()
            case .visits(let url):
                urls.append(url)
            case .run:
                urls.removeAll()
            }
        }
        for url in urls {
            _ = url.withUnsafeBytes { visited.insert($0) }
            visited.commitPage()
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
