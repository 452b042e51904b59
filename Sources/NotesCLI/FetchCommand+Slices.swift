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

// `fetch --slice-*`: one endpoint walked in time windows (``TimeSlices``), one window after another, each
// with its own checkpoint in the table.

extension FetchCommand {
    static let sliceGroup = "TIME WINDOWS"
    static let slicePath = Declared.text(
        "--slice-path", value: "path",
        help: "Walk in time windows of this field of the records (e.g. created), each its own walk.", group: sliceGroup)
    static let sliceParams = Declared.text(
        "--slice-params", value: "lower,upper",
        help: "The query parameters of a window's start and end (e.g. created__gte,created__lt).", group: sliceGroup)
    static let sliceStep = Declared.text(
        "--slice-step", value: "duration", help: "A window's span (e.g. 6h, 1d).", group: sliceGroup)
    static let sliceFrom = Declared.text(
        "--slice-from", value: "time", help: "The first window's start: a date, an RFC 3339 date-time or seconds.",
        group: sliceGroup)
    static let sliceTo = Declared.text(
        "--slice-to", value: "time", help: "The last window's end.", defaultShown: "now", group: sliceGroup)
    static let sliceLookback = Declared.text(
        "--slice-lookback", value: "duration", help: "How far before the last window's end a later run starts.",
        defaultShown: "0", group: sliceGroup)
    static let sliceFormat = Declared.text(
        "--slice-format", value: "format", help: "How the bounds are sent: rfc3339 or unix (seconds).",
        defaultShown: "rfc3339", group: sliceGroup)

    static var sliceSpecs: [CommandSpec.Option] {
        [slicePath, sliceParams, sliceStep, sliceFrom, sliceTo, sliceLookback, sliceFormat].map(\.spec)
    }

    /// The `--slice-*` options as ``TimeSlices``; `nil` when none is given. They need a table to keep each
    /// window's checkpoint in (`--sqlite` or `--postgres`) and `--all`, and exclude `--since-path` and
    /// `--cursor`.
    static func slices(_ parsed: ParsedArguments, hasTable: Bool) throws(UsageError) -> TimeSlices? {
        let names = sliceSpecs.map(\.name)
        let given = names.filter { parsed.has($0) }
        guard !given.isEmpty else { return nil }
        for required in [slicePath, sliceParams, sliceStep, sliceFrom].map(\.spec.name) where !given.contains(required)
        {
            throw UsageError(
                "\(given[0]) needs \(required) (and --slice-path, --slice-params, --slice-step, --slice-from)")
        }
        guard hasTable else {
            throw UsageError(
                "--slice-path walks one window at a time, each with its checkpoint in a table: give --sqlite FILE or --postgres URL"
            )
        }
        for (option, name) in [(all.spec.name, "--all")] where !parsed.has(option) {
            throw UsageError("--slice-path walks every window to its end: give \(name)")
        }
        for option in [sincePath.spec.name, cursor.spec.name] where parsed.has(option) {
            throw UsageError("--slice-path and \(option) do not go together")
        }
        let params = (try parsed[sliceParams] ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0).trimmingWhitespace() }
        guard params.count == 2, params.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }), params[0] != params[1]
        else {
            throw UsageError(
                "Invalid --slice-params: two parameters' names, a window's start's and its end's (created__gte,created__lt)"
            )
        }
        return try TimeSlices.written(
            path: try parsed[slicePath] ?? "", params: (params[0], params[1]), step: try parsed[sliceStep] ?? "",
            from: try parsed[sliceFrom] ?? "", to: try parsed[sliceTo], lookback: try parsed[sliceLookback],
            format: try parsed[sliceFormat]
        ) { key in ("--slice-" + key, "--slice-" + key) }
    }

    /// Walks the windows of ``slices`` one after another (those a run before left unfinished first, then
    /// the new ones), each a walk of its own into the table; stops at the first that does not end well.
    func runWindows(_ slices: TimeSlices, _ runtime: FetchRuntime, cancellation: CancellationFlag) async
        -> ExitStatus
    {
        let windows: [SliceWindow]
        do {
            let table: any ParentTable
            if let postgres {
                #if canImport(CPostgres)
                    table = try PostgresDestination(connection: postgres, schema: schema, table: self.table)
                #else
                    _ = postgres
                    throw StoreError("--postgres: this build has no libpq")
                #endif
            } else {
                table = try SQLiteDestination(path: sqlitePath ?? "", table: self.table)
            }
            windows = try slices.plan(
                existing: try table.windowWalks(path: slices.path), now: Int(Date().timeIntervalSince1970))
        } catch {
            runtime.report("Error: \(error)\n")
            return ExitStatus(error)
        }
        if !quiet {
            runtime.report(
                "\(windows.count) window\(windows.count == 1 ? "" : "s") of \(slices.path)\(windows.first.map { " from \($0.key.prefix { $0 != "/" })" } ?? "")\n"
            )
        }
        for window in windows {
            if cancellation.isCancelled { return .interrupted }
            var command = self
            command.slices = nil
            command.window = window
            guard let url = slices.url(url, bounded: window) else { return .usage }
            command.url = url
            var made = runtime
            made.label(window.key)
            let status = await command.run(made, cancellation: cancellation)
            guard status == .success else { return status }
        }
        return .success
    }
}

extension TimeSlices {
    /// A slice as written, `fetch`'s `--slice-*` options or a source's `slice:`, each value checked:
    /// `place(key)` says where the key (`path`, `step`, `from`, `to`, `lookback`, `format`) is written and
    /// what it is called, for errors.
    static func written(
        path: String, params: (String, String), step: String, from: String, to: String?, lookback: String?,
        format: String?, place: (String) -> (at: String, name: String)
    ) throws(UsageError) -> TimeSlices {
        let fieldPath: FieldPath
        do {
            fieldPath = try FieldPath.parse(path)
        } catch {
            throw UsageError("\(place("path").at): \(error)")
        }
        func duration(_ key: String, _ text: String?, least: Int) throws(UsageError) -> Int? {
            guard let text else { return nil }
            guard let seconds = FetchCommand.duration(text), Int(seconds) >= least else {
                throw UsageError(
                    "\(place(key).at) is '\(ParsedArguments.clip(text))': a duration such as 30s, 5m, 2h or 1d (at most 366d\(least > 0 ? ", at least 1s" : ""))"
                )
            }
            return Int(seconds)
        }
        func time(_ key: String, _ text: String?) throws(UsageError) -> Int? {
            guard let text else { return nil }
            guard let seconds = TimeSlices.seconds(text) else {
                throw UsageError(
                    "\(place(key).at) is '\(ParsedArguments.clip(text))': a date (2020-01-01), an RFC 3339 date-time in whole seconds (2020-01-01T00:00:00Z) or seconds since 1970"
                )
            }
            return seconds
        }
        var chosen = Format.rfc3339
        if let format {
            guard let named = Format(rawValue: format) else {
                throw UsageError("\(place("format").at) is '\(ParsedArguments.clip(format))': rfc3339 or unix")
            }
            chosen = named
        }
        let first = try time("from", from)!
        let last = try time("to", to)
        if let last, last <= first {
            let (at, name) = place("to")
            throw UsageError("\(at == name ? "" : at + ": ")\(name) must come after \(place("from").name)")
        }
        let span = try duration("step", step, least: 1)!
        let end = last ?? Int(Date().timeIntervalSince1970)
        guard (end - first) / span < maxWindows else {
            throw UsageError(
                "\(place("step").at): \((end - first) / span) windows of \(step) from \(place("from").name) to \(last == nil ? "now" : place("to").name), over the \(maxWindows) a run may plan: take a larger step"
            )
        }
        return TimeSlices(
            path: fieldPath, lower: params.0, upper: params.1, step: span, from: first, to: last,
            lookback: try duration("lookback", lookback, least: 0) ?? 0, format: chosen)
    }
}
