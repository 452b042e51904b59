internal import CYaml

/// Reads a source file's bytes into ``SourceNode``s with libyaml's event parser: every `yaml_*` call is in
/// this file. JSON is read the same way (a JSON document is YAML in flow style).
///
/// A source file is written by the user, not sent by a server, but it is still bounded: at most
/// ``Limits/maxDepth`` levels, ``Limits/maxNodes`` nodes and ``Limits/maxScalarBytes`` bytes a value, so
/// that no file can make the reader hold more than a few megabytes. Anchors, aliases and tags are refused
/// (an alias can multiply a document's size; a tag can ask for a type), as are a second document and a key
/// written twice in one mapping (YAML would keep the last one silently).
enum YAMLReader {
    enum Limits {
        static let maxDepth = 32
        static let maxNodes = 100_000
        static let maxScalarBytes = 64 << 10
    }

    /// A container being read: its mark, and what it holds so far.
    private enum Open {
        case sequence([SourceNode], SourceMark)
        /// `lines`: the line of each key so far, for a key written twice.
        case mapping([SourceEntry], lines: [String: Int], key: (String, SourceMark)?, SourceMark)
    }

    /// The document in `bytes`, read as `file` (for errors).
    static func read(_ bytes: [UInt8], file: String) throws(SourceError) -> SourceNode {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw SourceError("the YAML reader could not start (out of memory)", file: file)
        }
        defer { yaml_parser_delete(parser) }
        let result: Result<SourceNode, SourceError> = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            do throws(SourceError) {
                return .success(try readEvents(parser, bytes: bytes, file: file))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func readEvents(_ parser: UnsafeMutablePointer<yaml_parser_t>, bytes: [UInt8], file: String)
        throws(SourceError) -> SourceNode
    {
        var stack: [Open] = []
        var root: SourceNode?
        var documents = 0
        var nodes = 0
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else { throw problem(parser, bytes: bytes, file: file) }
            defer { yaml_event_delete(&event) }
            let mark = SourceMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            var node: SourceNode?
            switch event.type {
            case YAML_STREAM_END_EVENT:
                guard let root else { throw SourceError("the file holds no document", file: file) }
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw SourceError("a second document: a source file is one document", file: file, at: mark)
                }
            case YAML_ALIAS_EVENT:
                throw SourceError(
                    "an alias (*name): anchors and aliases are not read, write the value again", file: file, at: mark)
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                try refuse(
                    anchor: scalar.anchor, tag: scalar.tag,
                    implicit: scalar.plain_implicit == 1 || scalar.quoted_implicit == 1, at: mark, file: file)
                guard scalar.length <= Limits.maxScalarBytes else {
                    throw SourceError("a value longer than \(Limits.maxScalarBytes) bytes", file: file, at: mark)
                }
                let text = String(
                    decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                node = SourceNode(.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), at: mark)
            case YAML_SEQUENCE_START_EVENT:
                let start = event.data.sequence_start
                try refuse(anchor: start.anchor, tag: start.tag, implicit: start.implicit == 1, at: mark, file: file)
                stack.append(.sequence([], mark))
            case YAML_MAPPING_START_EVENT:
                let start = event.data.mapping_start
                try refuse(anchor: start.anchor, tag: start.tag, implicit: start.implicit == 1, at: mark, file: file)
                stack.append(.mapping([], lines: [:], key: nil, mark))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                switch stack.removeLast() {
                case .sequence(let items, let start): node = SourceNode(.sequence(items), at: start)
                case .mapping(let entries, _, _, let start): node = SourceNode(.mapping(entries), at: start)
                }
            default:
                break  // the stream's start, a document's end
            }
            if stack.count > Limits.maxDepth {
                throw SourceError("nested deeper than \(Limits.maxDepth) levels", file: file, at: mark)
            }
            guard let node else { continue }
            nodes += 1
            if nodes > Limits.maxNodes {
                throw SourceError("more than \(Limits.maxNodes) values", file: file, at: mark)
            }
            guard let open = stack.popLast() else {
                root = node
                continue
            }
            switch consume open {
            case .sequence(var items, let start):
                items.append(node)
                stack.append(.sequence(items, start))
            case .mapping(let entries, var lines, key: nil, let start):
                guard case .scalar(let key, _) = node.value else {
                    throw SourceError("a key that is \(node.kind): keys are names", file: file, at: node.mark)
                }
                if let first = lines[key] {
                    throw SourceError(
                        "'\(SourceError.clip(key))' again in the same mapping (first at line \(first))", file: file,
                        at: node.mark)
                }
                lines[key] = node.mark.line
                stack.append(.mapping(entries, lines: lines, key: (key, node.mark), start))
            case .mapping(var entries, let lines, key: let key?, let start):
                entries.append(SourceEntry(key: key.0, at: key.1, value: node))
                stack.append(.mapping(entries, lines: lines, key: nil, start))
            }
        }
    }

    private static func refuse(
        anchor: UnsafeMutablePointer<yaml_char_t>?, tag: UnsafeMutablePointer<yaml_char_t>?, implicit: Bool,
        at mark: SourceMark, file: String
    ) throws(SourceError) {
        if anchor != nil {
            throw SourceError("an anchor (&name): anchors and aliases are not read", file: file, at: mark)
        }
        if tag != nil, !implicit {
            throw SourceError("a tag (!…): values are read as written, with no tags", file: file, at: mark)
        }
    }

    /// libyaml's own error: what it found, and where. A reader error (bytes that are not UTF-8, a control
    /// character) has only its byte offset, turned here into a line and column.
    private static func problem(_ parser: UnsafeMutablePointer<yaml_parser_t>, bytes: [UInt8], file: String)
        -> SourceError
    {
        let what = parser.pointee.problem.map { String(cString: $0) } ?? "unreadable YAML"
        let context = parser.pointee.context.map { " " + String(cString: $0) } ?? ""
        let mark: SourceMark
        if parser.pointee.error == YAML_READER_ERROR {
            let offset = min(bytes.count, Int(parser.pointee.problem_offset))
            let before = bytes[..<offset]
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            mark = SourceMark(
                line: before.count { $0 == 0x0A } + 1,
                column: String(decoding: bytes[lineStart..<offset], as: UTF8.self).unicodeScalars.count + 1)
        } else {
            let problem = parser.pointee.problem_mark
            mark = SourceMark(line: Int(problem.line) + 1, column: Int(problem.column) + 1)
        }
        return SourceError("not YAML or JSON: \(what)\(context)", file: file, at: mark)
    }
}
