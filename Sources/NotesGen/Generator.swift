public import ArgumentParsing
import NotesSystem

/// Writes a deterministic run of notes: a fixture directory, one page, or NDJSON.
///
/// It streams: notes are rendered one at a time into a fixed 256 KiB buffer that goes out with
/// `write(2)`, and the dir format's per-page manifest entries wait in a temporary file, not in memory.
/// Memory stays flat whatever ``Configuration/count``.
///
/// The same configuration gives the same bytes on every machine: notes come from ``SplitMix64`` streams
/// keyed by the seed and the note's index; no clock, no `Hasher`, no Foundation encoder.
///
/// ```swift
/// let generator = try Generator(Generator.Configuration(count: 10_000, output: .path("/tmp/fixture")))
/// let summary = try generator.run()
/// ```
public struct Generator: Sendable {
    /// What a run wrote.
    public struct Summary: Sendable, Hashable {
        public var noteCount: Int
        /// Bytes of notes output: the page files' total in the dir format (the manifest's
        /// `total_bytes`, manifest excluded), everything written otherwise.
        public var totalBytes: Int
        /// FNV-1a over every id as a client decodes it (a string id's UTF-8 bytes, an integer id's
        /// digits), each followed by `\n`, in order: the manifest's `ids_fnv1a64`.
        public var idsChecksum: FNV1a64
    }

    public let configuration: Configuration

    /// - Throws: ``UsageError`` when the configuration does not validate (``Configuration/validate()``).
    public init(_ configuration: Configuration) throws(UsageError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Writes the run to ``Configuration/output``.
    /// - Throws: ``GeneratorError``: ``GeneratorError/Code/cannotCreate`` when the output cannot be
    ///   created, ``GeneratorError/Code/cannotWrite`` when writing fails later.
    @discardableResult
    public func run() throws(GeneratorError) -> Summary {
        switch (configuration.format, configuration.output) {
        case (.dir, .path(let directory)):
            return try writeDirectory(directory)
        case (.dir, .standardOutput):
            preconditionFailure("validate() refuses the dir format on standard output")
        case (.ndjson, _), (.page, _):
            return try writeStream()
        }
    }

    // MARK: - One stream

    /// The ndjson and page formats: one file or standard output.
    private func writeStream() throws(GeneratorError) -> Summary {
        let descriptor: Int32
        let path: String
        switch configuration.output {
        case .standardOutput:
            descriptor = System.standardOutput
            path = "-"
        case .path(let file):
            do { descriptor = try System.create(file) } catch { throw GeneratorError(.cannotCreate, path: file, error) }
            path = file
        }
        let renderer = NoteRenderer(seed: configuration.seed, idKind: configuration.idKind)
        var checksum = FNV1a64()
        var sink = ByteSink()
        sink.attach(descriptor)
        if configuration.format == .ndjson {
            for index in 0..<configuration.count {
                renderer.render(note: index, fault: nil, into: &sink, checksum: &checksum)
                sink.append(byte: UInt8(ascii: "\n"))
            }
        } else {
            sink.append(#"{"notes":["#)
            for index in 0..<configuration.count {
                if index > 0 { sink.append(byte: UInt8(ascii: ",")) }
                renderer.render(note: index, fault: nil, into: &sink, checksum: &checksum)
            }
            sink.append(#"],"next_cursor":null}"#)
        }
        let bytes = try finish(&sink, file: descriptor, path: path, closing: descriptor != System.standardOutput)
        return Summary(noteCount: configuration.count, totalBytes: bytes, idsChecksum: checksum)
    }

    /// Flushes `sink` and closes `file`, reporting the first error of either.
    /// - Returns: The file's size.
    func finish(_ sink: inout ByteSink, file: Int32, path: String, closing: Bool = true) throws(GeneratorError) -> Int {
        var failure: SystemError?
        var bytes = 0
        do { bytes = try sink.finishFile() } catch { failure = error }
        if closing {
            do { try System.closeFile(file) } catch { failure = failure ?? error }
        }
        if let failure { throw GeneratorError(.cannotWrite, path: path, failure) }
        return bytes
    }
}
