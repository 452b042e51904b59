import NotesFetch
import NotesPage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// Every scheme on the decoded page: its URLs, its next page, what it learns and addresses ahead.

extension FetchDriver {
    /// One scheme on the page: its URLs, its next page, what it learns and addresses ahead.
    static func checkScheme(
        _ scheme: any Pagination, _ input: Input, _ summary: PageDecoder.Summary, _ page: PageConfiguration,
        _ findings: Findings
    ) {
        let head = HTTPResponseHead(status: input.status, headers: input.headers)
        let endpoint = input.endpoint
        let name = scheme.description
        var locations = [scheme.start(endpoint: endpoint), .url(input.pageURL)]
        if let here = URL(string: input.pageURL) { locations.append(scheme.start(endpoint: here)) }
        if let text = input.next, let cursor = scheme.location(cursor: text) { locations.append(cursor) }
        var seen: Set<PageLocation> = []
        for location in locations where seen.insert(location).inserted {
            let facts = PageFacts(
                location: location, url: input.pageURL, head: head, summary: summary, fieldPaths: page.fieldPaths)
            walk(scheme, from: location, facts: facts, input, findings, name)
            if let learned = scheme.learned(from: facts) {
                walk(learned, from: location, facts: facts, input, findings, "\(name), learned")
            }
            _ = scheme.recognition(after: facts, endpoint: endpoint)
            _ = scheme.body(for: location)
            _ = scheme.identity(of: location, endpoint: endpoint)
            if case .rateLimited(_, let wait)? = scheme.refusal(of: facts, now: input.now),
                !wait.isFinite || wait < 0 || wait > RateLimit.longest
            {
                findings.add("\(name): a refusal that waits \(wait) s")
            }
            for nextValue in [NextValue(read: summary.nextCursor), .unread] {
                if let early = scheme.earlyNext(
                    head: head, nextValue: nextValue, read: { _ in nil }, url: input.pageURL, endpoint: endpoint)
                {
                    findings.check(url: scheme.url(for: early, endpoint: endpoint), "\(name): early next \(early)")
                }
                if let early = scheme.earlyNext(
                    head: head, nextValue: nextValue, read: { facts.value(at: $0) }, url: input.pageURL,
                    endpoint: endpoint)
                {
                    findings.check(url: scheme.url(for: early, endpoint: endpoint), "\(name): early next \(early)")
                }
            }
        }
    }

    /// A scheme's URL for `location`, its next page after `facts`, pages addressed ahead of it, and the
    /// scheme for pages in parallel when the next URL shows they can be.
    static func walk(
        _ scheme: any Pagination, from location: PageLocation, facts: PageFacts, _ input: Input,
        _ findings: Findings, _ name: String
    ) {
        let locator = PageLocator(endpoint: input.endpoint, pagination: scheme)
        findings.check(url: locator.url(for: location), "\(name): the URL of \(location)")
        _ = scheme.total(of: facts)
        if let last = scheme.lastIndex(after: facts, start: location), last < 0 {
            findings.add("\(name): last index \(last) after \(location)")
        }
        for index in indices {
            if let ahead = scheme.location(index, after: location) {
                findings.check(url: locator.url(for: ahead), "\(name): page \(index) after \(location)")
            }
        }
        guard let next = try? locator.next(after: facts) else { return }
        findings.check(url: locator.url(for: next), "\(name): the page after \(location)")
        guard let addressed = scheme.addressed(after: facts, endpoint: input.endpoint) else { return }
        // The walk in parallel starts at the next page and asks for pages ahead of it, each of which then
        // names its own next page.
        let parallel = PageLocator(endpoint: input.endpoint, pagination: addressed)
        if let following = try? parallel.next(after: facts) {
            findings.check(url: parallel.url(for: following), "\(name), addressed: the page after \(location)")
        }
        for index in indices {
            guard let ahead = addressed.location(index, after: next) else { continue }
            let url = parallel.url(for: ahead)
            findings.check(url: url, "\(name), addressed: page \(index) after \(next)")
            let there = PageFacts(
                location: ahead, url: url, head: facts.head, summary: facts.summary, fieldPaths: facts.fieldPaths)
            if let following = try? parallel.next(after: there) {
                findings.check(url: parallel.url(for: following), "\(name), addressed: the page after \(ahead)")
            }
        }
    }
}
