// libFuzzer target for a sync's source file: `make fuzz-source` builds it with `-sanitize=fuzzer,address`
// together with Sources/NotesSystem and Sources/NotesSync (Tools/reliability/fuzz/fuzz-source.sh), outside
// `swift build`, since libFuzzer brings its own `main`.
//
// Each input is a source file, YAML or JSON. Reading it must end in a source or a `SourceError`: never a
// crash, a hang, or memory past the limits. A source read must hold what `SourceFile` promises: at least
// one resource, each with a name fit for a table (and each name once) and a path; a bearer token only from
// `${NAME}` or `@file`; every mark at line and column 1 or more, inside the input. An error's message is
// short (no key or value of the input is printed whole) and its mark inside the input. Each scalar a
// resource holds is then expanded with `SourceSecret.expand`, which must end in a text or an error.
//
// After a NUL byte, the input's rest is a parent record (JSON). Each resource's path, header values and
// JSON bodies are filled from it (`ParentTemplate`): each must end in a value or a `ParentError`. Where the
// path filled with a plain value (`x`) is a valid URL, the path filled from the record is one too (the strict
// RFC 3986 check), on the same origin: a server's value never moves a child's request, or its credentials,
// elsewhere. A header's value holds no control character; a body filled is JSON.

import NotesFetch
import NotesPage
import NotesSync

/// The longest error message: the input's keys and values appear in messages cut to 80 bytes.
private let maxMessageBytes = 600

private func finding(_ what: String) -> Never {
    fatalError("fuzz-source finding: \(what)")
}

private func check(_ mark: SourceMark, _ size: Int, _ what: String) {
    guard mark.line >= 1, mark.column >= 1, mark.line <= size + 1, mark.column <= size + 1 else {
        finding("\(what) at \(mark), outside an input of \(size) bytes")
    }
}

private func check(_ node: SourceNode, _ size: Int) {
    check(node.mark, size, "a node")
    switch node.value {
    case .scalar(let text, _):
        _ = try? SourceSecret.expand(text, from: ["A": "x", "TOKEN": "t"])
    case .sequence(let items):
        for item in items { check(item, size) }
    case .mapping(let entries):
        for entry in entries {
            check(entry.keyMark, size, "a key")
            check(entry.value, size)
        }
    }
}

/// A record whose every field a template reads is `x`.
private func plain(for template: ParentTemplate) -> ParentRecord? {
    var tree = JSONTree.object([])
    for part in template.parts {
        guard case .field(let path, _) = part else { continue }
        let keys = path.components.map { String(decoding: $0, as: UTF8.self) }
        tree = tree.setting(.string("x"), at: keys[...]) ?? tree
    }
    return try? ParentRecord(resource: "plain", key: "1", json: tree.bytes)
}

/// Fills the resource's templates from `record`, checking what `ParentTemplate` promises.
private func fill(_ resource: SourceResource, base: String?, from record: ParentRecord) {
    guard let template = try? ParentTemplate(resource.path) else { return }
    let folder = base.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    let origin = folder.flatMap { Origin($0) }
    if let plain = plain(for: template), !template.isOnePlaceholder,
        let expected = try? template.url(for: plain, folder: folder, origin: origin),
        PageLocator.urlProblem(expected) == nil
    {
        if let url = try? template.url(for: record, folder: folder, origin: origin) {
            if let problem = PageLocator.urlProblem(url) { finding("a filled path that is no URL: \(problem)") }
            if Origin(url) != Origin(expected) { finding("a filled path on another origin than its template's") }
        }
    } else if let url = try? template.url(for: record, folder: folder, origin: origin), template.isOnePlaceholder {
        if PageLocator.urlProblem(url) != nil { finding("a parent's URL taken that is no URL") }
        if origin == nil || Origin(url) != origin { finding("a parent's URL taken off the source's origin") }
    }
    for option in resource.options {
        guard case .scalar(let text, _) = option.value.value else { continue }
        if option.key == "header", let colon = text.firstIndex(of: ":"),
            let value = try? ParentTemplate(String(text[text.index(after: colon)...])).headerValue(for: record),
            value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }), !text.utf8.contains(where: { $0 < 0x20 })
        {
            finding("a header's value with a control character from the parent")
        }
        if option.key == "body" || option.key == "variables", let filled = try? ParentTemplate.json(text, for: record),
            (try? JSONTree.parse(Array(filled.utf8))) == nil
        {
            finding("a body filled that is not JSON")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSource(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let split = input.firstIndex(of: 0)
    let bytes = split.map { Array(input[..<$0]) } ?? input
    let recordBytes = split.map { Array(input[($0 + 1)...]) } ?? Array(#"{"id":1,"name":"../a/b?c#d"}"#.utf8)
    let size = bytes.count
    let source: SourceFile
    do {
        source = try SourceFile(bytes: bytes, file: "fuzz.yaml")
    } catch {
        if error.message.utf8.count > maxMessageBytes { finding("a message of \(error.message.utf8.count) bytes") }
        if let mark = error.mark { check(mark, size, "an error") }
        return 0
    }
    if source.resources.isEmpty { finding("a source with no resources") }
    if Set(source.resources.map(\.name)).count != source.resources.count { finding("a name twice") }
    for resource in source.resources {
        if !SourceResource.isValidName(resource.name) { finding("the name '\(resource.name)'") }
        if resource.path.isEmpty { finding("an empty path") }
        check(resource.mark, size, "a resource")
        for option in resource.options {
            check(option.keyMark, size, "an option")
            check(option.value, size)
        }
    }
    for option in source.defaults { check(option.value, size) }
    if let record = try? ParentRecord(resource: "fuzz", key: "1", json: recordBytes) {
        for resource in source.resources where resource.parent != nil {
            fill(resource, base: source.baseURL, from: record)
        }
    }
    if case .bearer(let secret) = source.auth {
        switch secret {
        case .environment(let name): if name.isEmpty { finding("an empty variable name") }
        case .file(let path): if path.isEmpty { finding("an empty token path") }
        }
    }
    return 0
}
