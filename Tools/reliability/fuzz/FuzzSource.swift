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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSource(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
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
    if case .bearer(let secret) = source.auth {
        switch secret {
        case .environment(let name): if name.isEmpty { finding("an empty variable name") }
        case .file(let path): if path.isEmpty { finding("an empty token path") }
        }
    }
    return 0
}
