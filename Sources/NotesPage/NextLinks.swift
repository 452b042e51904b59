import NotesJSON

/// The next reference in an object or array of links that a page holds at one of
/// ``PathDetection/nextPaths`` (`links`, `cursor`): JSON:API's `{"next": URL}` (or `{"next": {"href": URL}}`),
/// and the `[{"rel": "next", "href": URL}, …]` of OGC API, STAC and Siren (`rel` a string or an array of
/// them).
enum NextLinks {
    /// What the links say of the next page.
    enum Reading: Equatable {
        /// The next page is there: a URL or a cursor, as written.
        case next(String)
        /// The object says there is none (`"next": null`).
        case none
    }

    /// How the links say it.
    enum Form: Equatable {
        /// The object's `next` member, a string, a number or null: a path reads it (`links.next`).
        case member
        /// The `href` of the object's `next` member.
        case memberHref
        /// The `href` of the array's link whose `rel` is `next`.
        case relation

        /// How it is shown after the path, in a message.
        var shown: String {
            switch self {
            case .member: return ".next"
            case .memberHref: return ".next.href"
            case .relation: return "[rel=next]"
            }
        }
    }

    /// What `json` (an object or an array, compact, at most ``PageDecoder/maxFieldJSONBytes``) says of
    /// the next page, and how it says it; `nil` when it names none.
    static func read(_ json: [UInt8]) -> (reading: Reading, form: Form)? {
        let reader = Reader()
        var parser = JSONStreamParser(limits: JSONLimits(), handler: reader)
        do {
            try parser.feed(json)
            try parser.finish()
        } catch {
            return nil
        }
        if let next = reader.relNext { return (.next(next), .relation) }
        if let href = reader.nextHref { return (.next(href), .memberHref) }
        switch reader.objectNext {
        case .some(let value?): return (.next(value), .member)
        case .some(nil): return (.none, .member)
        case nil: return nil
        }
    }

    /// Follows the events of the links' JSON: depth 1 is the object or array itself.
    private final class Reader: JSONEventHandler {
        var depth = 0
        var isArray = false
        /// The object's `next`: `.some(nil)` for null.
        var objectNext: String??
        /// The `href` of the array's first link whose `rel` is `next`.
        var relNext: String?
        /// The `href` of the object's `next` object.
        var nextHref: String?
        private var key: [UInt8] = []
        /// The link object being read (depth 2 of an array; or `next`'s object at depth 2).
        private var rel = false
        private var href: String?
        private var inNextObject = false

        func handle(_ event: JSONEvent) -> Bool {
            switch event {
            case .startObject, .startArray:
                if depth == 0, case .startArray = event { isArray = true }
                if depth == 1, case .startObject = event {
                    (rel, href) = (false, nil)
                    inNextObject = !isArray && key.elementsEqual("next".utf8)
                }
                depth += 1
            case .endObject, .endArray:
                depth -= 1
                if depth == 1 {
                    if isArray, rel, relNext == nil, let href { relNext = href }
                    if inNextObject, let href { nextHref = href }
                    inNextObject = false
                }
            case .key(let name):
                key = Array(name.assumingMemoryBound(to: UInt8.self))
            case .string(let text):
                let value = String(decoding: text, as: UTF8.self)
                if depth == 1, !isArray, key.elementsEqual("next".utf8) { objectNext = .some(value) }
                if depth == 2, key.elementsEqual("href".utf8) { href = value }
                // `rel` as a string, or as an array of strings (depth 3).
                if (depth == 2 || depth == 3) && key.elementsEqual("rel".utf8) && value == "next" { rel = true }
            case .number(let text):
                if depth == 1, !isArray, key.elementsEqual("next".utf8) {
                    objectNext = .some(String(decoding: text, as: UTF8.self))
                }
            case .null:
                if depth == 1, !isArray, key.elementsEqual("next".utf8) { objectNext = .some(nil) }
            case .bool:
                break
            }
            return true
        }
    }
}
