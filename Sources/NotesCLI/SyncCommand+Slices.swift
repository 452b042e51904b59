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

// A sliced resource (`slice:`): read from the source, and its windows planned for a run; a resource split
// into ranges of pages for workers (`pages-per-unit:`), read from the source.

extension SyncCommand {
    /// The keys of `slice`.
    static let sliceKeys = ["path", "params", "step", "from", "to", "lookback", "format"]

    /// A resource's `slice` as ``TimeSlices``:
    ///
    /// ```yaml
    /// slice: {path: created, params: [created__gte, created__lt], step: 1d, from: 2020-01-01}
    /// ```
    ///
    /// `to` (the last window's end; now when absent), `lookback` (a duration a later run goes back) and
    /// `format` (`rfc3339`, the default, or `unix`: how the bounds are sent) may be given too.
    static func slices(_ node: SourceNode, of resource: SourceResource, file: String) throws(UsageError)
        -> TimeSlices
    {
        let place = "\(file):\(node.mark): resource '\(resource.name)': slice"
        guard case .mapping(let entries) = node.value else {
            throw UsageError("\(place) is \(node.kind), not a mapping of \(sliceKeys.joined(separator: ", "))")
        }
        var values: [String: (text: String, at: String)] = [:]
        var params: [String] = []
        for entry in entries {
            let at = "\(file):\(entry.value.mark): resource '\(resource.name)': slice's '\(entry.key)'"
            guard sliceKeys.contains(entry.key) else {
                throw UsageError(
                    "\(file):\(entry.keyMark): "
                        + SourceFile.unknown(entry.key, known: sliceKeys, in: "resource '\(resource.name)''s slice"))
            }
            if entry.key == "params" {
                guard case .sequence(let items) = entry.value.value, items.count == 2 else {
                    throw UsageError(
                        "\(at) lists the two query parameters that bound a window, its start's and its end's: [created__gte, created__lt]"
                    )
                }
                for item in items {
                    guard case .scalar(let text, _) = item.value, !text.isEmpty, text.utf8.count <= 256 else {
                        throw UsageError("\(at): each is a parameter's name of 1 to 256 bytes")
                    }
                    params.append(text)
                }
                guard params[0] != params[1] else { throw UsageError("\(at): two parameters, not one twice") }
                continue
            }
            guard case .scalar(let text, _) = entry.value.value else {
                throw UsageError("\(at) is \(entry.value.kind), not a value")
            }
            values[entry.key] = (text, at)
        }
        for key in ["path", "params", "step", "from"] where key == "params" ? params.isEmpty : values[key] == nil {
            throw UsageError(
                "\(place) has no '\(key)': it needs path, params, step and from (\(#"{path: created, params: [created__gte, created__lt], step: 1d, from: 2020-01-01}"#))"
            )
        }
        return try TimeSlices.written(
            path: values["path"]!.text, params: (params[0], params[1]), step: values["step"]!.text,
            from: values["from"]!.text, to: values["to"]?.text, lookback: values["lookback"]?.text,
            format: values["format"]?.text
        ) { key in (values[key]?.at ?? place, "'\(key)'") }
    }

    /// A resource's `pages-per-unit`: 1 to 1,000,000 pages, for workers (`--worker`, `--status`), of a
    /// top-level resource whose pages can be addressed ahead (offsets, page numbers) and that is walked whole
    /// each run (no `since-path`).
    static func pagesPerUnit(
        _ node: SourceNode, of resource: SourceResource, command: FetchCommand, workers: Bool, file: String
    ) throws(UsageError) -> Int {
        let place = "\(file):\(node.mark): resource '\(resource.name)': pages-per-unit"
        guard case .scalar(let text, _) = node.value, let count = Int(text), (1...1_000_000).contains(count) else {
            throw UsageError("\(place) is not a number of pages from 1 to 1000000")
        }
        guard workers else {
            throw UsageError(
                "\(place) splits the resource's walk into units for workers: give --worker (or --status), with --postgres"
            )
        }
        let pagination = command.pagination
        guard pagination.location(1, after: pagination.start(endpoint: command.url)) != nil else {
            throw UsageError(
                "\(place) needs pages that can be addressed ahead: paginate: offset or page (with page-size), not \(pagination.description)"
            )
        }
        guard command.incremental == nil else {
            throw UsageError(
                "\(place) and since-path do not go together: a resource split into ranges is walked whole each run")
        }
        guard command.maxPages == nil, command.maxNotes == nil else {
            throw UsageError("\(place) and max-pages or max-notes do not go together: every range would stop there")
        }
        if pagination is OffsetPagination, count < 2 {
            throw UsageError(
                "\(place) is at least 2 with paginate: offset: a page shorter than asked is told from the last one by the page after it"
            )
        }
        return count
    }

    /// The windows sliced resource `index` walks in this run (``TimeSlices/plan(existing:now:)``): each one
    /// a run before left unfinished, then the new ones.
    func windows(of index: Int) throws(StoreError) -> [SliceWindow] {
        guard let slices = resources[index].slices else { return [] }
        let existing = full ? [] : try table(resources[index].name).windowWalks(path: slices.path)
        return try slices.plan(existing: existing, now: Int(Date().timeIntervalSince1970))
    }
}
