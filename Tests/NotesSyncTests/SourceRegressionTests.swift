import Foundation
import NotesSync
import TestSupport
import Testing

/// The inputs `make fuzz-source` found, and others like them (Fixtures/regressions-source): each is read
/// to a source or an error whose message is short and whose place is inside the input, as the fuzz target
/// checks.
@Suite("Source files that once went wrong")
struct SourceRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/regressions-source")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasSuffix(".md") }
            .sorted()
    }

    @Test("Each is read to a source or a short error inside the input", arguments: inputs)
    func replay(_ name: String) throws {
        let bytes = try Files.read(Self.directory.appendingPathComponent(name).path)
        do {
            let source = try SourceFile(bytes: bytes, file: name)
            #expect(!source.resources.isEmpty)
        } catch {
            #expect(error.message.utf8.count <= 600, "\(error.message.prefix(200))…")
            if let mark = error.mark { #expect(mark.line >= 1 && mark.line <= bytes.count + 1) }
        }
    }

    @Test("A key of 2,000 bytes written twice: the error names it cut to 80 bytes")
    func longKeyTwice() throws {
        let bytes = try Files.read(Self.directory.appendingPathComponent("long-key-twice.yaml").path)
        #expect(throws: SourceError.self) { try SourceFile(bytes: bytes, file: "long.yaml") }
        do {
            _ = try SourceFile(bytes: bytes, file: "long.yaml")
        } catch {
            #expect(
                error.description
                    == "long.yaml:3:3: '\(String(repeating: "k", count: 80))…' again in the same mapping (first at line 1)"
            )
        }
    }
}
