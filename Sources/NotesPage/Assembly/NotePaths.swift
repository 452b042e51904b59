import NotesJSON

/// A note's id and title paths, as the state machine asks about them: for a key at a level of the note,
/// whether it ends either path, leads on to one, or neither. Bit 0 is the id path, bit 1 the title path.
struct NotePaths {
    static let idBit: UInt8 = 1
    static let titleBit: UInt8 = 2
    /// ``match(_:level:paths:)``'s answer for the key that ends the id path.
    static let idEnd: UInt8 = 0x10
    /// ``match(_:level:paths:)``'s answer for the key that ends the title path.
    static let titleEnd: UInt8 = 0x20

    let id: FieldPath
    let title: FieldPath?
    let idKeys: [[UInt8]]
    let titleKeys: [[UInt8]]
    /// The paths a note object starts on.
    let all: UInt8
    /// The byte counts of the note's own keys that start a path: bit n for a count of n, bit 63 for 63
    /// or more.
    let startLengths: UInt64

    init(_ configuration: PageConfiguration) {
        self.init(id: configuration.idPath, title: configuration.titlePath)
    }

    init(id: FieldPath, title: FieldPath?) {
        self.id = id
        self.title = title
        idKeys = id.components
        titleKeys = title?.components ?? []
        all = title == nil ? Self.idBit : Self.idBit | Self.titleBit
        startLengths = [idKeys.first, titleKeys.first].reduce(0) { lengths, key in
            key.map { lengths | 1 << UInt64(min($0.count, 63)) } ?? lengths
        }
    }

    /// Whether a key of the note object itself, of `keyBytes` bytes, may start the id or title path (when
    /// not, ``match(_:level:paths:)`` of it at level 0 is 0).
    @inline(__always)
    func mayStart(keyBytes: Int) -> Bool {
        startLengths & 1 << UInt64(min(keyBytes, 63)) != 0
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
    static func equal(_ key: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard key.count == expected.count else { return false }
        return expected.withUnsafeBytes { expected in
            for offset in 0..<key.count where key[offset] != expected[offset] { return false }
            return true
        }
    }
}

/// Which of a page's paths an object on the way may still lead to: bit 0 the items, bit 1 the next value,
/// bit 2 + i the field path i (at most 126 field paths: two words).
struct PathMask {
    static let items = 0
    static let next = 1
    static func field(_ index: Int) -> Int { 2 + index }

    var low: UInt64 = 0
    var high: UInt64 = 0

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
