import Foundation
import NotesJSON
import NotesPage
import TestSupport
import Testing

/// One case of `Fixtures/contract/cases.json`.
struct ContractCase: Decodable, CustomTestStringConvertible, Sendable {
    struct Expectation: Decodable, Sendable {
        var ids: [String]?
        var nextCursor: String?
        var notes: [String]?
        var error: String?
        var offset: Int?
        var note: Int?
        /// The values at `field_paths`: `bool:true`, `number:41`, `string:list`, `null`, `absent`.
        var fields: [String]?
    }

    var file: String
    var itemsPath: String?
    var nextPath: String?
    var fieldPaths: [String]?
    var maxDepth: Int?
    var maxStringBytes: Int?
    var maxPageNotes: Int?
    var limit: String?
    var expect: Expectation

    var testDescription: String { file }

    var configuration: PageConfiguration {
        var configuration = PageConfiguration()
        if let itemsPath { configuration.itemsPath = FieldPath(itemsPath) }
        if let nextPath { configuration.nextPath = FieldPath(nextPath) }
        if let fieldPaths { configuration.fieldPaths = fieldPaths.map(FieldPath.init) }
        if let maxDepth { configuration.limits.maxDepth = maxDepth }
        if let maxStringBytes { configuration.limits.maxTokenBytes = maxStringBytes }
        if let maxPageNotes { configuration.maxPageNotes = maxPageNotes }
        return configuration
    }

    var body: [UInt8] {
        let url = repositoryRoot.appendingPathComponent("Fixtures/contract").appendingPathComponent(file)
        return Array(try! Files.data(url))
    }

    static let all: [ContractCase] = {
        struct Manifest: Decodable { var cases: [ContractCase] }
        let url = repositoryRoot.appendingPathComponent("Fixtures/contract/cases.json")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try! decoder.decode(Manifest.self, from: Files.data(url)).cases
    }()
}

@Suite("The contract fixtures")
struct ContractFixtureTests {
    @Test("Every file in Fixtures/contract has a case")
    func everyFileHasACase() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent("Fixtures/contract").path
        ).filter { $0 != "cases.json" }
        #expect(Set(files) == Set(ContractCase.all.map(\.file)))
    }

    @Test("Decoded in one chunk, each case gives what the manifest says", arguments: ContractCase.all)
    func wholeChunk(_ contract: ContractCase) throws {
        let outcome = decode(contract.body, configuration: contract.configuration)
        let expect = contract.expect
        if let code = expect.error {
            guard case .failure(let error, _) = outcome else {
                Issue.record("expected \(code), got \(outcome)")
                return
            }
            #expect(error.code.name == code)
            #expect(error.offset == expect.offset)
            #expect(error.noteIndex == expect.note)
            #expect(error.limit?.name == contract.limit)
            #expect(!error.message.isEmpty && error.message.utf8.count < 100)
        } else {
            guard case .page(let notes, let next) = outcome else {
                Issue.record("expected a page, got \(outcome)")
                return
            }
            #expect(next == expect.nextCursor)
            var ids: [String] = []
            var decoder = PageDecoder(configuration: contract.configuration)
            var decoded: [Note] = []
            try decoder.feed(contract.body, into: &decoded)
            let summary = try decoder.finish(into: &decoded)
            ids = decoded.map(\.id)
            #expect(ids == expect.ids)
            let fields = summary.fields.map { value -> String in
                switch value {
                case .bool(let flag)?: return "bool:\(flag)"
                case .number(let text)?: return "number:\(text)"
                case .string(let text)?: return "string:\(text)"
                case .null?: return "null"
                case .container(let what)?: return "container:\(what)"
                case nil: return "absent"
                }
            }
            #expect(fields == (expect.fields ?? []))
            if let expected = expect.notes { #expect(notes == expected) }
        }
    }

    @Test("Every split point gives the same result as one chunk", arguments: ContractCase.all)
    func everySplitPoint(_ contract: ContractCase) {
        let body = contract.body
        let whole = decode(body, configuration: contract.configuration)
        for split in 0...body.count {
            let outcome = decode([body[..<split], body[split...]], configuration: contract.configuration)
            #expect(outcome == whole, "split at \(split)")
            if outcome != whole { return }
        }
    }

    @Test("Random chunkings, empty chunks included, give the same result", arguments: ContractCase.all)
    func randomChunkings(_ contract: ContractCase) {
        let body = contract.body
        let whole = decode(body, configuration: contract.configuration)
        var random = SeededRandom(seed: 42)
        for round in 0..<200 {
            let chunks = randomChunks(body, maxChunk: round % 2 == 0 ? 3 : 17, using: &random)
            let outcome = decode(chunks, configuration: contract.configuration)
            #expect(outcome == whole, "chunk sizes \(chunks.map(\.count))")
            if outcome != whole { return }
        }
    }
}
