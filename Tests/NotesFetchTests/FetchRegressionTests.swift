import Foundation
import TestSupport
import Testing

/// The inputs in `Fixtures/regressions-fetch/` (what the fetch layer's fuzz target, `make fuzz-fetch`, once
/// trapped on or found wrong) and the target's seeds in `Tools/reliability/fuzz/fetch-seeds/`, run through
/// the target's own driver (FetchDriver.swift and its extensions, compiled here as they are there): nothing
/// may trap, and the driver may find nothing.
@Suite("Fetch-layer fuzzer regressions")
struct FetchRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The files of `directory` (relative to the repository), without a README, as paths relative to it.
    static func files(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(directory).path))
        return (names ?? []).filter { !$0.hasSuffix(".md") && !$0.hasPrefix(".") }.sorted().map { "\(directory)/\($0)" }
    }

    static let regressions = files(in: "Fixtures/regressions-fetch")
    static let seeds = files(in: "Tools/reliability/fuzz/fetch-seeds")

    @Test("There are regressions and seeds to replay, and the driver's GraphQL query still reads")
    func found() {
        #expect(!Self.regressions.isEmpty, "no fixtures in Fixtures/regressions-fetch")
        #expect(!Self.seeds.isEmpty, "no seeds in Tools/reliability/fuzz/fetch-seeds")
        #expect(FetchDriver.graphQL != nil, "GraphQLQuery refused the driver's query: GraphQL goes unfuzzed")
    }

    @Test(
        "Every saved input goes through the fuzz target's driver without a trap or a finding",
        arguments: FetchRegressionTests.regressions + FetchRegressionTests.seeds)
    func replay(_ path: String) throws {
        let bytes = try Files.read(Self.root.appendingPathComponent(path).path)
        #expect(bytes.count <= 4096, "the fuzz target never runs more than 4096 bytes (-max_len)")
        #expect(FetchDriver.run(bytes) == [])
    }
}
