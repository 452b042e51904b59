import NotesFetch
import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durable steps of committing a page, in order.
enum CommitStep: Sendable, Hashable, CaseIterable {
    /// The page's notes are in the output file.
    case output
    /// Its ids and next URL are in the journal.
    case journal
    /// The state file names it (renamed into place): the page is committed.
    case state
}

/// The output, the state and the journal of one run.
final class FetchSession: @unchecked Sendable {
    // One walk at a time touches a session: its task's page callback, then the command after awaiting it.
    let command: FetchCommand
    let locator: PageLocator
    let output: OutputFile
    let journal: OutputFile?
    let ids = IDSet()
    let visited = IDSet()
    var state: RunState
    let started = Clock.now
    private let afterStep: @Sendable (CommitStep) throws(SystemError) -> Void

    /// Opens the run's files: a new run, or the one `--state` names, cut back to its last committed page.
    init(
        command: FetchCommand,
        locator: PageLocator,
        afterStep: @escaping @Sendable (CommitStep) throws(SystemError) -> Void = { _ throws(SystemError) in }
    ) throws(SystemError) {
        self.command = command
        self.locator = locator
        self.afterStep = afterStep
        let url = locator.endpoint.absoluteString
        let pagination = locator.pagination.description
        var state = RunState(url: url, pagination: pagination)
        if let statePath = command.statePath, let saved = try RunState.load(statePath) {
            guard saved.url == url else {
                throw SystemError(operation: "'\(statePath)' is the state of another run (\(saved.url))", code: EINVAL)
            }
            guard saved.pagination == pagination else {
                throw SystemError(
                    operation:
                        "'\(statePath)' is the state of a run with --paginate \(saved.pagination), not \(pagination)",
                    code: EINVAL)
            }
            state = saved
        }
        self.state = state
        if let path = command.outputPath {
            output = try OutputFile(path: path, length: state.outputBytes)
        } else {
            output = OutputFile(standardOutput: ())
        }
        if let statePath = command.statePath {
            let journalPath = statePath + ".journal"
            if state.journalBytes > 0, let bytes = try readFile(journalPath, limit: FetchLimits.maxJournalBytes) {
                try Journal.replay(Array(bytes.prefix(state.journalBytes)), ids: ids, visited: visited)
            }
            journal = try OutputFile(path: journalPath, length: state.journalBytes)
        } else {
            journal = nil
        }
    }

    /// Writes a complete page: its notes to the output in one piece, then the journal, then the state.
    func commit(_ page: FetchedPage) throws(FetchError) {
        var bytes: [UInt8] = []
        for note in page.notes {
            switch command.options.format {
            case .ndjson: bytes.append(contentsOf: note.json ?? [])
            case .ids: bytes.append(contentsOf: note.idBytes)
            case .none: continue
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            try output.write(bytes)
            try afterStep(.output)
            state.pages += 1
            state.notes += page.notes.count
            state.skipped += page.skippedCount
            state.total = page.total ?? state.total
            state.bytes += page.byteCount
            state.wireBytes = (state.wireBytes ?? 0) + page.wireBytes
            state.next = page.next
            state.outputBytes = output.length
            if let journal, let statePath = command.statePath {
                var record: [UInt8] = []
                Journal.record(page, nextURL: page.next.map { locator.identity(for: $0) }, into: &record)
                try journal.write(record)
                try afterStep(.journal)
                state.journalBytes = journal.length
                try state.save(statePath)
                try afterStep(.state)
            }
        } catch {
            throw FetchError(.output(error.description), page: page.number, location: page.location)
        }
    }

    /// The summary line; when the walk reached the last page (`complete`), also a total the server
    /// announced below the notes that arrived (one above them is an error: ``missingNotes``).
    func summary(seconds: Double, complete: Bool) -> String {
        let megabytes = Double(state.bytes) / 1e6
        let rate = seconds > 0 ? megabytes / seconds : 0
        let notes = state.notes == 0 ? "No notes" : state.notes == 1 ? "1 note" : "\(state.notes) notes"
        let pages = state.pages == 1 ? "1 page" : "\(state.pages) pages"
        let skipped =
            state.skipped == 0
            ? "" : ", \(state.skipped) duplicate\(state.skipped == 1 ? "" : "s") skipped"
        let wire = state.wireBytes ?? 0
        let bytes =
            wire > 0 && wire != state.bytes ? "\(state.bytes) bytes (\(wire) on the wire)" : "\(state.bytes) bytes"
        var text =
            "\(notes), \(pages)\(skipped), \(bytes), \(Clock.format(seconds)) s, \(Clock.format(rate, places: 1)) MB/s\n"
        if complete, let total = state.total, total < state.notes + state.skipped {
            text += "The server announced \(total) notes; \(state.notes + state.skipped) arrived.\n"
        }
        return text
    }

    /// The error for a walk that reached its last page with fewer notes than the server announced.
    var missingNotes: String? {
        guard let total = state.total, total > state.notes + state.skipped else { return nil }
        let arrived = state.notes + state.skipped
        return
            "Error: the server announced \(total) notes, but its last page came after \(arrived): \(total - arrived) are missing\n"
    }

    /// How to go on after a stop, or `nil` when there is nothing to resume.
    func resumeHint(_ verb: String, url: URL, next: PageLocation) -> String? {
        let committed =
            "\(verb) after \(state.pages) committed page\(state.pages == 1 ? "" : "s") (\(state.notes) notes)."
        if let statePath = command.statePath {
            var words = ["notes-page", "fetch", "--all", "--state", statePath]
            if let output = command.outputPath { words += ["-o", output] }
            words.append(url.absoluteString)
            return "\(committed) Resume with: \(words.map(shellQuote).joined(separator: " "))\n"
        }
        switch next {
        case .cursor(let cursor), .after(let cursor):
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
