public import ArgumentParsing

extension Generator {
    /// What to generate and where: every field of the command line, checked.
    public struct Configuration: Sendable, Hashable {
        /// What the output looks like.
        public enum Format: String, Sendable, Hashable, CaseIterable {
            /// A directory of page files and `manifest.json` (Fixtures/README.md).
            case dir
            /// One note per line.
            case ndjson
            /// One page holding every note, `{"notes":[…],"next_cursor":null}`.
            case page
        }

        /// What a note's `id` is.
        public enum IDKind: String, Sendable, Hashable, CaseIterable {
            /// A JSON string: the note's index in base 36 and a suffix (``NoteRenderer``).
            case string
            /// A JSON integer from 1, rising with gaps, from the seed (``IntegerIDs``).
            case int
        }

        /// Where the output goes.
        public enum Output: Sendable, Hashable {
            case standardOutput
            /// A directory for ``Format/dir``, a file otherwise.
            case path(String)
        }

        /// Most notes on one page: the decoder's default `maxPageNotes`.
        public static let maxPageSize = 100_000
        /// The largest seed: 2⁵³ − 1, so a JavaScript reader of the manifest gets it exactly.
        public static let maxSeed = (1 << 53) - 1

        public var count: Int
        public var pageSize: Int
        public var seed: UInt64
        public var format: Format
        public var idKind: IDKind
        public var output: Output
        /// At most one per page, sorted by page; only for ``Format/dir``. None unless set.
        public var faults: [Fault] = []

        /// - Parameters:
        ///   - count: Notes in the run.
        ///   - pageSize: Notes per page; defaults to 1,000.
        ///   - seed: Defaults to 42.
        ///   - format: Defaults to ``Format/dir``.
        ///   - idKind: Defaults to ``IDKind/string``.
        ///   - output: Defaults to standard output (which ``Format/dir`` refuses).
        public init(
            count: Int,
            pageSize: Int = 1000,
            seed: UInt64 = 42,
            format: Format = .dir,
            idKind: IDKind = .string,
            output: Output = .standardOutput
        ) {
            self.count = count
            self.pageSize = pageSize
            self.seed = seed
            self.format = format
            self.idKind = idKind
            self.output = output
        }

        /// Pages in the run: at least one, so `count` 0 gives one empty page.
        public var pageCount: Int {
            pageSize <= 0 ? 1 : max(1, count / pageSize + (count % pageSize == 0 ? 0 : 1))
        }

        /// The indexes of the notes on page `page` (0-based).
        public func notes(onPage page: Int) -> Range<Int> {
            let start = min(count, page * pageSize)
            return start..<min(count, start + pageSize)
        }

        /// Checks the fields against each other.
        /// - Throws: ``UsageError`` with the message the command line prints.
        public func validate() throws(UsageError) {
            if count < 0 {
                throw UsageError("Invalid value '\(count)' for '--count': expected an integer of at least 0")
            }
            if !(1...Self.maxPageSize).contains(pageSize) {
                throw UsageError(
                    "Invalid value '\(pageSize)' for '--page-size': expected an integer from 1 to \(Self.maxPageSize)")
            }
            if seed > UInt64(Self.maxSeed) {
                throw UsageError("Invalid value '\(seed)' for '--seed': expected an integer from 0 to \(Self.maxSeed)")
            }
            switch (format, output) {
            case (.dir, .standardOutput):
                throw UsageError("Missing expected argument '--out <path>': the dir format writes a directory")
            case (_, .path("")):
                throw UsageError("Invalid value '' for '--out': expected a path, or '-' for standard output")
            default:
                break
            }
            if !faults.isEmpty && format != .dir {
                throw UsageError("'--faults' needs '--format dir': faults are planted on pages")
            }
            var seen = Set<Int>()
            for fault in faults {
                if !seen.insert(fault.page).inserted {
                    throw Fault.invalid(fault.description, "page \(fault.page) already has a fault")
                }
                if fault.page > pageCount {
                    throw Fault.invalid(fault.description, "the run has \(pageCount) page\(pageCount == 1 ? "" : "s")")
                }
                let notes = self.notes(onPage: fault.page - 1)
                if notes.isEmpty { throw Fault.invalid(fault.description, "page \(fault.page) has no notes") }
                if fault.kind == .duplicateID && notes == 0..<1 {
                    throw Fault.invalid(fault.description, "page 1 holds only the run's first note")
                }
            }
        }
    }
}

extension Generator.Configuration {
    /// The directory the dir format goes to without `--out`: `notes-<count>`, relative to the working
    /// directory.
    public static func defaultDirectory(count: Int) -> String { "notes-\(count)" }

    /// Reads the configuration from parsed `notes-gen` arguments (``NotesGenCommand/spec``) and
    /// validates it. Without `--out`, the dir format goes to ``defaultDirectory(count:)`` and the others
    /// to standard output.
    /// - Throws: ``UsageError`` for a missing `--count`, a value out of range, an unknown format, id kind
    ///   or fault, or options that do not go together.
    public init(arguments: ParsedArguments) throws(UsageError) {
        guard arguments.has("--count") else {
            throw UsageError("Missing expected argument '--count <n>'")
        }
        let count = try arguments.integer("--count", default: 0, in: 0...Int.max)
        let pageSize = try arguments.integer("--page-size", default: 1000, in: 1...Self.maxPageSize)
        let seed = try arguments.integer("--seed", default: 42, in: 0...Self.maxSeed)
        let formats = Format.allCases.map(\.rawValue)
        let format = Format(rawValue: try arguments.choice("--format", default: "dir", from: formats))!
        let idKinds = IDKind.allCases.map(\.rawValue)
        let idKind = IDKind(rawValue: try arguments.choice("--id-kind", default: "string", from: idKinds))!
        let output: Output
        switch arguments.value("--out") {
        case nil where format == .dir: output = .path(Self.defaultDirectory(count: count))
        case nil, "-": output = .standardOutput
        case let path?: output = .path(path)
        }
        if format == .dir && arguments.value("--out") == "-" {
            throw UsageError("Invalid value '-' for '--out': the dir format writes a directory, not standard output")
        }
        let faults = try Fault.list(arguments.value("--faults") ?? "")
        self.init(
            count: count, pageSize: pageSize, seed: UInt64(seed), format: format, idKind: idKind, output: output)
        self.faults = faults
        try validate()
    }
}
