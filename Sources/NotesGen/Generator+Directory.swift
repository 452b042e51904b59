import NotesSystem

extension Generator {
    /// The dir format (Fixtures/README.md): `pages/NNNNN.json`, then `manifest.json`.
    ///
    /// Each page's manifest entry goes to a temporary file as the page is written; at the end the
    /// manifest is assembled from a header, that file and a footer, into `manifest.json.tmp`, then
    /// renamed, so a reader never sees half a manifest. Page file names are zero-padded to one width,
    /// five digits or more, so they sort.
    func writeDirectory(_ directory: String) throws(GeneratorError) -> Summary {
        let entriesPath = directory + "/.manifest-pages.tmp"
        let entriesFile: Int32
        do {
            try System.makeDirectory(directory)
            try System.makeDirectory(directory + "/pages")
            entriesFile = try System.create(entriesPath, readable: true)
        } catch {
            throw GeneratorError(.cannotCreate, path: directory, error)
        }
        defer {
            try? System.closeFile(entriesFile)
            try? System.removeFile(entriesPath)
        }

        let seed = configuration.seed
        let pageCount = configuration.pageCount
        let width = max(5, String(pageCount - 1).count)
        var faults: [Int: Fault.Kind] = [:]
        for fault in configuration.faults { faults[fault.page - 1] = fault.kind }

        let renderer = NoteRenderer(seed: seed, idKind: configuration.idKind)
        var checksum = FNV1a64()
        var sink = ByteSink()
        var entries = ByteSink(capacity: 64 << 10)
        entries.attach(entriesFile)
        var totalBytes = 0
        var cursor: [UInt8]? = nil

        for page in 0..<pageCount {
            let digits = String(page)
            let name = "pages/" + String(repeating: "0", count: max(0, width - digits.count)) + digits + ".json"
            let path = directory + "/" + name
            let file: Int32
            do { file = try System.create(path) } catch { throw GeneratorError(.cannotWrite, path: path, error) }
            sink.attach(file)

            sink.append(#"{"notes":"#)
            let itemsStart = sink.position
            sink.append(byte: UInt8(ascii: "["))
            let notes = configuration.notes(onPage: page)
            let fault = faults[page]
            for index in notes {
                if index > notes.lowerBound { sink.append(byte: UInt8(ascii: ",")) }
                let planted = index == notes.upperBound - 1 ? fault : nil
                renderer.render(note: index, fault: planted, into: &sink, checksum: &checksum)
            }
            sink.append(byte: UInt8(ascii: "]"))
            let itemsEnd = sink.position
            let next = page + 1 < pageCount ? PageCursor.bytes(seed: seed, page: page + 1) : nil
            sink.append(#","next_cursor":"#)
            Self.append(string: next, to: &sink)
            sink.append(byte: UInt8(ascii: "}"))
            let bytes = try finish(&sink, file: file, path: path)
            totalBytes += bytes

            entries.append(page == 0 ? "    " : ",\n    ")
            entries.append(#"{"file": "#)
            Self.append(string: Array(name.utf8), to: &entries)
            entries.append(#", "cursor": "#)
            Self.append(string: cursor, to: &entries)
            entries.append(#", "next_cursor": "#)
            Self.append(string: next, to: &entries)
            entries.append(#", "notes": "#)
            entries.append(decimal: notes.count)
            entries.append(#", "bytes": "#)
            entries.append(decimal: bytes)
            entries.append(#", "items": ["#)
            entries.append(decimal: itemsStart)
            entries.append(", ")
            entries.append(decimal: itemsEnd)
            entries.append("]}")
            cursor = next
        }
        do {
            _ = try entries.finishFile()
            try System.rewind(entriesFile)
        } catch {
            throw GeneratorError(.cannotWrite, path: entriesPath, error)
        }

        let manifestPath = directory + "/manifest.json"
        let temporaryPath = manifestPath + ".tmp"
        let manifest: Int32
        do { manifest = try System.create(temporaryPath) } catch {
            throw GeneratorError(.cannotWrite, path: temporaryPath, error)
        }
        sink.attach(manifest)
        sink.append("{\n  \"format\": \"notes-gen/1\",\n  \"count\": ")
        sink.append(decimal: configuration.count)
        sink.append(",\n  \"page_size\": ")
        sink.append(decimal: configuration.pageSize)
        sink.append(",\n  \"seed\": ")
        sink.append(decimal: seed)
        if configuration.idKind != .string {  // absent for string ids, so that their manifest stays as it was
            sink.append(",\n  \"id_kind\": ")
            Self.append(string: Array(configuration.idKind.rawValue.utf8), to: &sink)
        }
        sink.append(",\n  \"faults\": [")
        for (index, fault) in configuration.faults.enumerated() {
            if index > 0 { sink.append(", ") }
            Self.append(string: Array(fault.description.utf8), to: &sink)
        }
        sink.append("],\n  \"total_bytes\": ")
        sink.append(decimal: totalBytes)
        sink.append(",\n  \"ids_fnv1a64\": ")
        Self.append(string: Array(checksum.hexDigits.utf8), to: &sink)
        sink.append(",\n  \"pages\": [\n")
        do { try sink.append(contentsOf: entriesFile) } catch {
            throw GeneratorError(.cannotWrite, path: entriesPath, error)
        }
        sink.append("\n  ]\n}\n")
        _ = try finish(&sink, file: manifest, path: temporaryPath)
        do { try System.renameFile(temporaryPath, to: manifestPath) } catch {
            throw GeneratorError(.cannotWrite, path: manifestPath, error)
        }

        return Summary(noteCount: configuration.count, totalBytes: totalBytes, idsChecksum: checksum)
    }

    /// Appends `text` as a JSON string, or `null` when `nil`. The text needs no escaping (cursors,
    /// file names, fault names).
    private static func append(string text: [UInt8]?, to sink: inout ByteSink) {
        guard let text else {
            sink.append("null")
            return
        }
        sink.append(byte: UInt8(ascii: "\""))
        sink.append(text)
        sink.append(byte: UInt8(ascii: "\""))
    }
}
