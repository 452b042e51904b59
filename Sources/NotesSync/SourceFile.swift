public import NotesPage
import NotesSystem

/// A sync's source file: the API's base URL, how to authenticate, defaults for every resource, and the
/// resources, each walked into a table (or a file) of its own. YAML or JSON:
///
/// ```yaml
/// base-url: https://api.example.com/
/// auth:
///   type: bearer
///   token: ${EXAMPLE_TOKEN}
/// defaults:
///   parallel: 4
/// resources:
///   - name: projects
///     path: projects/
///   - name: notes
///     path: notes/
///     since-path: updated_at
/// ```
///
/// Reading checks the source's own shape: the keys it knows, a name and a path for each resource, names
/// fit for tables and each once, secrets that come from the environment or a file. What a resource's other
/// keys mean is the command's to check (they are `fetch`'s options), before any request.
public struct SourceFile: Sendable {
    /// The file's name, for errors.
    public var file: String
    /// What each resource's path is relative to; `nil` when every path is a whole URL.
    public var baseURL: String?
    public var auth: SourceAuth?
    /// Options every resource has unless it sets them itself.
    public var defaults: [SourceEntry]
    public var resources: [SourceResource]

    /// The largest source file read.
    public static let maxBytes = 1 << 20
    /// The keys at the top of a source.
    public static let keys = ["base-url", "auth", "defaults", "resources"]
    /// The keys of a resource that are not options.
    public static let resourceKeys = ["name", "path", "parent", "include-from-parent", "slice", "pages-per-unit"]

    /// Reads the source file at `path`.
    public init(path: String) throws(SourceError) {
        let bytes: [UInt8]?
        do {
            bytes = try readFile(path, limit: Self.maxBytes + 1)
        } catch {
            throw SourceError("cannot be read: \(error)", file: path)
        }
        guard let bytes else { throw SourceError("no such file", file: path) }
        guard bytes.count <= Self.maxBytes else {
            throw SourceError("longer than \(Self.maxBytes) bytes", file: path)
        }
        try self.init(bytes: bytes, file: path)
    }

    /// Reads a source from `bytes`, named `file` in errors.
    public init(bytes: [UInt8], file: String) throws(SourceError) {
        self.file = file
        let root = try YAMLReader.read(bytes, file: file)
        guard case .mapping(let entries) = root.value else {
            throw SourceError(
                "the source is \(root.kind), not a mapping of \(Self.keys.joined(separator: ", "))", file: file,
                at: root.mark)
        }
        defaults = []
        resources = []
        var sawResources = false
        for entry in entries {
            switch entry.key {
            case "base-url":
                baseURL = try Self.text(entry, file: file)
            case "auth":
                auth = try SourceAuth(entry.value, file: file)
            case "defaults":
                guard case .mapping(let options) = entry.value.value else {
                    throw SourceError(
                        "'defaults' is \(entry.value.kind), not a mapping of options", file: file, at: entry.value.mark)
                }
                for option in options where Self.resourceKeys.contains(option.key) {
                    throw SourceError(
                        "'\(option.key)' is each resource's own, not a default", file: file, at: option.keyMark)
                }
                defaults = options
            case "resources":
                sawResources = true
                resources = try Self.resources(entry.value, file: file)
            default:
                throw SourceError(
                    Self.unknown(entry.key, known: Self.keys, in: "the source"), file: file, at: entry.keyMark)
            }
        }
        guard sawResources, !resources.isEmpty else {
            throw SourceError(
                "no resources: 'resources' lists them, each with a name and a path", file: file, at: root.mark)
        }
    }

    private static func resources(_ node: SourceNode, file: String) throws(SourceError) -> [SourceResource] {
        guard case .sequence(let items) = node.value else {
            throw SourceError("'resources' is \(node.kind), not a list", file: file, at: node.mark)
        }
        var lines: [String: Int] = [:]
        var resources: [SourceResource] = []
        for item in items {
            let resource = try SourceResource(item, file: file)
            // Tables are named without regard to case, and so are files on some systems.
            if let first = lines[resource.name.lowercased()] {
                throw SourceError(
                    "a second resource named '\(resource.name)' (the first at line \(first))", file: file, at: item.mark
                )
            }
            lines[resource.name.lowercased()] = item.mark.line
            if let parent = resource.parent, !resources.contains(where: { $0.name == parent }) {
                let known = resources.map(\.name)
                let hint = closest(to: parent, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw SourceError(
                    "resource '\(resource.name)': its parent '\(SourceError.clip(parent))' is not a resource listed before it\(hint)",
                    file: file, at: resource.parentMark ?? item.mark)
            }
            resources.append(resource)
        }
        return resources
    }

    /// The value of `entry`, which must be a scalar.
    static func text(_ entry: SourceEntry, file: String) throws(SourceError) -> String {
        guard case .scalar(let text, _) = entry.value.value else {
            throw SourceError("'\(entry.key)' is \(entry.value.kind), not a value", file: file, at: entry.value.mark)
        }
        return text
    }

    /// "unknown key 'x' in the source (did you mean 'y'?)", or listing the keys when none is close.
    public static func unknown(_ key: String, known: [String], in place: String) -> String {
        if let close = closest(to: key, in: known) {
            return "unknown key '\(SourceError.clip(key))' in \(place) (did you mean '\(close)'?)"
        }
        return "unknown key '\(SourceError.clip(key))' in \(place); known: \(known.joined(separator: ", "))"
    }

    /// The one of `candidates` at most two edits from `word`, the nearest first.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let word = Array(word.utf8.prefix(64))
        var best: (String, Int)?
        for candidate in candidates {
            let other = Array(candidate.utf8)
            var previous = Array(0...other.count)
            for (i, a) in word.enumerated() {
                var row = [i + 1] + Array(repeating: 0, count: other.count)
                for (j, b) in other.enumerated() {
                    row[j + 1] = min(previous[j + 1] + 1, row[j] + 1, previous[j] + (a == b ? 0 : 1))
                }
                previous = row
            }
            let distance = previous[other.count]
            if distance <= 2, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }
}

/// One resource: its name (its table, or its file), where it is, and its options.
public struct SourceResource: Sendable {
    public var name: String
    /// Relative to the source's base URL, or a whole URL.
    public var path: String
    /// Every other key: `fetch`'s options, without `--`.
    public var options: [SourceEntry]
    public var mark: SourceMark
    /// The resource whose records this one is walked for, once each (`parent:`); its placeholders
    /// (``ParentTemplate``) read the parent's record.
    public var parent: String?
    public var parentMark: SourceMark?
    /// The parent's fields kept in each of this resource's rows, as columns `parent_FIELD`.
    public var includeFromParent: [FieldPath] = []
    /// `slice`: the time windows the resource is walked in, as written (the command reads it).
    public var slice: SourceNode?
    /// `pages-per-unit`: the pages a worker's unit of the resource walks, as written (the command reads it).
    public var pagesPerUnit: SourceNode?

    init(_ node: SourceNode, file: String) throws(SourceError) {
        guard case .mapping(let entries) = node.value else {
            throw SourceError(
                "a resource is \(node.kind), not a mapping with a name and a path", file: file, at: node.mark)
        }
        mark = node.mark
        var name: String?
        var path: String?
        options = []
        for entry in entries {
            switch entry.key {
            case "name": name = try SourceFile.text(entry, file: file)
            case "path": path = try SourceFile.text(entry, file: file)
            case "parent":
                parent = try SourceFile.text(entry, file: file)
                parentMark = entry.value.mark
            case "include-from-parent":
                includeFromParent = try Self.fields(entry, file: file)
            case "slice":
                slice = entry.value
            case "pages-per-unit":
                pagesPerUnit = entry.value
            default: options.append(entry)
            }
        }
        guard let name else { throw SourceError("a resource with no 'name'", file: file, at: node.mark) }
        guard Self.isValidName(name) else {
            throw SourceError(
                "'\(SourceError.clip(name))' cannot name a resource: letters, digits and _, not starting with a digit, at most 63, not starting with sqlite_ or notes_page_",
                file: file, at: node.mark)
        }
        guard let path, !path.isEmpty else {
            throw SourceError("resource '\(name)' has no 'path'", file: file, at: node.mark)
        }
        self.name = name
        self.path = path
        if parent != nil, let slice {
            throw SourceError(
                "resource '\(name)' has a 'parent' and a 'slice': a child resource's walks are one per parent, never in time windows",
                file: file, at: slice.mark)
        }
        if parent != nil, let pagesPerUnit {
            throw SourceError(
                "resource '\(name)' has a 'parent' and 'pages-per-unit': a child resource's walks are one per parent, never split into ranges of pages",
                file: file, at: pagesPerUnit.mark)
        }
        if slice != nil, let pagesPerUnit {
            throw SourceError(
                "resource '\(name)' has a 'slice' and 'pages-per-unit': its walks are one per time window, never split into ranges of pages",
                file: file, at: pagesPerUnit.mark)
        }
        if parent == nil {
            if !includeFromParent.isEmpty {
                throw SourceError(
                    "resource '\(name)' has 'include-from-parent' but no 'parent'", file: file, at: node.mark)
            }
            if path.contains("{parent.") {
                throw SourceError(
                    "resource '\(name)' has no 'parent', and 'path' has a {parent.…} placeholder", file: file,
                    at: node.mark)
            }
            for entry in options where Self.mentionsParent(entry.value) {
                throw SourceError(
                    "resource '\(name)' has no 'parent', and '\(entry.key)' has a {parent.…} placeholder",
                    file: file, at: entry.value.mark)
            }
        }
    }

    /// Whether a value (or a list's) has a `{parent.` placeholder.
    private static func mentionsParent(_ node: SourceNode) -> Bool {
        switch node.value {
        case .scalar(let text, _): return text.contains("{parent.")
        case .sequence(let items): return items.contains { mentionsParent($0) }
        case .mapping(let entries): return entries.contains { mentionsParent($0.value) }
        }
    }

    /// `include-from-parent`'s fields: a list of paths, each once, whose columns are each once and fit for a
    /// table (`parent_` and the keys joined by `_`).
    private static func fields(_ entry: SourceEntry, file: String) throws(SourceError) -> [FieldPath] {
        guard case .sequence(let items) = entry.value.value, !items.isEmpty else {
            throw SourceError(
                "'include-from-parent' lists the parent's fields, as [id] does", file: file, at: entry.value.mark)
        }
        var paths: [FieldPath] = []
        var columns: Set<String> = []
        for item in items {
            guard case .scalar(let text, _) = item.value else {
                throw SourceError(
                    "'include-from-parent' lists fields, and this is \(item.kind)", file: file, at: item.mark)
            }
            let path: FieldPath
            do {
                path = try FieldPath.parse(text)
            } catch {
                throw SourceError("'include-from-parent': \(error)", file: file, at: item.mark)
            }
            let column = columnName(for: path)
            guard isValidName(column), columns.insert(column.lowercased()).inserted else {
                throw SourceError(
                    "'include-from-parent': field '\(SourceError.clip(text))' would be column '\(SourceError.clip(column))', which is taken or cannot name a column",
                    file: file, at: item.mark)
            }
            paths.append(path)
        }
        return paths
    }

    /// The column of an included parent field: `parent_` and its keys joined by `_`.
    public static func columnName(for path: FieldPath) -> String {
        "parent_" + path.components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "_")
    }

    /// Whether `name` can name a table of SQLite or PostgreSQL and a file: ASCII letters, digits and `_`,
    /// not starting with a digit, at most 63 bytes, none of the names the databases and notes-page keep.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        let lower = name.lowercased()
        if lower.hasPrefix("sqlite_") || lower.hasPrefix("notes_page_") { return false }
        return bytes.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
