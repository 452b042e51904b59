public import Foundation

/// A directory of its own for one test, removed by ``remove()``.
public struct Scratch {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-page-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func read(_ name: String) throws -> String { try Files.text(path(name)) }

    public func size(_ name: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path(name))[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Appends `text` to the file `name`, as a write torn by a kill would leave it.
    public func append(_ text: String, to name: String) throws {
        try Files.write(text, to: path(name), append: true)
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
