import NotesJSON

// The page object on the way to its paths: the items, the next value, the captured fields, and the
// detection of an items array where no path was given.

extension PageState {
    mutating func inPath(_ event: JSONEvent, level: Int, paths: PathMask) -> Bool {
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

    func pathRole(for key: UnsafeRawBufferPointer, level: Int, paths: PathMask) -> Role {
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
    mutating func inCandidate(_ event: JSONEvent) -> Bool {
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

    mutating func noteOtherArray(_ name: String) {
        if otherArrays.count < 8 { otherArrays.append(name) }
    }

    mutating func ambiguous(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        let names = [first, second].map { "'\(String(decoding: $0, as: UTF8.self).prefix(40))'" }
        return fail(
            .ambiguousPaths,
            "the page has two arrays of objects that could be the items, \(names[0]) and \(names[1]): pass --items-path"
        )
    }
}
