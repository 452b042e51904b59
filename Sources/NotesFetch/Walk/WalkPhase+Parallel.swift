import NotesPage

extension WalkPhase {
    /// Walks pages that can be addressed ahead (offsets, page numbers) with up to
    /// ``FetchConfiguration/parallel`` in flight, handing them to `body` in page order.
    ///
    /// Each page decodes with an id set of its own (a duplicate within the page is found while it
    /// streams); a page is checked against the run's ids when it is committed, in page order, so a
    /// duplicate is charged to the later page whatever order the responses came in. At most `parallel`
    /// pages are in flight or decoded and waiting. Without a known total the walk probes ahead and stops at
    /// the first page the scheme calls the last; the pages past it must be empty.
    ///
    /// - Parameter first: The request for `start`, when it was made early (by another scheme's walk).
    func walkInParallel(
        _ plan: WalkPlan,
        first: Task<Result<FetchedPage, FetchError>, Never>? = nil,
        body: (FetchedPage) async throws(FetchError) -> Void
    ) async throws(FetchError) -> PageLocation? {
        // Each page's ids go into a set of its own, then into the run's from its notes.
        guard page.keepsNotes else { return try await keepingNotes.walkInParallel(plan, first: first, body: body) }
        let (start, firstNumber, ids, visited) = (plan.start, plan.firstNumber, plan.ids, plan.visited)
        let (maxPages, maxNotes, cancellation) = (plan.maxPages, plan.maxNotes, plan.cancellation)
        let pagination = locator.pagination
        let locator = locator
        let width = configuration.parallel
        let duplicates = page.duplicates
        let result = await withTaskGroup(of: (Int, Result<FetchedPage, FetchError>).self) {
            group -> Result<PageLocation?, FetchError> in
            var scheduled = 0
            var committed = 0
            /// The index of the last page to fetch, once known (a bound, or the last page found).
            var last = maxPages.map { $0 - 1 }
            var waiting: [Int: Result<FetchedPage, FetchError>] = [:]
            var notes = 0
            var pages = 0

            func schedule() {
                // The first page alone: it may say how many pages there are, and no probe is wasted.
                while scheduled - committed < (committed == 0 ? 1 : width), last.map({ scheduled <= $0 }) ?? true,
                    let location = pagination.location(scheduled, after: start)
                {
                    let index = scheduled
                    let number = firstNumber + index
                    if index == 0, let first {
                        group.addTask {
                            let outcome = await withTaskCancellationHandler {
                                await first.value
                            } onCancel: {
                                first.cancel()
                            }
                            // Its next page in this scheme's terms.
                            return (
                                0,
                                outcome.flatMap { page in
                                    var page = page
                                    do throws(PaginationError) {
                                        page.next = try page.facts.flatMap(locator.next(after:))
                                    } catch {
                                        return .failure(
                                            FetchError(
                                                .pagination(error.message), page: number, location: page.location,
                                                attempts: page.attempts))
                                    }
                                    return .success(page)
                                }
                            )
                        }
                        scheduled += 1
                        continue
                    }
                    group.addTask { [self] in
                        do throws(FetchError) {
                            // A flag of its own: cancelling the child task (cancelAll) stops this page only.
                            let flag = CancellationFlag()
                            if cancellation.isCancelled { flag.cancel() }
                            let page = try await fetchPage(
                                location, number: number, ids: IDSet(capacity: 1024), cancellation: flag, lane: index)
                            return (index, .success(page))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                    scheduled += 1
                }
            }

            schedule()
            while let (index, outcome) = await group.next() {
                if cancellation.isCancelled { group.cancelAll() }
                waiting[index] = outcome
                while let outcome = waiting.removeValue(forKey: committed) {
                    let index = committed
                    if let last, index > last {
                        // Past the last page: it must be empty; a failure there means nothing.
                        if case .success(let page) = outcome, page.noteCount > 0 || page.skippedCount > 0 {
                            group.cancelAll()
                            let reason = "\(page.noteCount) notes on a page past the last one (\(start) + \(index))"
                            return .failure(FetchError(.pagination(reason), page: page.number, location: page.location))
                        }
                        committed += 1
                        continue
                    }
                    var page: FetchedPage
                    switch outcome {
                    case .failure(let error):
                        group.cancelAll()
                        return .failure(error)
                    case .success(let fetched):
                        page = fetched
                    }
                    if let problem = addIDs(of: &page, to: ids, duplicates: duplicates) {
                        group.cancelAll()
                        return .failure(problem)
                    }
                    // Without a total, a page with nothing new (all of it skipped as seen) ends the walk, as an empty
                    // one does: a server that answers every offset with the same notes is not walked forever.
                    if page.noteCount == 0, page.skippedCount > 0, page.facts.flatMap(pagination.total(of:)) == nil {
                        page.next = nil
                    }
                    // The scheme's own next page must be the one scheduled after it, or the end.
                    let expected = pagination.location(index + 1, after: start)
                    if let next = page.next, next != expected {
                        ids.rollbackPage()
                        group.cancelAll()
                        let reason =
                            "the page is followed by \(next), not \(expected.map { "\($0)" } ?? "nothing") as fetched ahead: the server's next pages changed their pattern; use --parallel 1"
                        return .failure(
                            FetchError(
                                .pagination(reason), page: page.number, location: page.location, attempts: page.attempts
                            ))
                    }
                    if index == 0, let facts = page.facts, let end = pagination.lastIndex(after: facts, start: start) {
                        last = min(last ?? end, end)
                    }
                    if let url = page.next.map(locator.identity(for:)), PageLocator.urlProblem(url) == nil {
                        visited.insert(url)
                        visited.commitPage()
                    }
                    ids.commitPage()
                    do throws(FetchError) {
                        try await body(page)
                    } catch {
                        group.cancelAll()
                        return .failure(error)
                    }
                    committed += 1
                    pages += 1
                    notes += page.noteCount
                    if page.next == nil {
                        // The last page: what is still in flight must come back empty.
                        last = index
                        continue
                    }
                    if let maxNotes, notes >= maxNotes {
                        group.cancelAll()
                        return .success(page.next)
                    }
                    if let maxPages, pages >= maxPages {
                        group.cancelAll()
                        return .success(page.next)
                    }
                }
                if let last, committed > last, scheduled <= committed {
                    group.cancelAll()
                    return .success(nil)
                }
                schedule()
            }
            return .success(nil)
        }
        return try result.get()
    }

    /// Puts `page`'s ids into the run's set as its open page, for the caller to commit: a duplicate of an
    /// earlier page is an error (and nothing is left open), or is left out of the page with
    /// ``DuplicatePolicy/skip``.
    func addIDs(of page: inout FetchedPage, to ids: IDSet, duplicates: DuplicatePolicy) -> FetchError? {
        var kept: [Note] = []
        var skipped = 0
        for (index, note) in page.notes.enumerated() {
            let outcome = note.idBytes.withUnsafeBytes { ids.insert($0) }
            guard case .duplicate(let first) = outcome else {
                if skipped > 0 { kept.append(note) }
                continue
            }
            if duplicates == .skip {
                if skipped == 0 { kept = Array(page.notes[..<index]) }
                skipped += 1
                continue
            }
            ids.rollbackPage()
            let error = PageError(
                .duplicateID(firstPage: first),
                message: "duplicate id \(note.quotedID), seen on page \(first + 1)",
                offset: -1, noteIndex: index)
            return FetchError(.contract(error), page: page.number, location: page.location, attempts: page.attempts)
        }
        if skipped > 0 {
            page.notes = kept
            page.noteCount = kept.count
            page.skippedCount += skipped
        }
        return nil
    }
}
