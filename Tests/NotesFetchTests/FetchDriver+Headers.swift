import NotesFetch
import NotesPage

// The driver's checks of the head and its fields: the status and the content checks before a body, every
// field the walk reads, HTTP dates.

extension FetchDriver {
    /// `PageReception.receive(head:)`: the status, `Content-Type` and `Content-Length` checks before a body.
    static func checkHead(_ input: Input, _ findings: Findings) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let reception = PageReception(configuration: page, ids: IDSet(capacity: 1), worker: worker)
        let accepted = reception.receive(head: head)
        if accepted && !(200...299).contains(input.status) {
            findings.add("PageReception accepted the head of HTTP \(input.status)")
        }
        if case .contentType(let type)? = reception.problem?.base, type.count > 60 {
            findings.add("a content-type problem quotes \(type.count) characters")
        }
        let limit = page.limits.maxDocumentBytes
        if accepted, let length = head.value(of: "Content-Length").flatMap({ Int($0.trimming(" \t")) }),
            length > limit
        {
            findings.add("Content-Length \(length) over the limit of \(limit) was accepted")
        }
    }

    /// Every field the walk reads, read from every field's value: `Retry-After`, the dates, `Link`, the
    /// content type, an origin, a URL.
    static func checkHeaders(_ input: Input, _ findings: Findings) {
        let now = input.now
        var values = input.headers.map(\.value)
        values += [input.pageURL, input.next, input.count, input.hasMore].compactMap { $0 }
        for value in values {
            if let seconds = RetryAfter.seconds(value, now: now) {
                if !seconds.isFinite || seconds < 0 { findings.add("Retry-After \(value) gave \(seconds) s") }
                checkDate(seconds, findings)
                checkDate(now + seconds, findings)
            }
            if let date = RetryAfter.parseIMFFixdate(value) { checkDate(date, findings) }
            for relation in ["next", "last", "prev"] {
                if let target = PageLocator.link(relation, in: value) {
                    findings.check(url: target, "Link rel=\(relation) target")
                    if let resolved = PageLocator.resolve(target, against: input.pageURL) {
                        findings.check(url: resolved, "Link rel=\(relation) target resolved")
                    }
                }
            }
            if let target = PageLocator.nextLink(in: value) {
                findings.check(url: PageLocator.resolve(target, against: input.pageURL) ?? target, "Link's next")
            }
            if PageReception.isJSON(value) {
                let type = value.split(separator: ";").first.map { String($0).trimming(" \t").lowercased() } ?? ""
                let named = [
                    "application/json", "application/x-amz-json-1.0", "application/x-amz-json-1.1",
                    "application/x-json",
                ]
                if !(named.contains(type) || (type.hasPrefix("application/") && type.hasSuffix("+json"))) {
                    findings.add("\(String(reflecting: value)) taken for JSON")
                }
            }
            _ = Origin(value)?.isLoopback
            findings.check(url: value, "a field's value as a URL")
            if let resolved = PageLocator.resolve(value, against: input.pageURL) {
                findings.check(url: resolved, "a field's value resolved against the page's URL")
            }
        }
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        if let wait = RateLimit.wait(head, now: now) {
            if !wait.isFinite || wait < 0 || wait > RateLimit.longest { findings.add("RateLimit.wait gave \(wait) s") }
            checkDate(now + wait, findings)
        }
        for base in [input.endpoint.absoluteString, input.pageURL] {
            _ = Origin(base)?.isLoopback
            for name in ["page[offset]", input.count ?? "cursor"] {
                let set = PageLocator.setting([(name: name, value: input.next ?? "")], on: base)
                findings.check(url: set, "PageLocator.setting \(name) on \(String(reflecting: base))")
            }
        }
    }

    /// `HTTPDate.text` of `seconds` looks like an IMF-fixdate, and one of the years 1970 to 9999 reads
    /// back as the second it was written for.
    static func checkDate(_ seconds: Double, _ findings: Findings) {
        let text = HTTPDate.text(seconds)
        guard text.hasSuffix(" GMT"), text.utf8.count == 29 else {
            return findings.add("HTTPDate.text(\(seconds)) is \(String(reflecting: text))")
        }
        guard seconds >= 0, seconds <= 253_402_300_799 else { return }
        if RetryAfter.parseIMFFixdate(text) != seconds.rounded(.up) {
            findings.add(
                "HTTPDate.text(\(seconds)) is \(text), which reads back as \(String(describing: RetryAfter.parseIMFFixdate(text)))"
            )
        }
    }
}
