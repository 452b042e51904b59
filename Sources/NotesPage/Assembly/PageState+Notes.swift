import NotesJSON

// The items array and each note in it: the id and title checked against the contract, the note's exact
// JSON kept, the id taken by the id set.

extension PageState {
    mutating func inItems(_ event: JSONEvent) -> Bool {
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
    mutating func startNote() -> Bool {
        if noteCount == configuration.maxPageNotes {
            let limit = configuration.maxPageNotes
            return fail(.limitExceeded(.pageNotes(limit)), "more than \(limit) notes on the page")
        }
        frames.append(.note)
        // `noteID` and `noteTitle` are replaced when their member is read, never cleared here.
        hasID = false
        idPending = false
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
    mutating func inRecordItem(_ event: JSONEvent) -> Bool {
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

    /// An event inside a note: `level` keys below the note (0: the note object itself, -1: a container off
    /// the id and title paths), `paths` the ones this object is on the way to (``NotePaths``).
    @inline(__always)
    mutating func inNote(_ event: JSONEvent, level: Int, paths: UInt8) -> Bool {
        let role = paths != 0 ? noteRole : .other
        if paths != 0 { noteRole = .none }
        let keeps = configuration.keepsJSON
        switch event {
        case .key(let key):
            if keeps { writer.key(key, plain: plainText) }
            guard paths != 0 else { return true }
            switch notePaths.match(key, level: level, paths: paths) {
            case NotePaths.idEnd:
                if hasID { return fail(.duplicateField, "note has two '\(notePaths.id)' fields", note: noteCount) }
                noteRole = .id
            case NotePaths.titleEnd:
                if hasTitle {
                    return fail(
                        .duplicateField, "note has two '\(notePaths.title?.description ?? "title")' fields",
                        note: noteCount)
                }
                noteRole = .title
            case 0:
                if detectingID, level == 0, PathDetection.idNames.contains(where: { $0.utf8.elementsEqual(key) }) {
                    idCandidateKey = Array(key.assumingMemoryBound(to: UInt8.self))
                    noteRole = .idCandidate
                } else {
                    noteRole = .other
                }
            case let along:
                noteRole = .descend
                descent = (level + 1, along)
            }
            return true
        case .string(let text):
            switch role {
            case .id:
                return acceptID(text) && write(string: text)
            case .title:
                hasTitle = true
                // Only a note built needs its title's bytes.
                if configuration.keepsNotes { noteTitle.set(text) }
                return write(string: text)
            case .idCandidate:
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
            case .id:
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
            case .title where titleRequired:
                return fail(.invalidTitle, "title is \(Self.describe(event)), not a string", note: noteCount)
            case .idCandidate:
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
            if role == .descend, case .startObject = event {
                frames.append(.noteWay(level: descent.level, paths: descent.paths))
            } else if event.isStart {
                frames.append(.inNote)
            }
            return true
        }
    }

    /// What makes a JSON number's text not an integer (`a fraction`, `an exponent`), or `nil` when it is one.
    static func nonInteger(_ text: UnsafeRawBufferPointer) -> String? {
        for byte in text {
            if byte == UInt8(ascii: ".") { return "a fraction" }
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return "an exponent" }
        }
        return nil
    }

    /// At most 24 bytes of a number's text, for a message.
    static func raw(_ text: UnsafeRawBufferPointer) -> String {
        let shown = String(decoding: text.prefix(24), as: UTF8.self)
        return text.count > 24 ? shown + "…" : shown
    }

    mutating func write(string text: UnsafeRawBufferPointer) -> Bool {
        if configuration.keepsJSON { writer.value(string: text, plain: plainText) }
        return true
    }

    mutating func acceptID(_ text: UnsafeRawBufferPointer) -> Bool {
        if text.isEmpty { return fail(.invalidID, "id is an empty string", note: noteCount) }
        if text.count > IDSet.maxIDBytes {
            return fail(.invalidID, "id longer than \(IDSet.maxIDBytes) bytes", note: noteCount)
        }
        // Taken into the id set when the note ends (``insertID()``): its slot is fetched meanwhile.
        idHash = ids.prepare(text)
        idEnd = replayedEnd >= 0 ? replayedEnd : tokenEnd?.offset ?? 0
        idPending = true
        hasID = true
        noteID.set(text)
        return true
    }

    /// The note's id into the run's id set: a duplicate fails the page, or is left out when asked.
    mutating func insertID() -> Bool {
        idPending = false
        guard case .duplicate(let page) = ids.insert(noteID.bytes, hash: idHash) else { return true }
        if configuration.duplicates == .skip {
            isDuplicate = true
            return true
        }
        failure = duplicateError(firstPage: page)
        failureOffset = idEnd
        return false
    }

    /// The error of a note whose id the run has seen on page `firstPage`, at the id.
    func duplicateError(firstPage page: Int) -> PageError {
        let onPage = page == ids.committedPages ? "earlier on this page" : "on page \(page + 1)"
        return PageError(
            .duplicateID(firstPage: page), message: "duplicate id \(Self.quote(noteID.bytes)), seen \(onPage)",
            offset: idEnd, noteIndex: noteCount)
    }

    /// The duplicate-id error of the note being read, when another fault of the page comes after its id
    /// and before its end: the id comes first in the body, so its error is the page's (as when ids were
    /// taken as read). `nil` when the id is new, or duplicates are skipped. The id joins the open page,
    /// which the fault rolls back.
    mutating func pendingDuplicate() -> PageError? {
        guard idPending, configuration.duplicates != .skip else { return nil }
        idPending = false
        guard case .duplicate(let page) = ids.insert(noteID.bytes, hash: idHash) else { return nil }
        return duplicateError(firstPage: page)
    }

    mutating func finishNote() -> Bool {
        if detectingID {
            guard decideID() else { return false }
        }
        guard hasID else { return fail(.missingID, "note has no '\(notePaths.id)'", note: noteCount) }
        guard insertID() else { return false }
        guard hasTitle || notePaths.title == nil || !titleRequired else {
            return fail(.missingTitle, "note has no '\(notePaths.title!)'", note: noteCount)
        }
        frames.removeLast()
        noteCount += 1
        if isDuplicate {
            skippedCount += 1
        } else if !configuration.keepsNotes {
            // Read, checked and counted; nobody asked for the note itself.
        } else if configuration.keepsJSON {
            writer.close(UInt8(ascii: "}"))
            notes.append(
                id: noteID.bytes, title: hasTitle ? noteTitle.bytes : .init(start: nil, count: 0), json: writer.bytes)
        } else {
            notes.append(id: noteID.bytes, title: hasTitle ? noteTitle.bytes : .init(start: nil, count: 0), json: nil)
        }
        // The buffers trade places, so keeping the last id costs no copy: the next note's id replaces what
        // `noteID` then holds.
        swap(&noteID, &lastIDBytes)
        return true
    }

    /// The first note has ended: without an `id`, the one member of ``PathDetection/idNames`` it has
    /// (a string or an integer) is its id, and the id path of the notes after it.
    mutating func decideID() -> Bool {
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
}
