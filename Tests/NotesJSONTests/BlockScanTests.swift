import CJSONBlocks
import NotesJSON
import TestSupport
import Testing

/// The scanner reads whole 64-byte blocks by bit masks and everything else byte by byte; these tests hold
/// the two paths to the same answers.
@Suite("The scanner's 64-byte blocks")
struct BlockScanTests {
    @Test("The classifier's masks match a byte-by-byte reading of the same 64 bytes")
    func classifier() {
        var random = SeededRandom(seed: 7)
        // Every byte value, then random blocks biased towards the bytes that matter.
        var blocks: [[UInt8]] = (0..<4).map { part in (0..<64).map { UInt8(part * 64 + $0) } }
        let interesting: [UInt8] =
            Array(#""\,:[]{} tnr0-e"#.utf8) + [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x20, 0x7F, 0x80, 0xFF]
        for _ in 0..<5_000 {
            blocks.append(
                (0..<64).map { _ in
                    random.next() % 2 == 0
                        ? interesting[Int(random.next() % UInt64(interesting.count))]
                        : UInt8(truncatingIfNeeded: random.next())
                })
        }
        // The path this machine compiles (SSE2 or NEON), which the narrow block loop inlines,
        // the plain C one every other machine uses, and the wider ones this processor runs (the scanner
        // takes the widest).
        let wide = notes_json_wide_classifier()
        var classifiers: [(UnsafePointer<UInt8>) -> notes_json_block] = [
            notes_json_classify, notes_json_classify_portable,
        ]
        if wide >= 1 { classifiers.append(notes_json_classify_avx2) }
        if wide >= 2 { classifiers.append(notes_json_classify_avx512) }
        for block in blocks {
            let expected = reference(block)
            for classify in classifiers {
                check(block.withUnsafeBufferPointer { classify($0.baseAddress!) }, expected, block)
            }
        }
    }

    @Test("The UTF-8 masks find every block that is no prefix of valid UTF-8, and the sequence left open")
    func utf8Masks() {
        var random = SeededRandom(seed: 13)
        // Sequences at the edges of each rule, valid and not, and ASCII; 64 bytes cut from a run of them
        // start and end anywhere, inside a sequence too.
        let pieces: [[UInt8]] = [
            [0x41], [0x22], [0x7F], [0x00], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF],
            [0xE1, 0x80, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF3, 0xBF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xC0, 0x80], [0xC1, 0xBF], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xBF], [0xC3], [0xE2, 0x82],
            [0xC3, 0x41], [0xE2, 0x28, 0xA1],
        ]
        var blocks: [[UInt8]] = (0..<4).map { part in (0..<64).map { UInt8(part * 64 + $0) } }
        for round in 0..<20_000 {
            var run: [UInt8] = []
            // Mostly valid text, so that valid blocks are common.
            let valid = round % 2 == 0
            while run.count < 72 {
                let piece = pieces[Int(random.next() % UInt64(pieces.count))]
                if valid && Self.utf8Prefix(piece) != (true, 0) { continue }
                run += piece
            }
            let start = valid && round % 4 == 0 ? 0 : Int(random.next() % 8)
            blocks.append(Array(run[start..<start + 64]))
        }
        let wide = notes_json_wide_classifier()
        var checks: [(UnsafePointer<UInt8>) -> notes_json_utf8] = [
            notes_json_utf8_check, notes_json_utf8_portable,
        ]
        if wide >= 1 { checks.append(notes_json_utf8_avx2) }
        if wide >= 2 { checks.append(notes_json_utf8_avx512) }
        var validBlocks = 0
        var openBlocks = 0
        for block in blocks {
            let expected = Self.utf8Prefix(block)
            let portable = block.withUnsafeBufferPointer { notes_json_utf8_portable($0.baseAddress!) }
            #expect((portable.error == 0) == expected.valid, "\(block)")
            if expected.valid {
                validBlocks += 1
                #expect(portable.open == expected.open, "\(block)")
                if expected.open != 0 { openBlocks += 1 }
            }
            for check in checks {
                let masks = block.withUnsafeBufferPointer { check($0.baseAddress!) }
                #expect(masks.error == portable.error && masks.open == portable.open, "\(block)")
            }
        }
        #expect(validBlocks > 4_000 && openBlocks > 1_000, "\(validBlocks) valid, \(openBlocks) open")
    }

    /// Whether `bytes` begin some valid UTF-8 text, read one sequence at a time, and the bit of the lead
    /// byte of a sequence they cut short (0 for none).
    private static func utf8Prefix(_ bytes: [UInt8]) -> (valid: Bool, open: UInt64) {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xE1...0xEF: length = 3
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            case 0xF1...0xF3: length = 4
            default: return (false, 0)
            }
            for offset in 1..<max(length, 1) {
                if index + offset == bytes.count { return (true, UInt64(1) << UInt64(index)) }
                let range = offset == 1 ? second : 0x80...0xBF
                if !range.contains(bytes[index + offset]) { return (false, 0) }
            }
            index += length
        }
        return (true, 0)
    }

    @Test("A plain run ends at the first byte a string cannot hold as it is, in its last few bytes too")
    func plainRun() {
        var random = SeededRandom(seed: 11)
        let interesting: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xC3, 0xFF, 0x41]
        for _ in 0..<20_000 {
            let length = Int(random.next() % 24)
            let text: [UInt8] = (0..<length).map { _ in
                // Mostly plain bytes, so that runs are long enough to end anywhere.
                random.next() % 6 == 0
                    ? interesting[Int(random.next() % UInt64(interesting.count))]
                    : UInt8(0x23 + random.next() % 0x30)
            }
            let start = length == 0 ? 0 : Int(random.next() % UInt64(length + 1))
            for nonASCII in [false, true] {
                let expected =
                    text[start...].firstIndex {
                        $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || (nonASCII && $0 >= 0x80)
                    } ?? length
                let found = text.withUnsafeBytes { ASCII.plainRun($0, from: start, nonASCII: nonASCII) }
                #expect(found == expected, "\(text) from \(start), nonASCII \(nonASCII)")
            }
        }
    }

    private func check(_ masks: notes_json_block, _ expected: notes_json_block, _ block: [UInt8]) {
        #expect(masks.quote == expected.quote, "quote \(block)")
        #expect(masks.backslash == expected.backslash, "backslash \(block)")
        #expect(masks.high == expected.high, "high \(block)")
        #expect(masks.control == expected.control, "control \(block)")
        #expect(masks.space == expected.space, "space \(block)")
        #expect(masks.delimiter == expected.delimiter, "delimiter \(block)")
        #expect(masks.open == expected.open, "open \(block)")
        #expect(masks.close == expected.close, "close \(block)")
    }

    private func reference(_ block: [UInt8]) -> notes_json_block {
        var masks = notes_json_block()
        for (index, byte) in block.enumerated() {
            let bit = UInt64(1) << UInt64(index)
            let space = byte == 0x09 || byte == 0x0A || byte == 0x0D
            if byte == UInt8(ascii: "\"") { masks.quote |= bit }
            if byte == UInt8(ascii: "\\") { masks.backslash |= bit }
            if byte >= 0x80 { masks.high |= bit }
            if byte < 0x20 && !space { masks.control |= bit }
            if space { masks.space |= bit }
            if byte <= 0x20 || Array(#"",:[]{}"#.utf8).contains(byte) { masks.delimiter |= bit }
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { masks.open |= bit }
            if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { masks.close |= bit }
        }
        return masks
    }

    @Test("The loop over whole blocks stops at the same byte, in the same state, with every classifier")
    func blockLoops() {
        // The scanner runs the loop compiled for the widest classifier this processor has; the others run
        // it as compiled for SSE2 or NEON alone. From the start of each document and from random places in
        // random states, each gives the same answer.
        let wide = notes_json_wide_classifier()
        var random = SeededRandom(seed: 64)
        var stoppedInside = 0
        for index in 0..<600 {
            var maker = DocumentMaker(random: random.next(), tokenLimit: 300)
            let document = maker.document()
            for attempt in 0..<4 {
                let start = attempt == 0 ? 0 : Int(random.next() % UInt64(document.count))
                let initial = notes_json_scan_state(
                    mode: attempt == 0 ? 0 : Int64(random.next() % 3), token_bytes: Int64(random.next() % 80),
                    token_start: random.next() % 2 == 0 ? -1 : 0, depth: Int64(random.next() % 12),
                    carried_token_end: -1)
                var answers: [(position: Int64, state: notes_json_scan_state)] = []
                for classifier in 0...wide {
                    var state = initial
                    let position = document.withUnsafeBufferPointer {
                        notes_json_scan_blocks(
                            $0.baseAddress!, Int64($0.count), Int64(start), 300, 12, classifier, &state)
                    }
                    answers.append((position, state))
                }
                if answers[0].position > Int64(start) + 64 && answers[0].position + 64 <= Int64(document.count) {
                    stoppedInside += 1
                }
                for answer in answers.dropFirst() {
                    let (first, other) = (answers[0].state, answer.state)
                    #expect(
                        answer.position == answers[0].position && other.mode == first.mode
                            && other.token_bytes == first.token_bytes && other.token_start == first.token_start
                            && other.depth == first.depth && other.carried_token_end == first.carried_token_end,
                        "document \(index), from \(start): \(answers.map { $0.position })")
                }
            }
        }
        // Blocks were taken, and the loop stopped at a block that was not clean, many times.
        #expect(stoppedInside > 100, "\(stoppedInside)")
    }

    @Test(
        "Random documents, valid and broken, give the same outcome whole (blocks) and in small chunks (bytes)",
        arguments: [64, 100, 300]
    )
    func wholeVersusChunked(maxTokenBytes: Int) {
        var random = SeededRandom(seed: UInt64(maxTokenBytes))
        let limits = JSONLimits(maxDocumentBytes: 1 << 20, maxTokenBytes: maxTokenBytes, maxDepth: 12)
        var rejected = 0
        for index in 0..<600 {
            var maker = DocumentMaker(random: random.next(), tokenLimit: maxTokenBytes)
            let document = maker.document()
            let whole = parse([document[...]], limits: limits)
            if case .rejected = whole { rejected += 1 }
            var chunks: [ArraySlice<UInt8>] = []
            var offset = 0
            while offset < document.count {
                let size = Int(random.next() % 63) + 1  // always under a block: byte by byte only
                chunks.append(document[offset..<min(document.count, offset + size)])
                offset += size
            }
            let chunked = parse(chunks, limits: limits)
            #expect(whole == chunked, "document \(index): \(String(decoding: document, as: UTF8.self))")
        }
        // Both kinds were exercised.
        #expect(rejected > 60 && rejected < 540, "\(rejected) of 600 rejected")
    }
}

/// Builds JSON-like documents that cross 64-byte blocks in every way: long and short strings with escapes
/// and multi-byte text, long numbers, literals, nesting; now and then a broken piece (a bad escape or
/// sequence, a control byte, a lone surrogate, glued tokens, a missing quote).
private struct DocumentMaker {
    var random: SeededRandom
    let tokenLimit: Int
    var bytes: [UInt8] = []

    init(random seed: UInt64, tokenLimit: Int) {
        random = SeededRandom(seed: seed)
        self.tokenLimit = tokenLimit
    }

    private mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    private mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    mutating func document() -> [UInt8] {
        bytes = []
        switch random.next() % 8 {
        case 0:
            // Deep nesting, around the depth limit.
            let depth = Int(random.next() % 8) + 8
            bytes = Array(repeating: UInt8(ascii: "["), count: depth)
            value(depth: 14)
            bytes.append(contentsOf: Array(repeating: UInt8(ascii: "]"), count: depth))
        case 1:
            // One long string, maybe cut short: its end lands anywhere in a block, inside a sequence or not.
            bytes.append(UInt8(ascii: "\""))
            for _ in 0..<Int(random.next() % 80) { piece() }
            if chance(50) { bytes.append(UInt8(ascii: "\"")) }
        case 2:
            // A string or number of the token limit give or take one byte, anywhere in a block.
            let length = tokenLimit + Int(random.next() % 3) - 1
            // Half the time the token ends within two bytes of a block boundary.
            let padding = chance(50) ? Int(random.next() % 64) : (128 - (2 + length) % 64 + Int(random.next() % 3)) % 64
            bytes = Array(repeating: UInt8(ascii: " "), count: padding) + [UInt8(ascii: "[")]
            if chance(50) {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "s"), count: length))
                bytes.append(UInt8(ascii: "\""))
            } else {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "7"), count: length))
            }
            bytes.append(UInt8(ascii: "]"))
        case 3:
            // Bytes that belong in strings, outside one.
            bytes = Array("[1, ".utf8) + pick([Array(#"\"x""#.utf8), Array(#"\\"#.utf8), Array("é".utf8), [0xFF]])
            bytes.append(contentsOf: Array(", 2]".utf8) + Array(repeating: UInt8(ascii: " "), count: 64))
        default:
            value(depth: 0)
        }
        if chance(10) { bytes.append(contentsOf: pick([[0x20], [0x0C], Array(" \"x".utf8), Array("1".utf8)])) }
        return bytes
    }

    private mutating func value(depth: Int) {
        switch random.next() % 10 {
        case 0...3 where depth < 14: container(depth: depth, object: chance(50))
        case 0...5: string()
        case 6, 7: number()
        default: bytes.append(contentsOf: Array(pick(["true", "false", "null", "truex", "nul"]).utf8))
        }
    }

    private mutating func container(depth: Int, object: Bool) {
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        let count = Int(random.next() % 6)
        for index in 0..<count where bytes.count < 4_000 {
            if index > 0 { bytes.append(contentsOf: Array(pick([",", ", ", ",\n", "\t,"]).utf8)) }
            if object {
                string()
                bytes.append(contentsOf: Array(pick([":", ": ", " :"]).utf8))
            }
            value(depth: depth + 1)
        }
        bytes.append(object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    private mutating func number() {
        let digits = chance(20) ? Int(random.next() % 400) + 1 : Int(random.next() % 8) + 1
        if chance(30) { bytes.append(UInt8(ascii: "-")) }
        for _ in 0..<digits { bytes.append(UInt8(ascii: "0") + UInt8(random.next() % 10)) }
        if chance(20) { bytes.append(contentsOf: Array(pick([".5", "e10", "E-3", ".25e+7", "x", "\"s\""]).utf8)) }
    }

    private mutating func string() {
        bytes.append(UInt8(ascii: "\""))
        let pieces = chance(25) ? Int(random.next() % 120) : Int(random.next() % 8)
        for _ in 0..<pieces { piece() }
        if !chance(2) { bytes.append(UInt8(ascii: "\"")) }
    }

    private mutating func piece() {
        let good: [[UInt8]] = [
            Array("plain text ".utf8), Array("abc".utf8), Array("é".utf8), Array("東京".utf8), Array("😀".utf8),
            Array(#"\n"#.utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\/"#.utf8), Array(#"\u00e9"#.utf8),
            Array(#"\ud83d\ude00"#.utf8), Array("{[,:]}".utf8), Array(String(repeating: "x", count: 61).utf8),
        ]
        let bad: [[UInt8]] = [
            Array(#"\x"#.utf8), Array(#"\ud800"#.utf8), Array(#"\udc00x"#.utf8), Array(#"\u12g4"#.utf8),
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF], [0x80],
            [0x09], [0x01], [0x0C],
        ]
        bytes.append(contentsOf: chance(3) ? pick(bad) : pick(good))
    }
}
