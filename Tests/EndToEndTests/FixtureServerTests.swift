import Foundation
import TestSupport
import Testing

@Suite("The fixture server's prerequisites")
struct FixtureServerTests {
    /// Whether the tests run in CI (`.ci/run` exports `CI=true`): there nothing may skip for want of a tool.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test("Under CI=true, node is on PATH: the fixture server tests must run, not skip")
    func nodeInCI() {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        #expect(
            FixtureServer.isAvailable || !Self.isCI,
            "CI=true but node is missing: no executable node on PATH (\(path)), so the fixture server tests cannot run"
        )
    }

    @Test("node is looked up on PATH as `command -v` does: the first executable regular file of that name")
    func lookup() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folders = ["absent", "plain", "directory", "first", "second"].map { root.appendingPathComponent($0) }
        for folder in folders.dropFirst() {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Files.write([], to: folders[1].appendingPathComponent("node").path)  // a file, not executable
        try FileManager.default.createDirectory(
            at: folders[2].appendingPathComponent("node"), withIntermediateDirectories: true)  // a directory
        for folder in folders[3...] {
            let file = folder.appendingPathComponent("node")
            try Files.write([], to: file.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        let all = folders.map(\.path).joined(separator: ":")
        let found = TestSupport.executable(named: "node", searchPath: all)
        #expect(found?.path == folders[3].appendingPathComponent("node").path)
        let none = folders[..<3].map(\.path).joined(separator: ":")
        #expect(TestSupport.executable(named: "node", searchPath: none) == nil)
    }
}
