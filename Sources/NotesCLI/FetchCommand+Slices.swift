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
        let path: FieldPath
        do {
            path = try FieldPath.parse(try parsed[slicePath] ?? "")
        } catch {
            throw UsageError("Invalid --slice-path: \(error)")
        }
        let params = (try parsed[sliceParams] ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0).trimmingWhitespace() }
        guard params.count == 2, params.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }), params[0] != params[1]
        else {
            throw UsageError(
                "Invalid --slice-params: two parameters' names, a window's start's and its end's (created__gte,created__lt)"
            )
        }
        func duration(_ option: Declared<String?>, least: Int) throws(UsageError) -> Int? {
            guard let text = try parsed[option] else { return nil }
            guard let seconds = Self.duration(text), Int(seconds) >= least else {
                throw UsageError(
                    "Invalid \(option.spec.name) '\(ParsedArguments.clip(text))': a duration such as 30s, 5m, 2h or 1d")
            }
            return Int(seconds)
        }
        func time(_ option: Declared<String?>) throws(UsageError) -> Int? {
            guard let text = try parsed[option] else { return nil }
            guard let seconds = TimeSlices.seconds(text) else {
                throw UsageError(
                    "Invalid \(option.spec.name) '\(ParsedArguments.clip(text))': a date (2020-01-01), an RFC 3339 date-time in whole seconds or seconds since 1970"
                )
            }
            return seconds
        }
        var format = TimeSlices.Format.rfc3339
        if let text = try parsed[sliceFormat] {
            guard let chosen = TimeSlices.Format(rawValue: text) else {
                throw UsageError("Invalid --slice-format '\(ParsedArguments.clip(text))': rfc3339 or unix")
            }
            format = chosen
        }
        let from = try time(sliceFrom)!
        let to = try time(sliceTo)
        if let to, to <= from { throw UsageError("--slice-to must come after --slice-from") }
        let step = try duration(sliceStep, least: 1)!
        let windows = ((to ?? Int(Date().timeIntervalSince1970)) - from) / step
        guard windows < TimeSlices.maxWindows else {
            throw UsageError(
                "--slice-step makes \(windows) windows, over the \(TimeSlices.maxWindows) a run may plan: take a larger step"
            )
        }
        return TimeSlices(
            path: path, lower: params[0], upper: params[1], step: step, from: from, to: to,
            lookback: try duration(sliceLookback, least: 0) ?? 0, format: format)
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
            return error.kind == .output ? .ioError : error.kind == .unavailable ? .unavailable : .noPermission
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
            let write = runtime.report
            made.report = { text in
                write(
                    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                        .map { "[\(window.key)] \($0)\n" }.joined())
            }
            made.showsProgress = false
            let status = await command.run(made, cancellation: cancellation)
            guard status == .success else { return status }
        }
        return .success
    }
}
