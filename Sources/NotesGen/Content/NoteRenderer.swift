/// Renders notes as compact JSON straight into a ``ByteSink``: no `String` and no allocation per note.
///
/// A note depends only on the seed and its index (each note draws from its own ``SplitMix64`` stream),
/// so every format and every page size gives the same notes, and any note can be rendered alone.
///
/// Ids are unique by construction: an id is the note's index in lowercase base 36 (no leading zeros),
/// then a suffix that is empty or starts with a byte outside `[0-9a-z]`. The id's leading `[0-9a-z]`
/// run therefore gives back the index. Ids are 1 to about 45 bytes; some contain `\/`, `\"`, `\\` or
/// `\uXXXX` escapes and non-ASCII text, so the decoded id differs from the text written.
///
/// With ``Generator/Configuration/IDKind/int`` an id is a JSON integer instead (``IntegerIDs``), and the
/// rest of each note is the string kind's byte for byte: the string id is still drawn, so every later
/// draw is the same.
///
/// Notes are 26 to about 600 bytes: 177 on average, median 164 (measured over 200,000 notes). Key order
/// varies: most notes start with `id`, some with `title`, a few end with `title`.
final class NoteRenderer {
    /// 2 MiB: the length of an `oversized-title` title, twice the decoder's default string cap.
    static let oversizedTitleBytes = 2 << 20

    let seed: UInt64
    let seedKey: UInt64
    let idKind: Generator.Configuration.IDKind
    let words = Vocabulary()

    /// The id being rendered, as written in JSON (without quotes) and as decoded; an integer id's digits
    /// in both.
    let idJSON: UnsafeMutablePointer<UInt8>
    let idText: UnsafeMutablePointer<UInt8>
    var idJSONCount = 0
    var idTextCount = 0
    static let idCapacity = 128

    /// The run's first id (note 0), as written and decoded, for the `duplicate-id` fault.
    var firstIDJSON: [UInt8] = []
    var firstIDText: [UInt8] = []

    /// Whether the note being rendered has written a field yet, for commas.
    var hasField = false

    /// - Parameters:
    ///   - seed: The run's seed.
    ///   - idKind: What the ids are.
    init(seed: UInt64, idKind: Generator.Configuration.IDKind) {
        self.seed = seed
        self.idKind = idKind
        seedKey = SplitMix64.mix(seed ^ 0x6E6F_7465_732D_6731)  // "notes-g1"
        idJSON = .allocate(capacity: Self.idCapacity)
        idText = .allocate(capacity: Self.idCapacity)
        var random = noteRandom(0)
        makeID(index: 0, random: &random)
        firstIDJSON = Array(UnsafeBufferPointer(start: idJSON, count: idJSONCount))
        firstIDText = Array(UnsafeBufferPointer(start: idText, count: idTextCount))
    }

    deinit {
        idJSON.deallocate()
        idText.deallocate()
    }

    /// The random stream of note `index`.
    @inline(__always)
    func noteRandom(_ index: Int) -> SplitMix64 {
        SplitMix64(seed: SplitMix64.mix(seedKey ^ UInt64(index)))
    }

    // MARK: - Notes

    /// Appends note `index` to `sink` and hashes its id (decoded, as a client sees it) into `checksum`.
    /// - Parameter fault: A contract violation to plant in this note, or `nil`. `missing-id` and
    ///   `number-id` notes have no valid id, so they add nothing to `checksum`.
    func render(note index: Int, fault: Fault.Kind?, into sink: inout ByteSink, checksum: inout FNV1a64) {
        var random = noteRandom(index)
        makeID(index: index, random: &random)  // always first: note 0's id is drawn the same way in init
        hasField = false
        sink.append(byte: UInt8(ascii: "{"))
        let layout = random.next(below: 20)
        if layout < 16 {
            writeID(index: index, fault: fault, into: &sink, checksum: &checksum)
            writeTitle(fault: fault, random: &random, into: &sink)
            writeExtras(random: &random, into: &sink)
        } else if layout < 19 {
            writeTitle(fault: fault, random: &random, into: &sink)
            writeID(index: index, fault: fault, into: &sink, checksum: &checksum)
            writeExtras(random: &random, into: &sink)
        } else {
            writeID(index: index, fault: fault, into: &sink, checksum: &checksum)
            writeExtras(random: &random, into: &sink)
            writeTitle(fault: fault, random: &random, into: &sink)
        }
        sink.append(byte: UInt8(ascii: "}"))
    }

    /// Starts a field: a comma unless it is the note's first, then the key (with quotes and colon).
    @inline(__always)
    func field(_ key: StaticString, into sink: inout ByteSink) {
        if hasField { sink.append(byte: UInt8(ascii: ",")) }
        hasField = true
        sink.append(key)
    }

    func writeID(index: Int, fault: Fault.Kind?, into sink: inout ByteSink, checksum: inout FNV1a64) {
        switch fault {
        case .missingID:
            return
        case .numberID:  // a string id's note index, or an integer id, and a half: 12.5
            field(#""id":"#, into: &sink)
            if idKind == .int {
                sink.append(UnsafeRawBufferPointer(start: idJSON, count: idJSONCount))
            } else {
                sink.append(decimal: index)
            }
            sink.append(#".5"#)
        case .duplicateID:
            firstIDJSON.withUnsafeBytes { writeID($0, into: &sink) }
            checksum.update(id: firstIDText)
        default:
            writeID(UnsafeRawBufferPointer(start: idJSON, count: idJSONCount), into: &sink)
            checksum.update(UnsafeRawBufferPointer(start: idText, count: idTextCount))
            checksum.update(CollectionOfOne(UInt8(ascii: "\n")))
        }
    }

    /// Writes the `id` field with `json`, the id as written: in quotes for a string id.
    @inline(__always)
    func writeID(_ json: UnsafeRawBufferPointer, into sink: inout ByteSink) {
        if idKind == .int {
            field(#""id":"#, into: &sink)
            sink.append(json)
        } else {
            field(#""id":""#, into: &sink)
            sink.append(json)
            sink.append(byte: UInt8(ascii: "\""))
        }
    }

    func writeTitle(fault: Fault.Kind?, random: inout SplitMix64, into sink: inout ByteSink) {
        field(#""title":""#, into: &sink)
        if fault == .oversizedTitle {
            let pattern: StaticString = "oversized-title oversized-title oversized-title oversized-title "
            for _ in 0..<(Self.oversizedTitleBytes / pattern.utf8CodeUnitCount) { sink.append(pattern) }
        } else {
            writeWords(1 + random.next(below: 7), random: &random, into: &sink)
            if fault == .invalidJSON { sink.append(#" and a "stray" quote"#) }  // ends the string early
        }
        sink.append(byte: UInt8(ascii: "\""))
    }

    /// Appends `count` words with separators, as string content.
    func writeWords(_ count: Int, random: inout SplitMix64, into sink: inout ByteSink) {
        for word in 0..<count {
            if word > 0 { sink.append(words.separators[random.next(below: words.separators.count)]) }
            sink.append(self.word(&random))
        }
    }

    @inline(__always)
    func word(_ random: inout SplitMix64) -> UnsafeRawBufferPointer {
        let kind = random.next(below: 100)
        let table: FragmentTable
        switch kind {
        case ..<62: table = words.plainWords
        case ..<74: table = words.accentedWords
        case ..<83: table = words.cjkWords
        case ..<90: table = words.emoji
        default: table = words.escapedWords
        }
        return table[random.next(below: table.count)]
    }

    /// The optional fields: timestamps, tags, integers, decimals, booleans, null, nested objects.
    func writeExtras(random: inout SplitMix64, into sink: inout ByteSink) {
        if random.chance(70) {
            field(#""created":"#, into: &sink)
            writeTimestamp(&random, into: &sink)
        }
        if random.chance(35) {
            field(#""updated":"#, into: &sink)
            if random.chance(25) { sink.append("null") } else { writeTimestamp(&random, into: &sink) }
        }
        if random.chance(35) {
            field(#""excerpt":""#, into: &sink)
            writeWords(4 + random.next(below: 9), random: &random, into: &sink)
            sink.append(byte: UInt8(ascii: "\""))
        }
        if random.chance(50) {
            field(#""tags":["#, into: &sink)
            let count = random.next(below: 5)
            for tag in 0..<count {
                if tag > 0 { sink.append(byte: UInt8(ascii: ",")) }
                writeString(words.tags[random.next(below: words.tags.count)], into: &sink)
            }
            sink.append(byte: UInt8(ascii: "]"))
        }
        if random.chance(45) {
            field(#""rank":"#, into: &sink)
            let rank = random.next(below: 1_000_000)
            sink.append(decimal: random.chance(20) ? -rank : rank)
        }
        if random.chance(30) {
            field(#""score":"#, into: &sink)
            writeDecimal(&random, into: &sink)
        }
        if random.chance(40) {
            field(#""pinned":"#, into: &sink)
            sink.append(random.chance(30) ? "true" : "false")
        }
        if random.chance(12) {
            field(#""archived":null"#, into: &sink)
        }
        if random.chance(12) {
            field(#""meta":"#, into: &sink)
            writeMeta(&random, into: &sink)
        }
        if random.chance(3) {
            field(#""big":"#, into: &sink)
            sink.append(words.extremeNumbers[random.next(below: words.extremeNumbers.count)])
        }
        if random.chance(3) {
            field(#""na\u00efve":true"#, into: &sink)  // an escaped key
        }
    }

    func writeString(_ content: UnsafeRawBufferPointer, into sink: inout ByteSink) {
        sink.append(byte: UInt8(ascii: "\""))
        sink.append(content)
        sink.append(byte: UInt8(ascii: "\""))
    }

    /// An RFC 3339 time such as `"2024-03-14T09:26:53Z"`, sometimes with milliseconds or an offset.
    func writeTimestamp(_ random: inout SplitMix64, into sink: inout ByteSink) {
        sink.append(byte: UInt8(ascii: "\""))
        sink.append(decimal: 2015 + random.next(below: 12))
        sink.append(byte: UInt8(ascii: "-"))
        sink.append(twoDigits: 1 + random.next(below: 12))
        sink.append(byte: UInt8(ascii: "-"))
        sink.append(twoDigits: 1 + random.next(below: 28))
        sink.append(byte: UInt8(ascii: "T"))
        let seconds = random.next(below: 86_400)
        sink.append(twoDigits: seconds / 3600)
        sink.append(byte: UInt8(ascii: ":"))
        sink.append(twoDigits: seconds / 60 % 60)
        sink.append(byte: UInt8(ascii: ":"))
        sink.append(twoDigits: seconds % 60)
        let style = random.next(below: 20)
        if style < 4 {
            let milliseconds = random.next(below: 1000)
            sink.append(byte: UInt8(ascii: "."))
            sink.append(byte: UInt8(truncatingIfNeeded: 48 + milliseconds / 100))
            sink.append(twoDigits: milliseconds % 100)
        }
        switch style % 8 {
        case 1: sink.append("+05:30")
        case 3: sink.append("-08:00")
        default: sink.append(byte: UInt8(ascii: "Z"))
        }
        sink.append(byte: UInt8(ascii: "\""))
    }

    /// A decimal number in one of several spellings: `1.50e3`, `-2.125E-4`, `0.007`, `6e+23`, `-12.25`,
    /// `4.2E+12`.
    func writeDecimal(_ random: inout SplitMix64, into sink: inout ByteSink) {
        let digit = 1 + random.next(below: 9)
        let fraction = random.next(below: 100)
        let exponent = random.next(below: 30)
        switch random.next(below: 6) {
        case 0:
            sink.append(decimal: digit)
            sink.append(byte: UInt8(ascii: "."))
            sink.append(twoDigits: fraction)
            sink.append(byte: UInt8(ascii: "e"))
            sink.append(decimal: exponent)
        case 1:
            sink.append(byte: UInt8(ascii: "-"))
            sink.append(decimal: digit)
            sink.append(byte: UInt8(ascii: "."))
            sink.append(decimal: 100 + fraction)
            sink.append("E-")
            sink.append(decimal: exponent)
        case 2:
            sink.append("0.0")
            sink.append(twoDigits: fraction)
        case 3:
            sink.append(decimal: digit)
            sink.append("e+")
            sink.append(decimal: exponent)
        case 4:
            sink.append(byte: UInt8(ascii: "-"))
            sink.append(decimal: digit * 10 + fraction % 10)
            sink.append(byte: UInt8(ascii: "."))
            sink.append(twoDigits: fraction)
        default:
            sink.append(decimal: digit)
            sink.append(byte: UInt8(ascii: "."))
            sink.append(decimal: fraction % 10)
            sink.append("E+")
            sink.append(twoDigits: exponent)
        }
    }

    /// A nested object: `{"author":{"id":7,"name":"Zoë"},"edits":3,"history":[{"at":…,"by":null}],"flags":{}}`,
    /// its parts present or not.
    func writeMeta(_ random: inout SplitMix64, into sink: inout ByteSink) {
        sink.append(#"{"author":{"id":"#)
        sink.append(decimal: random.next(below: 100_000))
        sink.append(#","name":"#)
        writeString(words.names[random.next(below: words.names.count)], into: &sink)
        sink.append(#"},"edits":"#)
        sink.append(decimal: random.next(below: 50))
        sink.append(#","history":["#)
        let entries = random.next(below: 3)
        for entry in 0..<entries {
            if entry > 0 { sink.append(byte: UInt8(ascii: ",")) }
            sink.append(#"{"at":"#)
            writeTimestamp(&random, into: &sink)
            sink.append(#","by":"#)
            if random.chance(50) {
                sink.append("null")
            } else {
                writeString(words.names[random.next(below: words.names.count)], into: &sink)
            }
            sink.append(byte: UInt8(ascii: "}"))
        }
        sink.append(byte: UInt8(ascii: "]"))
        if random.chance(30) { sink.append(#","flags":{}"#) }
        sink.append(byte: UInt8(ascii: "}"))
    }
}
