import Foundation
import NotesJSON
import TestSupport
import Testing

/// The public JSONTestSuite (github.com/nst/JSONTestSuite), read from `../shared/JSONTestSuite` beside the
/// clone. It is not part of this repository; where it is absent these tests are skipped.
enum JSONTestSuite {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "shared/JSONTestSuite/test_parsing")

    static let isAvailable = FileManager.default.fileExists(atPath: directory.path)

    static func files(_ prefix: String) -> [String] {
        guard isAvailable else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) -> [UInt8] {
        Array((try? Files.data(directory.appendingPathComponent(name))) ?? Data())
    }
}

/// Outside CI a missing suite only skips the conformance tests; in CI (`.ci/run` exports `CI=true`) it fails.
@Suite("JSONTestSuite presence")
struct JSONTestSuitePresenceTests {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test("Under CI=true the JSONTestSuite is present: the conformance tests must run, not skip")
    func presentInCI() {
        #expect(
            JSONTestSuite.isAvailable || !Self.isCI,
            "CI=true but the JSONTestSuite is missing at \(JSONTestSuite.directory.path): clone github.com/nst/JSONTestSuite into ../shared/JSONTestSuite"
        )
    }
}

@Suite(
    "JSONTestSuite conformance",
    .enabled(if: JSONTestSuite.isAvailable, "../shared/JSONTestSuite is absent: conformance tests skipped")
)
struct JSONTestSuiteTests {
    @Test("The suite is complete: 95 y_, 188 n_, 35 i_ files")
    func counts() {
        #expect(JSONTestSuite.files("y_").count == 95)
        #expect(JSONTestSuite.files("n_").count == 188)
        #expect(JSONTestSuite.files("i_").count == 35)
    }

    @Test("Every y_ file is accepted, whole and split at every point", arguments: JSONTestSuite.files("y_"))
    func accepted(_ name: String) {
        let bytes = JSONTestSuite.bytes(name)
        let whole = parse(bytes)
        guard case .accepted = whole else {
            Issue.record("\(name) rejected: \(whole)")
            return
        }
        for split in 0...bytes.count {
            #expect(parse([bytes[..<split], bytes[split...]]) == whole, "split at \(split)")
        }
    }

    @Test("Every n_ file is rejected, with the same error at every split point", arguments: JSONTestSuite.files("n_"))
    func rejected(_ name: String) {
        let bytes = JSONTestSuite.bytes(name)
        let whole = parse(bytes)
        guard case .rejected = whole else {
            Issue.record("\(name) accepted")
            return
        }
        // Large files (100,000 opening brackets) are split at a sample of points.
        let step = max(1, bytes.count / 200)
        for split in stride(from: 0, through: bytes.count, by: step) {
            #expect(parse([bytes[..<split], bytes[split...]]) == whole, "split at \(split)")
        }
    }

    /// What we make of each implementation-defined case, and why.
    static let implementationDefined: [(file: String, accepted: Bool, why: String)] = [
        // Numbers reach the handler as their exact text, never converted: no size is too big.
        ("i_number_double_huge_neg_exp.json", true, "numbers are kept as written"),
        ("i_number_huge_exp.json", true, "numbers are kept as written"),
        ("i_number_neg_int_huge_exp.json", true, "numbers are kept as written"),
        ("i_number_pos_double_huge_exp.json", true, "numbers are kept as written"),
        ("i_number_real_neg_overflow.json", true, "numbers are kept as written"),
        ("i_number_real_pos_overflow.json", true, "numbers are kept as written"),
        ("i_number_real_underflow.json", true, "numbers are kept as written"),
        ("i_number_too_big_neg_int.json", true, "numbers are kept as written"),
        ("i_number_too_big_pos_int.json", true, "numbers are kept as written"),
        ("i_number_very_big_negative_int.json", true, "numbers are kept as written"),
        // Escaped surrogates must pair up: a lone one is not a Unicode scalar and cannot become UTF-8.
        ("i_object_key_lone_2nd_surrogate.json", false, "lone low surrogate escape"),
        ("i_string_1st_surrogate_but_2nd_missing.json", false, "lone high surrogate escape"),
        ("i_string_1st_valid_surrogate_2nd_invalid.json", false, "high surrogate followed by a non-surrogate"),
        ("i_string_incomplete_surrogate_and_escape_valid.json", false, "high surrogate followed by \\n"),
        ("i_string_incomplete_surrogate_pair.json", false, "high surrogate followed by text"),
        ("i_string_incomplete_surrogates_escape_valid.json", false, "two high surrogates"),
        ("i_string_invalid_lonely_surrogate.json", false, "lone high surrogate escape"),
        ("i_string_invalid_surrogate.json", false, "high surrogate followed by text"),
        ("i_string_inverted_surrogates_U+1D11E.json", false, "low surrogate before high"),
        ("i_string_lone_second_surrogate.json", false, "lone low surrogate escape"),
        // Text must be UTF-8 (RFC 8259 §8.1), checked strictly (RFC 3629).
        ("i_string_UTF-16LE_with_BOM.json", false, "UTF-16 is not UTF-8"),
        ("i_string_utf16BE_no_BOM.json", false, "UTF-16 is not UTF-8"),
        ("i_string_utf16LE_no_BOM.json", false, "UTF-16 is not UTF-8"),
        ("i_string_UTF-8_invalid_sequence.json", false, "invalid UTF-8"),
        ("i_string_UTF8_surrogate_U+D800.json", false, "a surrogate encoded in UTF-8 (ED A0 80)"),
        ("i_string_invalid_utf-8.json", false, "invalid UTF-8 (FF)"),
        ("i_string_iso_latin_1.json", false, "Latin-1 is not UTF-8"),
        ("i_string_lone_utf8_continuation_byte.json", false, "a continuation byte without a lead"),
        ("i_string_not_in_unicode_range.json", false, "beyond U+10FFFF (F4 BF BF BF)"),
        ("i_string_overlong_sequence_2_bytes.json", false, "overlong UTF-8 (C0 AF)"),
        ("i_string_overlong_sequence_6_bytes.json", false, "6-byte sequences do not exist"),
        ("i_string_overlong_sequence_6_bytes_null.json", false, "6-byte sequences do not exist"),
        ("i_string_truncated-utf-8.json", false, "a sequence cut short by the closing quote"),
        // A byte order mark is not JSON text (RFC 8259 §8.1: must not add one).
        ("i_structure_UTF-8_BOM_empty_object.json", false, "byte order mark"),
        // 500 levels exceed the default depth limit of 64; with a higher limit they parse.
        ("i_structure_500_nested_arrays.json", false, "deeper than the default limit of 64"),
    ]

    @Test("Every i_ file has a listed outcome", arguments: implementationDefined.map(\.file))
    func implementationDefinedOutcome(_ name: String) {
        let entry = Self.implementationDefined.first { $0.file == name }!
        let outcome = parse(JSONTestSuite.bytes(name))
        if entry.accepted {
            guard case .accepted = outcome else {
                Issue.record("\(name) rejected: \(outcome) — expected accepted: \(entry.why)")
                return
            }
        } else {
            guard case .rejected = outcome else {
                Issue.record("\(name) accepted — expected rejected: \(entry.why)")
                return
            }
        }
    }

    @Test("The table lists every i_ file")
    func tableIsComplete() {
        #expect(Set(JSONTestSuite.files("i_")) == Set(Self.implementationDefined.map(\.file)))
    }

    @Test("500 nested arrays parse with a depth limit of 500")
    func deepWithHigherLimit() {
        let outcome = parse(
            JSONTestSuite.bytes("i_structure_500_nested_arrays.json"), limits: JSONLimits(maxDepth: 500))
        guard case .accepted(let events) = outcome else {
            Issue.record("rejected: \(outcome)")
            return
        }
        #expect(events.count == 1000)
    }
}
