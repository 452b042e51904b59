import ArgumentParsing
import NotesPage
import NotesStore
import NotesSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `notes-page decode [<file>|-]`: decodes one page from a file or standard input, streaming.
struct DecodeCommand: Equatable {
    static let spec = CommandSpec(
        name: "notes-page decode",
        overview: "Decode one page of notes from a file or standard input and check it against the contract.",
        arguments: [.init("file", help: "The page to read, or - for standard input. Default: -.")],
        options: PageOptions.specs
    )

    var path: String
    var options: PageOptions

    /// Reads the command's options; a pure function.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        path = parsed.positionals.first ?? "-"
        options = try PageOptions(parsed)
    }

    /// Decodes the page, writing notes to standard output and the cursor and summary to standard error.
    /// - Returns: 0 for a valid page, 65 when the page breaks the contract or a limit, 66 when the file
    ///   cannot be opened, 74 on a read or write error.
    func run() -> ExitStatus {
        let name = path == "-" ? "standard input" : path
        let reader: ChunkReader
        do {
            reader = try ChunkReader(path: path)
        } catch {
            printError("Error: \(error)\n")
            return .noInput
        }
        var output = OutputWriter(descriptor: STDOUT_FILENO)
        var configuration = options.configuration
        // Validating only: every note is read and checked, none is built.
        configuration.keepsNotes = options.format != .none
        var decoder = PageDecoder(configuration: configuration)
        var notes: [Note] = []
        let started = Clock.now
        do {
            while true {
                let chunk = try reader.next()
                if chunk.isEmpty { break }
                try decoder.feed(chunk, into: &notes)
                try write(notes, to: &output)
                notes.removeAll(keepingCapacity: true)
            }
            let summary = try decoder.finish(into: &notes)
            try write(notes, to: &output)
            try output.flush()
            printError(Self.summary(summary, seconds: Clock.now - started))
            return .success
        } catch let error as PageError {
            try? write(notes, to: &output)
            try? output.flush()
            printError("Error: \(name): \(error)\n")
            return .dataError
        } catch {
            try? output.flush()
            printError("Error: \(name): \(error)\n")
            return .ioError
        }
    }

    private func write(_ notes: [Note], to output: inout OutputWriter) throws(SystemError) {
        switch options.format {
        case .ndjson:
            for note in notes {
                try output.write(note.json!)
                try output.write(byte: UInt8(ascii: "\n"))
            }
        case .ids:
            for note in notes {
                try output.write(note.idBytes)
                try output.write(byte: UInt8(ascii: "\n"))
            }
        case .none:
            break
        }
    }

    static func summary(_ page: PageDecoder.Summary, seconds: Double) -> String {
        let next = page.nextCursor.map { "next cursor: \($0)" } ?? "next cursor: none (last page)"
        let counted = page.noteCount == 0 ? "No notes" : page.noteCount == 1 ? "1 note" : "\(page.noteCount) notes"
        return "\(next)\n\(counted), \(page.byteCount) bytes, \(Clock.format(seconds)) s\n"
    }
}

/// Monotonic time in seconds.
enum Clock {
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `value` with `places` decimals, e.g. `1.250`, without Foundation's `String(format:)`.
    static func format(_ value: Double, places: Int = 3) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        guard places > 0 else { return String(scaled) }
        let fraction = String(abs(scaled) % scale)
        let whole = scaled / scale
        return "\(scaled < 0 && whole == 0 ? "-" : "")\(whole)."
            + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
