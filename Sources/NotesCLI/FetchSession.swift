import ArgumentParsing
import NotesFetch
import NotesPage
import NotesStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One run of `fetch`: its destination (an NDJSON file with `--state`, or `--sqlite`), the walk that
/// commits to it, and what the run says about itself.
final class FetchSession: @unchecked Sendable {
    // One walk at a time touches a session: its task's page callback, then the command after awaiting it.
    let command: FetchCommand
    let walk: CommittedWalk
    let started = Clock.now

    /// Opens the run's destination: a new run, the one it holds cut back to its last committed page, or
    /// a new run over a complete one (a copy refreshed, an incremental sync).
    init(command: FetchCommand, afterStep: @escaping (CommitStep) throws(CommitStop) -> Void) throws(StoreError) {
        self.command = command
        let destination: any PageDestination
        if let postgres = command.postgres {
            #if canImport(CPostgres)
                let database = try PostgresDestination(
                    connection: postgres, schema: command.schema, table: command.table,
                    titles: command.options.configuration.titlePath != nil, unit: command.unit,
                    window: command.window, pages: command.pages, sessions: command.sessions)
                database.afterStep = afterStep
                database.claim = command.claim
                destination = database
            #else
                throw StoreError("--postgres: this build has no libpq")
            #endif
        } else if let sqlitePath = command.sqlitePath {
            let database = try SQLiteDestination(
                path: sqlitePath, table: command.table, titles: command.options.configuration.titlePath != nil,
                unit: command.unit, window: command.window)
            database.afterStep = afterStep
            destination = database
        } else {
            let file = NDJSONDestination(
                outputPath: command.outputPath, statePath: command.statePath,
                format: NDJSONDestination.Format(rawValue: command.options.format.rawValue) ?? .ndjson,
                unit: command.unit)
            file.afterStep = afterStep
            destination = file
        }
        walk = try CommittedWalk(
            url: command.url, pagination: command.pagination, destination: destination,
            incremental: command.incremental, window: command.window,
            pages: command.pages.map { ($0, command.claim?.run ?? 1) })
    }

    var state: WalkCheckpoint { walk.checkpoint }

    /// The summary line; when the walk reached the last page (`complete`), also a total the server
    /// announced below the notes that arrived (one above them is an error: ``missingNotes``).
    func summary(seconds: Double, complete: Bool) -> String {
        let megabytes = Double(state.bytes) / 1e6
        let rate = seconds > 0 ? megabytes / seconds : 0
        let notes = state.notes == 0 ? "No notes" : state.notes == 1 ? "1 note" : "\(state.notes) notes"
        let pages = state.pages == 1 ? "1 page" : "\(state.pages) pages"
        let skipped =
            state.skipped == 0
            ? ""
            : ", \(state.skipped) \(walk.absorbsOverlap ? "already kept" : "duplicate\(state.skipped == 1 ? "" : "s") skipped")"
        let wire = state.wireBytes ?? 0
        let bytes =
            wire > 0 && wire != state.bytes ? "\(state.bytes) bytes (\(wire) on the wire)" : "\(state.bytes) bytes"
        var since = ""
        if let sinceState = state.since, command.incremental != nil {
            since = sinceState.from.map { "since \($0): " } ?? "first sync: "
        }
        var text =
            "\(since)\(notes), \(pages)\(skipped), \(bytes), \(Clock.format(seconds)) s, \(Clock.format(rate, places: 1)) MB/s\n"
        if complete, command.pages == nil, let total = state.total, total < state.notes + state.skipped {
            text += "The server announced \(total) notes; \(state.notes + state.skipped) arrived.\n"
        }
        return text
    }

    /// The error for a walk that reached its last page with fewer notes than the server announced.
    var missingNotes: String? {
        // A range of pages holds part of the total.
        guard command.pages == nil, let total = state.total, total > state.notes + state.skipped else { return nil }
        let arrived = state.notes + state.skipped
        return
            "Error: the server announced \(total) notes, but its last page came after \(arrived): \(total - arrived) are missing\n"
    }

    /// How to go on after a stop, or `nil` when there is nothing to resume.
    func resumeHint(_ verb: String, url: URL, next: PageLocation) -> String? {
        let committed =
            "\(verb) after \(state.pages) committed page\(state.pages == 1 ? "" : "s") (\(state.notes) notes)."
        if let advice = command.resumeAdvice { return "\(committed) \(advice)\n" }
        if command.postgres != nil {
            return "\(committed) Run the same command again to go on.\n"
        }
        if let sqlitePath = command.sqlitePath {
            var words = ["notes-page", "fetch", "--all", "--sqlite", sqlitePath]
            if command.table != "notes" { words += ["--table", command.table] }
            words.append(url.absoluteString)
            return "\(committed) Resume with: \(words.map(shellQuote).joined(separator: " "))\n"
        }
        if let statePath = command.statePath {
            var words = ["notes-page", "fetch", "--all", "--state", statePath]
            if let output = command.outputPath { words += ["-o", output] }
            words.append(url.absoluteString)
            return "\(committed) Resume with: \(words.map(shellQuote).joined(separator: " "))\n"
        }
        switch next {
        case .cursor(let cursor), .after(let cursor), .json(let cursor):
            return "\(committed) Continue with: --cursor \(shellQuote(cursor))\n"
        case .offset(let number), .page(let number):
            if state.pages > 0 { return "\(committed) Continue with: --cursor \(number)\n" }
        case .start, .url:
            break
        }
        return state.pages > 0 ? "\(committed)\n" : nil
    }
}

/// Quotes `word` for a POSIX shell when it needs it.
func shellQuote(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
    return plain && !word.isEmpty
        ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}

extension ExitStatus {
    /// The exit status of a destination's failure: 74 for the output, 69 for a database server that cannot be
    /// reached, 77 for one that refuses the credentials, 65 for a record another unit committed.
    init(_ error: StoreError) {
        switch error.kind {
        case .output: self = .ioError
        case .unavailable: self = .unavailable
        case .credentials: self = .noPermission
        case .record: self = .dataError
        }
    }
}
