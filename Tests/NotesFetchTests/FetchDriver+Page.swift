import NotesFetch
import NotesPage

// The page the driver decodes: its summary as a walk's reception reads it, and the bodies it is written
// into (a page of notes, a GraphQL response).

extension FetchDriver {
    /// The page's summary, as a walk's `PageReception` decodes it with `page` (the next value guessed from
    /// the last chunk's bytes along the way), from the body `makeBody` writes of the input's members as they
    /// are, then with the next value as a string, then with nothing else; `nil` when none of them decodes,
    /// which is itself a finding (the last is always valid JSON).
    static func summary(
        _ input: Input, _ findings: Findings, page: PageConfiguration,
        body makeBody: (
            _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
        )
            -> String
    ) -> PageDecoder.Summary? {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let jsonHead = HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")])
        let asString = input.next.map(jsonString)
        let bodies: [(next: String?, count: String?, hasMore: String?, lastID: String?)] = [
            (input.next, input.count, input.hasMore, asString),
            (asString, input.count, input.hasMore, asString),
            (asString, nil, nil, nil),
        ]
        let peek = NextValuePagination()
        for (next, count, hasMore, lastID) in bodies {
            let body = Array(makeBody(next, count, hasMore, lastID, input.noteCount, input.hash & 1 == 1).utf8)
            let reception = PageReception(configuration: page, ids: IDSet(capacity: 1), worker: worker)
            reception.makeNextRequest = { _, value in
                // As the walk's sequential pages do: the next request from the value read off the bytes.
                guard
                    let location = peek.earlyNext(
                        head: head, nextValue: .value(value), read: { _ in nil }, url: input.pageURL,
                        endpoint: input.endpoint)
                else { return nil }
                let url = peek.url(for: location, endpoint: input.endpoint)
                findings.check(url: url, "the next request from the bytes (\(location))")
                return PageLocator.urlProblem(url) == nil ? HTTPRequest(url: url) : nil
            }
            guard reception.receive(head: jsonHead) else { continue }
            let split = Int((input.hash >> 8) % UInt64(body.count + 1))
            let decoded = body.withUnsafeBytes { bytes -> Bool in
                for range in [0..<split, split..<bytes.count] {
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[range])
                    // As libcurl's exchange: every chunk is shown for the next request until one names it.
                    _ = reception.nextRequest(peekingAt: chunk)
                    guard reception.receive(body: chunk) else { return false }
                }
                return true
            }
            guard decoded, let summary = try? reception.finish() else { continue }
            return summary
        }
        findings.add("none of the input's bodies decoded, not even the one with only strings")
        return nil
    }

    /// A page of `notes` notes with the given members written as they are.
    static func pageBody(
        _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
    ) -> String {
        let items = notesJSON(notes, lastID: lastID)
        var members: [String] = []
        if let count { members.append("\"count\":\(count)") }
        if let hasMore { members.append("\"has_more\":\(hasMore)") }
        let notesMember = "\"notes\":[\(items)]"
        let nextMember = next.map { "\"next_cursor\":\($0)" }
        members =
            nextFirst
            ? [nextMember].compactMap { $0 } + [notesMember] + members
            : [notesMember] + members + [nextMember].compactMap { $0 }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `notes` notes, the last with the id `lastID` (JSON text) when given.
    static func notesJSON(_ notes: Int, lastID: String?) -> String {
        (0..<notes).map { index in
            let id = index == notes - 1 ? lastID ?? "\"#\(index)\"" : "\"#\(index)\""
            return "{\"id\":\(id),\"title\":\"t\"}"
        }.joined(separator: ",")
    }

    /// A GraphQL response: the connection's `nodes`, its `pageInfo` (before or after them) and `totalCount`;
    /// `count` as the response's `errors` instead when it is an array or an object.
    static func graphQLBody(
        _ next: String?, _ count: String?, _ hasMore: String?, _ lastID: String?, _ notes: Int, _ nextFirst: Bool
    ) -> String {
        var info: [String] = []
        if let hasMore { info.append("\"hasNextPage\":\(hasMore)") }
        if let next { info.append("\"endCursor\":\(next)") }
        let pageInfo = "\"pageInfo\":{\(info.joined(separator: ","))}"
        let nodes = "\"nodes\":[\(notesJSON(notes, lastID: lastID))]"
        let errors = count.flatMap { $0.hasPrefix("[") || $0.hasPrefix("{") ? $0 : nil }
        var connection = nextFirst ? [pageInfo, nodes] : [nodes, pageInfo]
        if let count, errors == nil { connection.append("\"totalCount\":\(count)") }
        let data = "\"data\":{\"viewer\":{\"notes\":{\(connection.joined(separator: ","))}}}"
        return "{" + data + (errors.map { ",\"errors\":\($0)" } ?? "") + "}"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\u{0}"..<" ":
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
