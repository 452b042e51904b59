import NotesJSON

/// Receives the parser's events for a ``PageState``.
///
/// The state lives behind a pointer the assembler owns, not in a stored property: a class's stored
/// property costs a dynamic exclusivity check on every access, and this one is touched on every event
/// (measured: about a sixth of the instructions of a decode). Only the decoder that owns this assembler
/// touches the state, never concurrently with a parse.
final class PageAssembler: JSONEventHandler {
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
}

/// The state machine that turns JSON events into notes: it follows the items and next paths, checks each
/// note against the contract, and records the first contract error it meets.
///
/// It never throws from a callback: it returns `false` to stop yajl and keeps the reason in ``failure``.
struct PageState: ~Copyable {
    /// What an open container is to the page.
    private enum Frame {
        /// An object on the way to some of the paths (``PathMask``), `level` keys deep.
        case path(level: Int, paths: PathMask)
        /// The notes array.
        case items
        /// A top-level array that may be the items (``PathDetection/items``), before its first element.
        case candidate
        /// An item holding the record at ``PageConfiguration/recordKey`` (a GraphQL edge).
        case recordItem
        /// A note object.
        case note
        /// An object inside a note on the way to its id or title (``NotePaths``), `level` keys deep.
        case noteWay(level: Int, paths: UInt8)
        /// A container inside a note: copied to the note's JSON.
        case inNote
        /// An object or array at a field path, copied to ``PageState/fieldJSON`` (``capture``).
        case capture
        /// A container of no interest.
        case skip
    }

    /// What the next value is to the page.
    private enum Role {
        case none
        case items
        case next
        /// The value of ``PageConfiguration/fieldPaths``'s element at this index.
        case field(Int)
        case descend(level: Int, paths: PathMask)
        case skip
        case noteID
        case noteTitle
        case noteOther
        /// A top-level array that may be the items (``PathDetection/items``).
        case candidate
        /// An object inside the note that may lead to the id or title.
        case noteDescend(level: Int, paths: UInt8)
        /// A member of the first note that may hold its id when it has no `id` (``PathDetection/id``).
        case noteIDCandidate
    }

    private let configuration: PageConfiguration
    private var notePaths: NotePaths
    let ids: IDSet

    private var frames: Stack<Frame>
    private var role = Role.none
    private var started = false
    private(set) var foundItems = false
    private(set) var isBareArray = false
    private(set) var foundNext = false
    /// Whether the next value came before the items (as Django REST framework writes it).
    private(set) var nextBeforeItems = false
    private(set) var nextCursor: [UInt8]?
    /// The compact JSON of a next value that is an object or an array (DynamoDB's `LastEvaluatedKey`).
    private(set) var nextJSON: [UInt8]?
    /// The values found at ``PageConfiguration/fieldPaths``, in its order.
    private(set) var fields: [FieldValue?]
    /// Notes left out as duplicates (``PageConfiguration/duplicates`` is `.skip`).
    private(set) var skippedCount = 0
    /// The top-level key whose array was taken for the items (``PathDetection/items``).
    private(set) var detectedItems: [UInt8]?
    /// Whether the array taken for the items had no elements: an array of objects met later takes its place.
    private var detectedItemsEmpty = false
    /// The key of the ``Frame/candidate`` array open.
    private var candidateKey: [UInt8] = []
    /// Top-level arrays not taken for the items (of other values, or after the items), for a message.
    private(set) var otherArrays: [String] = []

    /// The id of the last note of the page so far, kept or skipped (keyset pagination goes on after it).
    private var lastIDBytes: [UInt8] = []

    var lastID: [UInt8]? { noteCount == 0 ? nil : lastIDBytes }

    /// Notes finished since the caller last took them.
    var notes: [Note] = []
    private(set) var noteCount = 0
    private(set) var failure: PageError?

    /// Whether the notes being read must have a title (``PageConfiguration/titleRule``), as of their array.
    private var titleRequired = true
    /// Whether the configuration's items path is the notes contract's `notes`.
    private let itemsAreNotes: Bool
    /// Whether the first note has yet to say where ids are (``PathDetection/id``), and the members it has
    /// that may hold its id when it has no `id`: their keys and values.
    private var detectingID: Bool
    private var idCandidates: [(key: [UInt8], value: [UInt8])] = []
    private var idCandidateKey: [UInt8] = []
    /// The id key found on the first note, when it had no `id`.
    private(set) var detectedID: [UInt8]?

    // The note being read.
    private var noteID: [UInt8] = []
    private var noteTitle: [UInt8] = []
    private var hasID = false
    private var hasTitle = false
    /// Whether the note being read repeats an id and is to be left out.
    private var isDuplicate = false
    private var writer = CompactJSONWriter()

    /// The record key's bytes (``PageConfiguration/recordKey``), and for the item being read whether the
    /// next value is the record and whether it had one.
    private let recordKey: [UInt8]?
    private var atRecord = false
    private var itemHasRecord = false

    /// The compact JSON of each field path's object or array, when at most
    /// ``PageDecoder/maxFieldJSONBytes`` (a GraphQL response's `errors`).
    private(set) var fieldJSON: [[UInt8]?]
    /// The container at a field path being copied: its index, its depth, its text.
    private var captureIndex = 0
    private var captureDepth = 0
    private var capture = CompactJSONWriter(capacity: 256)

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

    mutating func handle(_ event: JSONEvent) -> Bool {
        guard let frame = frames.last else { return top(event) }
        switch frame {
        case .note: return inNote(event, level: 0, paths: notePaths.all)
        case .noteWay(let level, let paths): return inNote(event, level: level, paths: paths)
        case .inNote: return inNote(event, level: -1, paths: 0)
        case .items: return inItems(event)
        case .recordItem: return inRecordItem(event)
        case .capture: return inCapture(event)
        case .candidate: return inCandidate(event)
        case .path(let level, let paths): return inPath(event, level: level, paths: paths)
        case .skip:
            switch event {
            case .startObject, .startArray: frames.append(.skip)
            case .endObject, .endArray: frames.removeLast()
            default: break
            }
            return true
        }
    }

    // MARK: - States

    private mutating func top(_ event: JSONEvent) -> Bool {
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

    private mutating func inPath(_ event: JSONEvent, level: Int, paths: PathMask) -> Bool {
        if case .key(let key) = event {
            role = pathRole(for: key, level: level, paths: paths)
            if level == 0, configuration.detects.contains(.items) {
                if case .skip = role {
                    role = .candidate
                    candidateKey = Array(key.assumingMemoryBound(to: UInt8.self))
                } else if case .items = role, let detected = detectedItems {
                    // The items where the configuration says, after an array taken for them.
                    if !detectedItemsEmpty { return ambiguous(detected, Array(configuration.itemsPath.components[0])) }
                    foundItems = false
                    detectedItems = nil
                }
            }
            switch role {
            case .items where foundItems:
                return fail(.duplicateKey, "'\(configuration.itemsPath)' appears twice")
            case .next where foundNext:
                return fail(.duplicateKey, "'\(configuration.nextPath)' appears twice")
            case .field(let index) where fields[index] != nil:
                return fail(.duplicateKey, "'\(configuration.fieldPaths[index])' appears twice")
            default:
                return true
            }
        }
        let role = self.role
        self.role = .none
        switch (role, event) {
        case (_, .endObject):
            frames.removeLast()
        case (.items, .startArray):
            foundItems = true
            titleRequired = configuration.titleRule == .required || itemsAreNotes
            frames.append(.items)
        case (.candidate, .startArray):
            frames.append(.candidate)
        case (.items, _):
            return fail(.itemsNotArray, "'\(configuration.itemsPath)' is \(Self.describe(event)), not an array")
        case (.next, .string(let text)), (.next, .number(let text)):
            foundNext = true
            nextBeforeItems = !foundItems
            nextCursor = text.isEmpty ? nil : Array(text.assumingMemoryBound(to: UInt8.self))
        case (.next, .null):
            foundNext = true
            nextBeforeItems = !foundItems
        case (.next, .startObject), (.next, .startArray):
            // A cursor that is a JSON value: kept as its compact JSON.
            foundNext = true
            nextBeforeItems = !foundItems
            captureIndex = -1
            captureDepth = 0
            capture.reset()
            frames.append(.capture)
            return inCapture(event)
        case (.next, _):
            return fail(
                .invalidNext, "'\(configuration.nextPath)' is \(Self.describe(event)), not a string, number or null")
        case (.field(let index), _):
            fields[index] = FieldValue(event, describe: Self.describe)
            if event.isStart {
                captureIndex = index
                captureDepth = 0
                capture.reset()
                frames.append(.capture)
                return inCapture(event)
            }
        case (.descend(let level, let paths), .startObject):
            frames.append(.path(level: level, paths: paths))
        case (_, .startObject), (_, .startArray):
            frames.append(.skip)
        default:
            break
        }
        return true
    }

    private func pathRole(for key: UnsafeRawBufferPointer, level: Int, paths: PathMask) -> Role {
        var along = PathMask()
        /// Whether `key` is the last key of `path` (`true`), on the way to it (`false`, noted in `along`),
        /// or off it (`nil`).
        func reaches(_ path: FieldPath, _ bit: Int) -> Bool? {
            let components = path.components
            guard paths.contains(bit), level < components.count, key.elementsEqual(components[level]) else {
                return nil
            }
            if level + 1 == components.count { return true }
            along.insert(bit)
            return false
        }
        if reaches(configuration.itemsPath, PathMask.items) == true { return .items }
        if reaches(configuration.nextPath, PathMask.next) == true { return .next }
        for (index, path) in configuration.fieldPaths.enumerated() where reaches(path, PathMask.field(index)) == true {
            return .field(index)
        }
        return along.isEmpty ? .skip : .descend(level: level + 1, paths: along)
    }

    /// The first event inside a top-level array that may be the items: an object makes it the items (the
    /// first such array, or the one with a common name), anything else makes it an array of no interest.
    private mutating func inCandidate(_ event: JSONEvent) -> Bool {
        let name = String(decoding: candidateKey, as: UTF8.self)
        let common = PathDetection.itemNames.contains(name)
        switch event {
        case .startObject:
            if foundItems && !detectedItemsEmpty {
                // Items came first: an array taken for them, or the one where the configuration says (which
                // counts as a common name).
                let chosen = detectedItems ?? Array(configuration.itemsPath.components[0])
                let chosenCommon =
                    detectedItems.map { PathDetection.itemNames.contains(String(decoding: $0, as: UTF8.self)) } ?? true
                guard chosenCommon && !common else { return ambiguous(chosen, candidateKey) }
                noteOtherArray(name)
                frames.replaceLast(with: .skip)
                frames.append(.skip)
                return true
            }
            foundItems = true
            detectedItems = candidateKey
            detectedItemsEmpty = false
            titleRequired = configuration.titleRule == .required || name == "notes"
            frames.replaceLast(with: .items)
            return inItems(event)
        case .endArray:
            frames.removeLast()
            if common, !foundItems {
                foundItems = true
                detectedItems = candidateKey
                detectedItemsEmpty = true
            } else {
                noteOtherArray(name)
            }
            return true
        default:
            noteOtherArray(name)
            frames.replaceLast(with: .skip)
            if event.isStart { frames.append(.skip) }
            return true
        }
    }

    private mutating func noteOtherArray(_ name: String) {
        if otherArrays.count < 8 { otherArrays.append(name) }
    }

    private mutating func ambiguous(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        let names = [first, second].map { "'\(String(decoding: $0, as: UTF8.self).prefix(40))'" }
        return fail(
            .ambiguousPaths,
            "the page has two arrays of objects that could be the items, \(names[0]) and \(names[1]): pass --items-path"
        )
    }

    private mutating func inItems(_ event: JSONEvent) -> Bool {
        switch event {
        case .startObject where recordKey != nil:
            frames.append(.recordItem)
            atRecord = false
            itemHasRecord = false
            return true
        case .startObject:
            return startNote()
        case .endArray:
            frames.removeLast()
            return true
        default:
            return fail(.noteNotObject, "item \(noteCount) is \(Self.describe(event)), not an object", note: noteCount)
        }
    }

    /// A note object starts: the notes cap, then a fresh id, title and JSON.
    private mutating func startNote() -> Bool {
        if noteCount == configuration.maxPageNotes {
            let limit = configuration.maxPageNotes
            return fail(.limitExceeded(.pageNotes(limit)), "more than \(limit) notes on the page")
        }
        frames.append(.note)
        noteID.removeAll(keepingCapacity: true)
        noteTitle.removeAll(keepingCapacity: true)
        hasID = false
        hasTitle = false
        isDuplicate = false
        if configuration.keepsJSON {
            writer.reset()
            writer.open(UInt8(ascii: "{"))
        }
        return true
    }

    /// An event in an item that holds its record at ``PageConfiguration/recordKey``: the record is read as
    /// a note, the item's other members are skipped.
    private mutating func inRecordItem(_ event: JSONEvent) -> Bool {
        let key = configuration.recordKey ?? ""
        switch event {
        case .key(let name):
            atRecord = name.elementsEqual(recordKey ?? [])
            if atRecord && itemHasRecord {
                // The record read is counted already.
                return fail(.duplicateField, "item \(noteCount - 1) has two '\(key)' fields", note: noteCount - 1)
            }
            return true
        case .startObject where atRecord:
            atRecord = false
            itemHasRecord = true
            return startNote()
        case .endObject:
            frames.removeLast()
            guard itemHasRecord else {
                return fail(.noteNotObject, "item \(noteCount) has no '\(key)' object", note: noteCount)
            }
            return true
        case _ where atRecord:
            return fail(
                .noteNotObject, "item \(noteCount)'s '\(key)' is \(Self.describe(event)), not an object",
                note: noteCount)
        case .startObject, .startArray:
            frames.append(.skip)
            return true
        default:
            return true
        }
    }

    /// An event in an object or array at a field path: copied as compact JSON while it fits in
    /// ``PageDecoder/maxFieldJSONBytes``, then only followed to its end.
    private mutating func inCapture(_ event: JSONEvent) -> Bool {
        let fits = capture.bytes.count <= PageDecoder.maxFieldJSONBytes
        switch event {
        case .startObject:
            captureDepth += 1
            if fits { capture.open(UInt8(ascii: "{")) }
        case .startArray:
            captureDepth += 1
            if fits { capture.open(UInt8(ascii: "[")) }
        case .endObject, .endArray:
            captureDepth -= 1
            if fits { capture.close(event.isEndObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
            if captureDepth == 0 {
                frames.removeLast()
                if captureIndex < 0 {
                    // A next value: one that does not fit is no next value to send back.
                    guard capture.bytes.count <= PageDecoder.maxFieldJSONBytes else {
                        return fail(
                            .invalidNext,
                            "'\(configuration.nextPath)' is over \(PageDecoder.maxFieldJSONBytes) bytes of JSON")
                    }
                    nextJSON = Array(capture.bytes)
                } else if capture.bytes.count <= PageDecoder.maxFieldJSONBytes {
                    fieldJSON[captureIndex] = Array(capture.bytes)
                }
            }
        case .key(let key):
            if fits { capture.key(key) }
        case .string(let text):
            if fits { capture.value(string: text) }
        case .number(let text):
            if fits { capture.value(raw: text) }
        case .bool(let value):
            if fits { capture.value(literal: value ? "true" : "false") }
        case .null:
            if fits { capture.value(literal: "null") }
        }
        return true
    }

    /// An event inside a note: `level` keys below the note (0: the note object itself, -1: a container off
    /// the id and title paths), `paths` the ones this object is on the way to (``NotePaths``).
    private mutating func inNote(_ event: JSONEvent, level: Int, paths: UInt8) -> Bool {
        let role = paths != 0 ? self.role : .noteOther
        if paths != 0 { self.role = .none }
        let keeps = configuration.keepsJSON
        switch event {
        case .key(let key):
            if keeps { writer.key(key) }
            guard paths != 0 else { return true }
            switch notePaths.match(key, level: level, paths: paths) {
            case NotePaths.idEnd:
                if hasID { return fail(.duplicateField, "note has two '\(notePaths.id)' fields", note: noteCount) }
                self.role = .noteID
            case NotePaths.titleEnd:
                if hasTitle {
                    return fail(
                        .duplicateField, "note has two '\(notePaths.title?.description ?? "title")' fields",
                        note: noteCount)
                }
                self.role = .noteTitle
            case 0:
                if detectingID, level == 0, PathDetection.idNames.contains(where: { $0.utf8.elementsEqual(key) }) {
                    idCandidateKey = Array(key.assumingMemoryBound(to: UInt8.self))
                    self.role = .noteIDCandidate
                } else {
                    self.role = .noteOther
                }
            case let along:
                self.role = .noteDescend(level: level + 1, paths: along)
            }
            return true
        case .string(let text):
            switch role {
            case .noteID:
                return acceptID(text) && write(string: text)
            case .noteTitle:
                hasTitle = true
                noteTitle.append(contentsOf: text.assumingMemoryBound(to: UInt8.self))
                return write(string: text)
            case .noteIDCandidate:
                idCandidates.append((idCandidateKey, Array(text.assumingMemoryBound(to: UInt8.self))))
                return write(string: text)
            default:
                return write(string: text)
            }
        case .endObject where level == 0:
            return finishNote()
        case .endObject, .endArray:
            if keeps { writer.close(event.isEndObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
            frames.removeLast()
            return true
        default:
            switch role {
            case .noteID:
                guard case .number(let text) = event else {
                    return fail(
                        .invalidID, "id is \(Self.describe(event)), not a string or an integer", note: noteCount)
                }
                if let kind = Self.nonInteger(text) {
                    return fail(
                        .invalidID, "id is a number with \(kind) (\(Self.raw(text))), not a string or an integer",
                        note: noteCount)
                }
                guard acceptID(text) else { return false }
            case .noteTitle where titleRequired:
                return fail(.invalidTitle, "title is \(Self.describe(event)), not a string", note: noteCount)
            case .noteIDCandidate:
                if case .number(let text) = event, Self.nonInteger(text) == nil {
                    idCandidates.append((idCandidateKey, Array(text.assumingMemoryBound(to: UInt8.self))))
                }
            default:
                break
            }
            if keeps {
                switch event {
                case .startObject: writer.open(UInt8(ascii: "{"))
                case .startArray: writer.open(UInt8(ascii: "["))
                case .number(let text): writer.value(raw: text)
                case .bool(let value): writer.value(literal: value ? "true" : "false")
                case .null: writer.value(literal: "null")
                default: break
                }
            }
            if case .noteDescend(let level, let paths) = role, case .startObject = event {
                frames.append(.noteWay(level: level, paths: paths))
            } else if event.isStart {
                frames.append(.inNote)
            }
            return true
        }
    }

    /// What makes a JSON number's text not an integer (`a fraction`, `an exponent`), or `nil` when it is one.
    private static func nonInteger(_ text: UnsafeRawBufferPointer) -> String? {
        for byte in text {
            if byte == UInt8(ascii: ".") { return "a fraction" }
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return "an exponent" }
        }
        return nil
    }

    /// At most 24 bytes of a number's text, for a message.
    private static func raw(_ text: UnsafeRawBufferPointer) -> String {
        let shown = String(decoding: text.prefix(24), as: UTF8.self)
        return text.count > 24 ? shown + "…" : shown
    }

    private mutating func write(string text: UnsafeRawBufferPointer) -> Bool {
        if configuration.keepsJSON { writer.value(string: text) }
        return true
    }

    private mutating func acceptID(_ text: UnsafeRawBufferPointer) -> Bool {
        if text.isEmpty { return fail(.invalidID, "id is an empty string", note: noteCount) }
        if text.count > IDSet.maxIDBytes {
            return fail(.invalidID, "id longer than \(IDSet.maxIDBytes) bytes", note: noteCount)
        }
        if case .duplicate(let page) = ids.insert(text) {
            if configuration.duplicates == .skip {
                isDuplicate = true
                hasID = true
                noteID.append(contentsOf: text.assumingMemoryBound(to: UInt8.self))
                return true
            }
            let onPage = page == ids.committedPages ? "earlier on this page" : "on page \(page + 1)"
            return fail(
                .duplicateID(firstPage: page), "duplicate id \(Self.quote(text)), seen \(onPage)", note: noteCount)
        }
        hasID = true
        noteID.append(contentsOf: text.assumingMemoryBound(to: UInt8.self))
        return true
    }

    private mutating func finishNote() -> Bool {
        if detectingID {
            guard decideID() else { return false }
        }
        guard hasID else { return fail(.missingID, "note has no '\(notePaths.id)'", note: noteCount) }
        guard hasTitle || notePaths.title == nil || !titleRequired else {
            return fail(.missingTitle, "note has no '\(notePaths.title!)'", note: noteCount)
        }
        frames.removeLast()
        noteCount += 1
        if isDuplicate {
            skippedCount += 1
        } else if configuration.keepsJSON {
            writer.close(UInt8(ascii: "}"))
            notes.append(Note(id: noteID, title: noteTitle, json: writer.bytes))
        } else {
            notes.append(Note(id: noteID, title: noteTitle, json: nil))
        }
        // The buffers trade places, so keeping the last id costs no copy: the next note clears `noteID`.
        swap(&noteID, &lastIDBytes)
        return true
    }

    /// The first note has ended: without an `id`, the one member of ``PathDetection/idNames`` it has
    /// (a string or an integer) is its id, and the id path of the notes after it.
    private mutating func decideID() -> Bool {
        detectingID = false
        let candidates = idCandidates
        idCandidates = []
        guard !hasID else { return true }
        guard candidates.count < 2 else {
            let names = candidates.prefix(2).map { "'\(String(decoding: $0.key, as: UTF8.self))'" }
            return fail(
                .ambiguousPaths,
                "note has no '\(notePaths.id)' and two members that could be its id, \(names[0]) and \(names[1]): pass --id-path",
                note: noteCount)
        }
        guard let (key, value) = candidates.first else {
            let names = PathDetection.idNames.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
            return fail(
                .missingID, "note has no '\(notePaths.id)' (nor \(names) or the like): pass --id-path", note: noteCount)
        }
        notePaths = NotePaths(id: FieldPath(components: [key]), title: notePaths.title)
        detectedID = key
        return value.withUnsafeBytes { acceptID($0) }
    }

    // MARK: - Errors

    private mutating func fail(_ code: PageError.Code, _ message: String, note: Int? = nil) -> Bool {
        failure = PageError(code, message: message, offset: 0, noteIndex: note)
        return false
    }

    private static func describe(_ event: JSONEvent) -> String {
        switch event {
        case .startObject: return "an object"
        case .startArray: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .key, .endObject, .endArray: return "misplaced"
        }
    }

    /// At most 24 bytes of `text`, as a JSON string, so a message stays short.
    static func quote(_ text: UnsafeRawBufferPointer) -> String {
        var writer = CompactJSONWriter()
        let shown = text.count <= 24 ? text : UnsafeRawBufferPointer(rebasing: text[..<24])
        writer.value(string: shown)
        var quoted = String(decoding: writer.bytes, as: UTF8.self)
        if shown.count < text.count { quoted.insert(contentsOf: "…", at: quoted.index(before: quoted.endIndex)) }
        return quoted
    }
}

/// A note's id and title paths, as the state machine asks about them: for a key at a level of the note,
/// whether it ends either path, leads on to one, or neither. Bit 0 is the id path, bit 1 the title path.
private struct NotePaths {
    static let idBit: UInt8 = 1
    static let titleBit: UInt8 = 2
    /// ``match(_:level:paths:)``'s answer for the key that ends the id path.
    static let idEnd: UInt8 = 0x10
    /// ``match(_:level:paths:)``'s answer for the key that ends the title path.
    static let titleEnd: UInt8 = 0x20

    let id: FieldPath
    let title: FieldPath?
    private let idKeys: [[UInt8]]
    private let titleKeys: [[UInt8]]
    /// The paths a note object starts on.
    let all: UInt8

    init(_ configuration: PageConfiguration) {
        self.init(id: configuration.idPath, title: configuration.titlePath)
    }

    init(id: FieldPath, title: FieldPath?) {
        self.id = id
        self.title = title
        idKeys = id.components
        titleKeys = title?.components ?? []
        all = title == nil ? Self.idBit : Self.idBit | Self.titleBit
    }

    /// ``idEnd`` or ``titleEnd`` when `key`, `level` keys below the note, ends that path; else the bits of
    /// the paths it leads on to (0 for none). The paths never overlap (``PageConfiguration/pathProblem``).
    @inline(__always)
    func match(_ key: UnsafeRawBufferPointer, level: Int, paths: UInt8) -> UInt8 {
        var along: UInt8 = 0
        if paths & Self.idBit != 0, level < idKeys.count, Self.equal(key, idKeys[level]) {
            if level + 1 == idKeys.count { return Self.idEnd }
            along |= Self.idBit
        }
        if paths & Self.titleBit != 0, level < titleKeys.count, Self.equal(key, titleKeys[level]) {
            if level + 1 == titleKeys.count { return Self.titleEnd }
            along |= Self.titleBit
        }
        return along
    }

    @inline(__always)
    private static func equal(_ key: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard key.count == expected.count else { return false }
        return expected.withUnsafeBytes { key.elementsEqual($0) }
    }
}

/// Which of a page's paths an object on the way may still lead to: bit 0 the items, bit 1 the next value,
/// bit 2 + i the field path i (at most 126 field paths: two words).
private struct PathMask {
    static let items = 0
    static let next = 1
    static func field(_ index: Int) -> Int { 2 + index }

    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init() {}

    /// The items, the next value and `fields` field paths.
    init(all fields: Int) {
        let count = 2 + fields
        low = count >= 64 ? .max : (1 << UInt64(count)) &- 1
        high = count <= 64 ? 0 : count >= 128 ? .max : (1 << UInt64(count - 64)) &- 1
    }

    var isEmpty: Bool { low == 0 && high == 0 }

    func contains(_ bit: Int) -> Bool {
        bit < 64 ? low & (1 << UInt64(bit)) != 0 : high & (1 << UInt64(bit - 64)) != 0
    }

    mutating func insert(_ bit: Int) {
        if bit < 64 { low |= 1 << UInt64(bit) } else { high |= 1 << UInt64(bit - 64) }
    }
}

extension FieldValue {
    /// The value an event starts; a container is described, not kept.
    fileprivate init(_ event: JSONEvent, describe: (JSONEvent) -> String) {
        switch event {
        case .string(let text): self = .string(String(decoding: text, as: UTF8.self))
        case .number(let text): self = .number(String(decoding: text, as: UTF8.self))
        case .bool(let value): self = .bool(value)
        case .null: self = .null
        default: self = .container(describe(event))
        }
    }
}

extension JSONEvent {
    fileprivate var isStart: Bool {
        switch self {
        case .startObject, .startArray: return true
        default: return false
        }
    }

    fileprivate var isEndObject: Bool {
        if case .endObject = self { return true }
        return false
    }
}

/// A stack of at most `capacity` elements in one allocation: no copy-on-write or uniqueness checks on the
/// hot path, as an array would have.
private struct Stack<Element>: ~Copyable {
    private let base: UnsafeMutablePointer<Element>
    private let capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var last: Element? { count > 0 ? base[count - 1] : nil }

    mutating func replaceLast(with element: Element) {
        precondition(count > 0)
        base[count - 1] = element
    }

    mutating func append(_ element: Element) {
        precondition(count < capacity, "nesting deeper than the depth limit")
        (base + count).initialize(to: element)
        count += 1
    }

    mutating func removeLast() {
        precondition(count > 0)
        count -= 1
        (base + count).deinitialize(count: 1)
    }
}
