import Dispatch
internal import NotesJSON
import NotesPage

extension WalkPhase {
    /// ``walk(from:ids:visited:span:cancellation:body:)`` when the first page
    /// shows how to read the rest (a scheme that learns the server's page size from it, paths to find on
    /// it): that page on its own, then the rest with the scheme and the paths it showed (in parallel where
    /// the scheme allows).
    func walkFirstAlone(
        _ plan: WalkPlan,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        var first: (facts: PageFacts?, count: Int)?
        let next = try await withTaskExecutorPreference(lanes[0].thread) {
            () async throws(FetchError) -> PageLocation? in
            // Its next page may still go out early (when the paths stay as they are): lane 0's transport holds
            // it for the walk that follows, which takes it over with an equal request.
            var alone = plan
            (alone.maxPages, alone.maxNotes) = (1, nil)
            return try await walkInSequence(
                alone, sendsNextAfterLast: (plan.maxPages ?? 2) > 1 && plan.maxNotes == nil
            ) { (page: FetchedPage) async throws(FetchError) -> Void in
                first = (page.facts, page.noteCount)
                try await body(page)
            }
        }
        guard let next, let first else { return next }
        if let maxPages = plan.maxPages, maxPages <= 1 { return next }
        if let maxNotes = plan.maxNotes, first.count >= maxNotes { return next }
        let pagination = first.facts.flatMap { locator.pagination.learned(from: $0) } ?? locator.pagination
        let rest = first.facts.flatMap(pageConfiguration(after:)) ?? page
        return try await nextPhase(pagination: pagination, page: rest).walk(
            plan.rest(from: next, after: 1, notes: first.count), learning: false, body: body)
    }

    /// The page configuration for the pages after `first`, when `first` showed paths to read them by
    /// (``PageConfiguration/detects``); `nil` when they stay as they are.
    func pageConfiguration(after first: PageFacts) -> PageConfiguration? {
        guard !page.detects.isEmpty else { return nil }
        let items = first.summary.detectedItemsPath
        // A next value in an array of links is read so on every page: it has no path. A scheme that reads
        // no next value goes on finding it on each page (to end only where none is left), as it was.
        let readsLinks = first.summary.nextIsLinkRelation || !locator.pagination.readsNextValue
        let next = readsLinks ? nil : first.summary.detectedNextPath
        let id = first.summary.detectedIDPath
        guard items != nil || next != nil || id != nil else { return nil }
        var rest = page
        rest.detects = readsLinks ? page.detects.intersection(.next) : []
        if let items { rest.itemsPath = items }
        if let next { rest.nextPath = next }
        if let id { rest.idPath = id }
        // A field path the paths found would hide is no longer read.
        let read = rest.fieldPaths
        rest.fieldPaths = []
        for path in read where rest.canRead(path) { rest.fieldPaths.append(path) }
        return rest
    }

    /// Walks one page after another from `start` on the calling thread (lane 0's), sending the next page's
    /// request early where a page names it (``EarlyPages``, ``NextValuePeek``), and moving to pages in
    /// parallel once the next URLs show offsets or page numbers.
    func walkInSequence(
        _ plan: WalkPlan,
        sendsNextAfterLast: Bool = false,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        let (start, firstNumber, ids, visited) = (plan.start, plan.firstNumber, plan.ids, plan.visited)
        let (maxPages, maxNotes, cancellation) = (plan.maxPages, plan.maxNotes, plan.cancellation)
        var location = start
        var number = firstNumber
        var pages = 0
        var notes = 0
        let earlyPages =
            configuration.earlyRequests
            ? EarlyPages(
                phase: keepingNotes, lastNumber: maxPages.map { firstNumber + $0 - 1 }, cancellation: cancellation)
            : nil
        defer { earlyPages?.stop() }
        let first = locator.identity(for: location)
        if PageLocator.urlProblem(first) == nil {
            visited.insert(first)
            earlyPages?.visit(first)
        }
        visited.commitPage()
        while true {
            var page: FetchedPage
            earlyPages?.makeCurrent(number)
            if let early = earlyPages?.take(number, at: location) {
                // Requested early with ids of its own: checked against the run now, in page order.
                page = try await withTaskCancellationHandler {
                    await early.value
                } onCancel: {
                    early.cancel()
                }.get()
                let run = UnsafeTransfer(ids)
                let taken = page
                let checked = await client.onLane(0) { [self] in
                    var page = taken
                    let problem = addIDs(of: &page, to: run.value, duplicates: self.page.duplicates)
                    return problem.map { Result<FetchedPage, FetchError>.failure($0) } ?? .success(page)
                }
                page = try checked.get()
            } else {
                // The next page's request goes out as soon as this page's last chunk names it (lane 0's
                // transport holds it until the next iteration asks for that page): not past --max-pages, not
                // with --max-notes (this page may be the last), nor while auto may still move to pages in
                // parallel.
                let sendsNextEarly =
                    earlyPages != nil && (configuration.parallel <= 1 || pages >= 2)
                    && (sendsNextAfterLast || (maxPages.map { pages + 2 <= $0 } ?? true)) && maxNotes == nil
                let lookahead = Lookahead(
                    nextPage: earlyPages?.earlyHandler(for: number),
                    nextRequestUnlessVisited: sendsNextEarly ? VisitedPages(visited) : nil)
                page = try await fetchPage(
                    location, number: number, ids: ids, cancellation: cancellation, lane: 0, lookahead: lookahead)
            }
            // A page whose next link loops is refused whole, so that a resumed run meets the same error.
            if let next = page.next {
                // Its identity: the URL, or for a POST the URL and the cursor its body carries.
                let url = locator.identity(for: next)
                if let reason = PageLocator.urlProblem(url) {
                    ids.rollbackPage()
                    throw FetchError(.pagination(reason), page: number, location: location, attempts: page.attempts)
                }
                if case .duplicate = visited.insert(url) {
                    ids.rollbackPage()
                    throw FetchError(.cycle, page: number, location: location, attempts: page.attempts)
                }
                earlyPages?.visit(url)
            }
            visited.commitPage()
            ids.commitPage()
            try await body(page)
            pages += 1
            notes += page.noteCount
            guard let next = page.next else { return nil }
            if let maxPages, pages >= maxPages { return next }
            if let maxNotes, notes >= maxNotes { return next }
            if pages == 1, let facts = page.facts, let rest = pageConfiguration(after: facts) {
                // The first page showed where the items or the next value are: the rest is read there (what
                // was requested early, read the first page's way, is dropped).
                earlyPages?.stop()
                return try await nextPhase(pagination: locator.pagination, page: rest).walk(
                    plan.rest(from: next, after: pages, notes: notes), learning: false, body: body)
            }
            if configuration.parallel > 1, pages <= 2, let facts = page.facts,
                let addressed = locator.pagination.addressed(after: facts, endpoint: locator.endpoint)
            {
                // The next URLs walk offsets or page numbers: the rest of the walk goes in parallel, starting
                // with the next page's early request if there is one.
                // Off lane 0's thread: pages in flight would otherwise wait for it, busy with a page of its own.
                let first = earlyPages?.take(number + 1, at: next)
                let (done, counted) = (pages, notes)
                return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                    () async throws(FetchError) -> PageLocation? in
                    try await nextPhase(pagination: addressed).walkInParallel(
                        plan.rest(from: next, after: done, notes: counted), first: first, body: body)
                }
            }
            location = next
            number += 1
        }
    }
}
