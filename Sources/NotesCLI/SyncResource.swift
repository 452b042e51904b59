import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore
import NotesSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A resource of a sync as `fetch` walks it: its URL and `fetch`'s arguments, and for a child resource
/// the templates its parent's records fill (``ParentTemplate``), one `fetch` per parent.
struct SyncResource: Sendable {
    var name: String
    /// The parent resource's index in the sync's resources, for a child.
    var parent: Int?
    /// The URL (or a child's path template) as the source gives it.
    var path: String
    /// `fetch`'s arguments after the URL: the destination, the credentials, the resource's options.
    var arguments: [String]
    /// A child resource's files under `-o DIR`: each parent's walk has its own.
    var files: NDJSONResourceFiles?
    /// The base URL as a folder (ending in `/`), and its origin: a child's whole-URL placeholder must be on it.
    var folder: String?
    var origin: Origin?
    /// The parent's fields kept as columns of each row.
    var includeFromParent: [FieldPath]
    /// The time windows a top-level resource is walked in (`slice`), one walk each.
    var slices: TimeSlices?
    /// The pages a worker's unit of a top-level resource walks (`pages-per-unit`): its walk split into
    /// ranges of pages (``PageRange``).
    var pagesPerUnit: Int?
    /// The resume hint every `fetch` of the resource gives.
    var resumeAdvice: String
    /// Secrets in the arguments and how the source writes them, to take out of any message.
    var secrets: [(value: String, written: String)]
    /// A top-level resource's `fetch`; a child's as checked with a sample parent (``sampleParent()``), each
    /// parent's being made by ``command(for:parentRun:environment:)``.
    var command: FetchCommand

    /// The options whose values may hold placeholders; the path may too.
    static let templated: Set<String> = ["--header", "--body", "--variables"]

    /// The `fetch` of the resource for `parent` (a child resource's), or of the resource itself.
    /// - Throws: ``ParentError`` when a placeholder cannot be filled from the parent's record (no request
    ///   is made); `UsageError` when the filled arguments are not `fetch`'s.
    func command(
        for parent: ParentRecord, parentRun: Int, parentDigest: String? = nil, environment: [String: String]
    ) throws -> FetchCommand {
        let url = try ParentTemplate(path).url(for: parent, folder: folder, origin: origin)
        var filled = [url]
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            filled.append(word)
            index += 1
            guard Self.templated.contains(word), index < arguments.count else { continue }
            let value = arguments[index]
            index += 1
            if word == "--header", let colon = value.firstIndex(of: ":") {
                let template = try ParentTemplate(String(value[value.index(after: colon)...]))
                filled.append(String(value[..<colon]) + ":" + (try template.headerValue(for: parent)))
            } else if word != "--header", !value.hasPrefix("@"), value.contains("{parent.") {
                filled.append(try ParentTemplate.json(value, for: parent))
            } else {
                filled.append(value)
            }
        }
        var command = try FetchCommand(try ParsedArguments(filled, spec: FetchCommand.spec), environment: environment)
        command.resumeAdvice = resumeAdvice
        if let files {
            (command.outputPath, command.statePath) = try files.walkFiles(parent: parent.key)
        }
        command.unit = ChildUnit(
            parent: parent.key, parentRun: parentRun, parentDigest: parentDigest,
            columns: includeFromParent.map {
                ChildUnit.Column(name: SourceResource.columnName(for: $0), value: parent.column(at: $0))
            })
        return command
    }

    /// The `fetch` of a sliced resource's window: the resource's URL with the window's bounds as its
    /// two query parameters (replacing any the URL has).
    func command(window: SliceWindow) throws(UsageError) -> FetchCommand {
        guard let slices else { throw UsageError("resource '\(name)' is not sliced") }
        var command = command
        guard let url = slices.url(command.url, bounded: window) else {
            throw UsageError(
                "resource '\(name)': the window \(window.key) makes no URL of \(command.url.absoluteString)")
        }
        command.url = url
        command.window = window
        return command
    }

    /// The `fetch` of a worker's unit of a resource split into ranges: range `range` of its pages.
    func command(pages range: PageRange) -> FetchCommand {
        var command = command
        command.pages = range
        return command
    }

    /// A record with every field a placeholder of the resource reads, each `1`: what checks a child's
    /// arguments before any request.
    func sampleParent() throws(ParentError) -> ParentRecord {
        var paths: [FieldPath] = []
        var texts = [path]
        var index = 0
        while index + 1 < arguments.count {
            if Self.templated.contains(arguments[index]) { texts.append(arguments[index + 1]) }
            index += 1
        }
        for text in texts {
            for part in try ParentTemplate(text).parts {
                if case .field(let path, _) = part { paths.append(path) }
            }
        }
        // A path that is one placeholder is a URL on the source's origin.
        let template = try ParentTemplate(path)
        var tree = JSONTree.object([])
        for path in paths {
            let sample: JSONTree =
                template.isOnePlaceholder && template.parts == [.field(path, written: self.path)]
                ? .string((folder ?? "https://example.invalid/") + "sample") : .number("1")
            let keys = path.components.map { String(decoding: $0, as: UTF8.self) }
            tree = tree.setting(sample, at: keys[...]) ?? tree
        }
        return try ParentRecord(resource: "sample", key: "1", json: tree.bytes)
    }
}
