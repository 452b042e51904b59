public import ArgumentParsing

/// A contract violation planted on one page, written `KIND@PAGE` with a 1-based page, as the
/// manifest's `faults` lists it.
///
/// Every kind changes the page's last note, so the notes before it decode and the decoder names that
/// note. What the project's `PageDecoder` reports for each:
///
/// | kind              | the last note                                          | decoder error                 |
/// |-------------------|--------------------------------------------------------|-------------------------------|
/// | `duplicate-id`    | takes the id of the run's first note (`1` for int ids) | `duplicateID`                 |
/// | `missing-id`      | has no `id`                                            | `missingID`                   |
/// | `number-id`       | has its index, or its int id, and a half: a fraction   | `invalidID`                   |
/// | `invalid-json`    | has an unescaped `"` in its title                      | `invalidJSON`                 |
/// | `oversized-title` | has a 2 MiB title (the default string cap: 1 MiB)      | `limitExceeded(.stringBytes)` |
public struct Fault: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case duplicateID = "duplicate-id"
        case missingID = "missing-id"
        case numberID = "number-id"
        case invalidJSON = "invalid-json"
        case oversizedTitle = "oversized-title"
    }

    public var kind: Kind
    /// The page, counting from 1.
    public var page: Int

    public init(_ kind: Kind, page: Int) {
        self.kind = kind
        self.page = page
    }

    /// `KIND@PAGE`, e.g. `duplicate-id@3`.
    public var description: String { "\(kind.rawValue)@\(page)" }

    /// Parses `KIND@PAGE`.
    /// - Throws: ``UsageError`` for a missing `@`, an unknown kind, or a page number under 1.
    public init(parsing text: some StringProtocol) throws(UsageError) {
        let text = String(text)
        guard let at = text.lastIndex(of: "@") else {
            throw Self.invalid(text, "expected KIND@PAGE, e.g. missing-id@3")
        }
        let name = String(text[..<at])
        guard let kind = Kind(rawValue: name) else {
            let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw Self.invalid(text, "unknown kind '\(name)'; expected one of \(kinds)")
        }
        guard let page = Int(text[text.index(after: at)...]), page >= 1 else {
            throw Self.invalid(text, "expected a page number of at least 1 after '@'")
        }
        self.init(kind, page: page)
    }

    /// Parses a comma-separated list of faults, e.g. `duplicate-id@3,oversized-title@7`; an empty text
    /// is no faults.
    /// - Returns: The faults sorted by page, so the order given does not change the output.
    /// - Throws: ``UsageError`` for an entry ``init(parsing:)`` refuses, or two faults on one page.
    public static func list(_ text: String) throws(UsageError) -> [Fault] {
        guard !text.isEmpty else { return [] }
        var faults: [Fault] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let fault = try Fault(parsing: entry)
            if faults.contains(where: { $0.page == fault.page }) {
                throw invalid(String(entry), "page \(fault.page) already has a fault")
            }
            faults.append(fault)
        }
        return faults.sorted { $0.page < $1.page }
    }

    static func invalid(_ text: String, _ reason: String) -> UsageError {
        UsageError("Invalid fault '\(text)' in '--faults': \(reason)")
    }
}
