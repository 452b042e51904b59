/// Why a page was refused, and where.
///
/// The message is short and safe to log: it quotes at most a few bytes of an id, never a body.
public struct PageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; the broad ``Kind`` follows from it.
    public enum Code: Sendable, Hashable {
        // MARK: JSON
        /// Not valid JSON (syntax, invalid UTF-8, lone surrogate, control character).
        case invalidJSON
        /// The body ended before the JSON document was complete.
        case truncated
        // MARK: Limits
        /// A limit was hit; nothing past it was parsed.
        case limitExceeded(PageLimit)
        // MARK: Contract
        /// The body is a JSON scalar, not an object or an array.
        case notAPage
        /// The object has no array at the items path.
        case missingItems
        /// The value at the items path is not an array.
        case itemsNotArray
        /// The items path or next path appears twice.
        case duplicateKey
        /// The value at the next path is neither a string nor null.
        case invalidNext
        /// An item is not a JSON object.
        case noteNotObject
        case missingID
        /// The id is not a string, is empty, or is longer than ``IDSet/maxIDBytes``.
        case invalidID
        case missingTitle
        /// The title is not a string.
        case invalidTitle
        /// A note has the same field twice (`id` or `title`).
        case duplicateField
        /// The id was seen before, on page `firstPage` of the run (0-based).
        case duplicateID(firstPage: Int)
        /// Paths left to be found (``PageConfiguration/detects``) could be more than one of the page's.
        case ambiguousPaths
    }

    /// The broad kind of failure.
    public enum Kind: Sendable, Hashable {
        case invalidJSON
        case limitExceeded
        case contract
    }

    public var code: Code
    /// What is wrong, without the location.
    public var message: String
    /// Byte offset in the page body: the offending byte, or just past the token found wrong.
    public var offset: Int
    /// 0-based index of the note on the page, when the error is about one.
    public var noteIndex: Int?

    public init(_ code: Code, message: String, offset: Int, noteIndex: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.noteIndex = noteIndex
    }

    public var kind: Kind {
        switch code {
        case .invalidJSON, .truncated: return .invalidJSON
        case .limitExceeded: return .limitExceeded
        default: return .contract
        }
    }

    /// The limit that was hit, if any.
    public var limit: PageLimit? {
        if case .limitExceeded(let limit) = code { return limit }
        return nil
    }

    /// The message and where: the note and the byte offset (a negative offset, for an error found after
    /// the body, is left out).
    public var description: String {
        let place = [noteIndex.map { "note \($0)" }, offset >= 0 ? "byte \(offset)" : nil].compactMap { $0 }
        return place.isEmpty ? message : "\(message) (\(place.joined(separator: ", ")))"
    }
}

/// A limit of ``PageConfiguration`` and its value.
public enum PageLimit: Sendable, Hashable {
    case pageBytes(Int)
    case stringBytes(Int)
    case depth(Int)
    case pageNotes(Int)

    /// The limit's name as the command line spells it, e.g. `--max-page-bytes`.
    public var option: String {
        switch self {
        case .pageBytes: return "--max-page-bytes"
        case .stringBytes: return "--max-string-bytes"
        case .depth: return "--max-depth"
        case .pageNotes: return "--max-page-notes"
        }
    }

    public var value: Int {
        switch self {
        case .pageBytes(let value), .stringBytes(let value), .depth(let value), .pageNotes(let value): return value
        }
    }
}

extension PageError.Code {
    /// A stable, hyphenated name for the code, e.g. `missing-id`, as the fixtures and the CLI spell it.
    public var name: String {
        switch self {
        case .invalidJSON: return "invalid-json"
        case .truncated: return "truncated"
        case .limitExceeded: return "limit-exceeded"
        case .notAPage: return "not-a-page"
        case .missingItems: return "missing-items"
        case .itemsNotArray: return "items-not-array"
        case .duplicateKey: return "duplicate-key"
        case .invalidNext: return "invalid-next"
        case .noteNotObject: return "note-not-object"
        case .missingID: return "missing-id"
        case .invalidID: return "invalid-id"
        case .missingTitle: return "missing-title"
        case .invalidTitle: return "invalid-title"
        case .duplicateField: return "duplicate-field"
        case .duplicateID: return "duplicate-id"
        case .ambiguousPaths: return "ambiguous-paths"
        }
    }
}

extension PageLimit {
    /// A stable, hyphenated name for the limit, e.g. `page-bytes`.
    public var name: String {
        String(option.dropFirst("--max-".count))
    }
}
