import NotesJSON

/// Receives the parser's events for a ``PageState``.
///
/// The state lives behind a pointer the assembler owns, not in a stored property: a class's stored
/// property costs a dynamic exclusivity check on every access, and this one is touched on every event
/// (measured: about a sixth of the instructions of a decode). Only the decoder that owns this assembler
/// touches the state, never concurrently with a parse.
final class PageAssembler: BlockEventHandler {
    let state: UnsafeMutablePointer<PageState>

    init(configuration: PageConfiguration, ids: IDSet) {
        state = .allocate(capacity: 1)
        state.initialize(to: PageState(configuration: configuration, ids: ids))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func handle(_ event: JSONEvent) -> Bool {
        state.pointee.handle(event)
    }

    func handle(plainText event: JSONEvent) -> Bool {
        state.pointee.plainText = true
        defer { state.pointee.plainText = false }
        return state.pointee.handle(event)
    }

    func handle(recorded events: RecordedEvents) -> Int? {
        let state = self.state
        defer {
            state.pointee.plainText = false
            state.pointee.replayedEnd = -1
        }
        // Without the notes' JSON, what a note's other members hold, and what the page skips, matter for
        // their nesting alone (``PageState/passOver(_:byteCount:)``).
        let passesOver = !state.pointee.configuration.keepsJSON
        for index in 0..<events.count {
            if passesOver, state.pointee.passOver(events.shape(index), byteCount: events.byteCount(index)) {
                continue
            }
            guard let (event, plain) = events[index] else { continue }
            state.pointee.plainText = plain
            state.pointee.replayedEnd = events.end(index)
            if !state.pointee.handle(event) { return index }
        }
        return nil
    }
}

/// The state machine that turns JSON events into notes: it follows the items and next paths, checks each
/// note against the contract, and records the first contract error it meets.
///
/// It never throws from a callback: it returns `false` to stop yajl and keeps the reason in ``failure``.
struct PageState: ~Copyable {
    /// What an open container is to the page: a kind, and what the kind needs (a plain struct, so that the
    /// state machine dispatches on one byte).
    struct Frame {
        enum Kind: UInt8 {
            /// An object on the way to some of the paths (``paths``), ``level`` keys deep.
            case path
            /// The notes array.
            case items
            /// A top-level array that may be the items (``PathDetection/items``), before its first element.
            case candidate
            /// An item holding the record at ``PageConfiguration/recordKey`` (a GraphQL edge).
            case recordItem
            /// A note object.
            case note
            /// An object inside a note on the way to its id or title (``notePaths``), ``level`` keys deep.
            case noteWay
            /// A container inside a note: copied to the note's JSON.
            case inNote
            /// An object or array at a field path, copied to ``PageState/fieldJSON`` (``capture``).
            case capture
            /// A container of no interest.
            case skip
        }

        var kind: Kind
        /// The id and title paths a ``Kind/noteWay`` object is on the way to (``NotePaths``).
        var notePaths: UInt8 = 0
        var level = 0
        /// The page's paths a ``Kind/path`` object is on the way to.
        var paths = PathMask()

        static let items = Frame(kind: .items)
        static let candidate = Frame(kind: .candidate)
        static let recordItem = Frame(kind: .recordItem)
        static let note = Frame(kind: .note)
        static let inNote = Frame(kind: .inNote)
        static let capture = Frame(kind: .capture)
        static let skip = Frame(kind: .skip)

        static func path(level: Int, paths: PathMask) -> Frame { Frame(kind: .path, level: level, paths: paths) }

        static func noteWay(level: Int, paths: UInt8) -> Frame { Frame(kind: .noteWay, notePaths: paths, level: level) }
    }

    /// What the next value inside a note is to it: one byte, which the replay compares on every event of
    /// a note.
    enum NoteRole: UInt8 {
        case none
        case id
        case title
        case other
        /// An object inside the note that may lead to the id or title (``descent``).
        case descend
        /// A member of the first note that may hold its id when it has no `id` (``PathDetection/id``).
        case idCandidate
    }

    /// What the next value is to the page.
    enum Role {
        case none
        case items
        case next
        /// The value of ``PageConfiguration/fieldPaths``'s element at this index.
        case field(Int)
        case descend(level: Int, paths: PathMask)
        case skip
        /// A top-level array that may be the items (``PathDetection/items``).
        case candidate
    }

    let configuration: PageConfiguration
    var notePaths: NotePaths
    let ids: IDSet

    var frames: Stack<Frame>
    var role = Role.none
    var noteRole = NoteRole.none
    /// Where a ``NoteRole/descend`` object is, in the note: its level and the paths it is on the way to.
    var descent: (level: Int, paths: UInt8) = (0, 0)
    var started = false
    var foundItems = false
    var isBareArray = false
    var foundNext = false
    /// Whether the next value came before the items (as Django REST framework writes it).
    var nextBeforeItems = false
    var nextCursor: [UInt8]?
    /// The compact JSON of a next value that is an object or an array (DynamoDB's `LastEvaluatedKey`).
    var nextJSON: [UInt8]?
    /// The values found at ``PageConfiguration/fieldPaths``, in its order.
    var fields: [FieldValue?]
    /// Notes left out as duplicates (``PageConfiguration/duplicates`` is `.skip`).
    var skippedCount = 0
    /// The top-level key whose array was taken for the items (``PathDetection/items``).
    var detectedItems: [UInt8]?
    /// Whether the array taken for the items had no elements: an array of objects met later takes its place.
    var detectedItemsEmpty = false
    /// The key of the ``Frame/candidate`` array open.
    var candidateKey: [UInt8] = []
    /// Top-level arrays not taken for the items (of other values, or after the items), for a message.
    var otherArrays: [String] = []

    /// The id of the last note of the page so far, kept or skipped (keyset pagination goes on after it).
    var lastIDBytes = ByteBuffer()

    var lastID: [UInt8]? { noteCount == 0 ? nil : Array(lastIDBytes.bytes) }

    /// Notes finished since the caller last took them.
    var notes = NoteBatch()
    var noteCount = 0
    var failure: PageError?
    /// Where ``failure`` is, when not where the parse stopped.
    var failureOffset: Int?

    /// Whether the notes being read must have a title (``PageConfiguration/titleRule``), as of their array.
    var titleRequired = true
    /// Whether the configuration's items path is the notes contract's `notes`.
    let itemsAreNotes: Bool
    /// Whether the first note has yet to say where ids are (``PathDetection/id``), and the members it has
    /// that may hold its id when it has no `id`: their keys and values.
    var detectingID: Bool
    var idCandidates: [(key: [UInt8], value: [UInt8])] = []
    var idCandidateKey: [UInt8] = []
    /// The id key found on the first note, when it had no `id`.
    var detectedID: [UInt8]?

    // The note being read.
    var noteID = ByteBuffer()
    var noteTitle = ByteBuffer()
    var hasID = false
    /// The id's hash in the id set, from when it was read (``IDSet/prepare(_:)``), and where the id ends
    /// in the document: a duplicate, found at the note's end, is reported there.
    var idHash: UInt32 = 0
    var idEnd = 0
    /// Whether the note's id is read and not yet in the id set.
    var idPending = false
    /// Where the event being handled ends in the document: set for each event replayed from a parsed block
    /// (-1 otherwise), else read from the parser calling back (``tokenEnd``).
    var replayedEnd = -1
    var tokenEnd: JSONTokenEnd?
    var hasTitle = false
    /// Whether the note being read repeats an id and is to be left out (known at its end).
    var isDuplicate = false
    var writer = CompactJSONWriter()
    /// Whether the key or string being handled had no escape in the document
    /// (``NotesJSON/JSONEventHandler/handle(plainText:)``): the writer copies it as it is.
    var plainText = false

    /// The record key's bytes (``PageConfiguration/recordKey``), and for the item being read whether the
    /// next value is the record and whether it had one.
    let recordKey: [UInt8]?
    var atRecord = false
    var itemHasRecord = false

    /// The compact JSON of each field path's object or array, when at most
    /// ``PageDecoder/maxFieldJSONBytes`` (a GraphQL response's `errors`).
    var fieldJSON: [[UInt8]?]
    /// The container at a field path being copied: its index, its depth, its text.
    var captureIndex = 0
    var captureDepth = 0
    var capture = CompactJSONWriter(capacity: 256)

    init(configuration: PageConfiguration, ids: IDSet) {
        self.configuration = configuration
        self.notePaths = NotePaths(configuration)
        self.ids = ids
        fields = Array(repeating: nil, count: configuration.fieldPaths.count)
        fieldJSON = Array(repeating: nil, count: configuration.fieldPaths.count)
        recordKey = configuration.recordKey.map { Array($0.utf8) }
        itemsAreNotes = configuration.itemsPath.components == [Array("notes".utf8)]
        detectingID = configuration.detects.contains(.id)
        // yajl never sees a bracket past the depth limit (the scanner stops it), so this never grows.
        frames = Stack(capacity: configuration.limits.maxDepth + 1)
    }

    @inline(__always)
    mutating func handle(_ event: JSONEvent) -> Bool {
        guard let frame = frames.last else { return top(event) }
        switch frame.kind {
        case .note: return inNote(event, level: 0, paths: notePaths.all)
        case .noteWay: return inNote(event, level: frame.level, paths: frame.notePaths)
        case .inNote: return inNote(event, level: -1, paths: 0)
        case .items: return inItems(event)
        case .recordItem: return inRecordItem(event)
        case .capture: return inCapture(event)
        case .candidate: return inCandidate(event)
        case .path: return inPath(event, level: frame.level, paths: frame.paths)
        case .skip:
            switch event {
            case .startObject, .startArray: frames.append(.skip)
            case .endObject, .endArray: frames.removeLast()
            default: break
            }
            return true
        }
    }

    /// Takes an event of `shape` (a key of `byteCount` bytes) that matters to the page for its nesting
    /// alone, as ``handle(_:)`` would take it, when the notes' JSON is not kept: anything in a container
    /// skipped or inside a note off the id and title paths, a note's key that can start neither (its length
    /// tells), and the value of a member that leads to neither. - Returns: Whether it took it; the event
    /// goes to ``handle(_:)`` when not.
    @inline(__always)
    mutating func passOver(_ shape: RecordedEvents.Shape, byteCount: Int) -> Bool {
        guard frames.count > 0 else { return false }
        switch frames.base[frames.count - 1].kind {
        case .inNote, .skip:
            switch shape {
            case .open: frames.append(frames.base[frames.count - 1])  // the same kind: these carry nothing else
            case .close: frames.removeLast()
            case .key, .scalar, .pieceEnd: break
            }
            return true
        case .note:
            // The note's own members: a key, or the value of a member that leads to no path.
            switch shape {
            case .key:
                guard !detectingID, !notePaths.mayStart(keyBytes: byteCount) else { return false }
                noteRole = .other
                return true
            case .scalar:
                guard case .other = noteRole else { return false }
            case .open:
                guard case .other = noteRole else { return false }
                frames.append(.inNote)
            case .close, .pieceEnd: return false
            }
            noteRole = .none
            return true
        case .noteWay:
            // As a note's own values, apart: one case for both, its keys sent on, cost the replay some 15 M
            // instructions more over 100,000 notes (the compiler lays the merged switch out worse).
            switch shape {
            case .scalar:
                guard case .other = noteRole else { return false }
            case .open:
                guard case .other = noteRole else { return false }
                frames.append(.inNote)
            case .key, .close, .pieceEnd: return false
            }
            noteRole = .none
            return true
        case .items, .recordItem, .capture, .candidate, .path:
            return false
        }
    }

    // MARK: - States

    mutating func top(_ event: JSONEvent) -> Bool {
        precondition(!started, "one document per page")
        started = true
        switch event {
        case .startObject:
            frames.append(.path(level: 0, paths: PathMask(all: configuration.fieldPaths.count)))
            return true
        case .startArray:
            foundItems = true
            isBareArray = true
            titleRequired = configuration.titleRule == .required
            frames.append(.items)
            return true
        default:
            return fail(.notAPage, "the page is a JSON scalar, not an object or array")
        }
    }
}
