#if canImport(CPostgres)
    import NotesFetch
    import NotesPage

    /// A page's notes as `COPY … FROM STDIN` takes them (its text format), and what Postgres cannot hold of
    /// them: the one place that decides which record's `json` is NULL and which title is.
    enum PostgresRows {
        /// A page's notes as rows of COPY's text format: for the table itself (`direct`: id, json, json_text,
        /// and title when it has `titles`, each line then finished by ``finishing(_:fetchedAt:run:)``) or for
        /// the staging table (id, json_text, title, exact_only).
        static func encode(_ page: FetchedPage, titles: Bool, direct: Bool) throws -> [UInt8] {
            var data: [UInt8] = []
            data.reserveCapacity(page.notes.count * (direct ? 512 : 256))
            let tab = UInt8(ascii: "\t")
            let null: [UInt8] = Array("\\N".utf8)
            for note in page.notes {
                guard let json = note.json else { throw StoreError("note \(note.id.prefix(80)) has no JSON kept") }
                // Postgres text holds no U+0000: an id with one cannot be a key here; a title with one is NULL
                // (the record's exact JSON keeps it), and so is the jsonb of a record with \u0000 in it.
                guard !note.idBytes.contains(0) else {
                    throw StoreError(
                        "the note \(note.quotedID) of page \(page.number) has an id with U+0000 in it, which a Postgres text key cannot hold"
                    )
                }
                appendField(note.idBytes, to: &data)
                data.append(tab)
                let exactOnly = json.withUnsafeBytes { jsonbRefuses($0) }
                if direct {
                    if exactOnly {
                        data.append(contentsOf: null)
                    } else {
                        appendField(json, to: &data)
                    }
                    data.append(tab)
                }
                appendField(json, to: &data)
                // The staging table always has a title column; the table itself only with titles.
                if titles || !direct {
                    data.append(tab)
                    if titles, !note.titleBytes.contains(0) {
                        appendField(note.titleBytes, to: &data)
                    } else {
                        data.append(contentsOf: null)
                    }
                }
                data.append(contentsOf: direct ? [UInt8(ascii: "\n")] : Array((exactOnly ? "\tt\n" : "\tf\n").utf8))
            }
            return data
        }

        /// `rows` of ``encode(_:titles:direct:)`` for the table itself, each line finished with its
        /// `fetched_at` and `run` (a line ends at its one raw newline: those in its fields are escaped).
        static func finishing(_ rows: [UInt8], fetchedAt: [UInt8], run: Int) -> [UInt8] {
            let tail = [UInt8(ascii: "\t")] + fetchedAt + [UInt8(ascii: "\t")] + Array("\(run)\n".utf8)
            var finished: [UInt8] = []
            rows.withUnsafeBufferPointer { rows in
                let lines = rows.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
                finished.reserveCapacity(rows.count + lines.count * tail.count)
                for line in lines {
                    finished.append(contentsOf: UnsafeBufferPointer(rebasing: line))
                    finished.append(contentsOf: tail)
                }
            }
            return finished
        }

        /// Appends `bytes` as a field of COPY's text format: backslash, tab, newline and carriage return
        /// escaped; the runs between them copied whole.
        private static func appendField(_ bytes: some Collection<UInt8>, to data: inout [UInt8]) {
            let appended: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                var start = 0
                for index in buffer.indices {
                    let escaped: UInt8
                    switch buffer[index] {
                    case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                    case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
                    case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
                    case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
                    default: continue
                    }
                    data.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<index]))
                    data.append(UInt8(ascii: "\\"))
                    data.append(escaped)
                    start = index + 1
                }
                data.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
            }
            if appended == nil { appendField(Array(bytes), to: &data) }
        }

        /// Whether jsonb refuses what compact JSON `bytes` say: a string with the escape `\u0000`, or a
        /// number outside `numeric`'s range (more than 131,072 digits before its point or 16,383 after it,
        /// its exponent counted: `1e131072`, `1e-16384`). Such a record's `json` is NULL; `json_text` keeps it.
        package static func jsonbRefuses(_ bytes: UnsafeRawBufferPointer) -> Bool {
            var index = 0
            var inString = false
            while index < bytes.count {
                let byte = bytes[index]
                if inString {
                    if byte == UInt8(ascii: "\\") {
                        if index + 5 < bytes.count, bytes[index + 1] == UInt8(ascii: "u"),
                            bytes[index + 2] == UInt8(ascii: "0"), bytes[index + 3] == UInt8(ascii: "0"),
                            bytes[index + 4] == UInt8(ascii: "0"), bytes[index + 5] == UInt8(ascii: "0")
                        {
                            return true
                        }
                        index += 2  // an escaped character: `\\u0000` is a backslash, then text
                        continue
                    }
                    if byte == UInt8(ascii: "\"") { inString = false }
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                    index += 1
                } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    if !numericHolds(bytes, from: &index) { return true }
                } else {
                    index += 1
                }
            }
            return false
        }

        /// Whether `numeric` holds the number that starts at `index` (moved past it).
        private static func numericHolds(_ bytes: UnsafeRawBufferPointer, from index: inout Int) -> Bool {
            func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            var before = 0  // digits before the point, leading zeros aside
            while index < bytes.count, isDigit(bytes[index]) {
                if before > 0 || bytes[index] != UInt8(ascii: "0") { before += 1 }
                index += 1
            }
            var after = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, isDigit(bytes[index]) {
                    after += 1
                    index += 1
                }
            }
            var exponent = 0  // saturates: a longer one is out of range either way
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                var negative = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                    negative = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                while index < bytes.count, isDigit(bytes[index]) {
                    exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1 << 40)
                    index += 1
                }
                if negative { exponent = -exponent }
            }
            return before + exponent <= 131_072 && after - exponent <= 16_383
        }
    }
#endif
