import Dispatch
internal import NotesJSON
import NotesPage

extension WalkPhase {
    enum Outcome: Sendable {
        case page(notes: [Note], summary: PageDecoder.Summary, url: String, head: HTTPResponseHead)
        case failed(AttemptStateMachine.Failure)
    }

    /// One attempt at a page: what to send, and what the walk wants of it besides its notes.
    struct Attempt {
        var url: String
        /// A POST's body (a body cursor's page), `nil` for a GET.
        let body: [UInt8]?
        /// The run's id set; the page's ids are left open in it.
        let ids: IDSet
        let cancellation: CancellationFlag
        /// How far ahead of the page its walk reaches while the page streams.
        let lookahead: Lookahead
        /// Counts the attempt's sends and the page's bytes on the wire.
        let meter: ExchangeMeter
        /// Whether the request must go out on a new connection (a retry).
        let fresh: Bool
    }

    /// One attempt at a page, following redirects, on the lane's thread.
    func attemptPage(_ attempt: Attempt, lane: NotesFetcher.Lane) async -> Outcome {
        let attempt = UnsafeTransfer(attempt)  // used on the lane's thread only, while this task waits
        return await withCheckedContinuation { continuation in
            lane.thread.async { [self] in
                continuation.resume(
                    returning: performPage(attempt.value, lane: lane))
            }
        }
    }

    func performPage(_ attempt: Attempt, lane: NotesFetcher.Lane) -> Outcome {
        let (transport, worker) = (lane.transport, lane.worker)
        var url = attempt.url
        var redirects = 0
        while true {
            // Only the first request of an attempt counts its sends (redirects are not attempts); the page's
            // bytes on the wire are those of the last response.
            let hop = ExchangeMeter()
            let isFirst = redirects == 0
            let request = client.request(for: url, body: attempt.body, fresh: attempt.fresh, meter: hop)
            defer {
                if isFirst { attempt.meter.sent(hop.sendCount) }
            }
            // The page begun ahead, if it is this one (else it is abandoned, and its parse leaves the worker).
            let begun = lane.ahead.take(for: request, page: page, ids: attempt.ids)
            let reception = begun ?? PageReception(plan: plan, ids: attempt.ids, worker: worker)
            look(ahead: attempt.lookahead, of: reception, at: url)
            reception.release()
            let completed: Bool
            do {
                completed = try transport.perform(request, receiver: reception, cancellation: attempt.cancellation)
            } catch  where error.kind == .dropped && begun != nil {
                continue  // another request on the transport dropped it: asked again, with a new reception
            } catch {
                return .failed(AttemptStateMachine.failure(of: error))
            }
            guard let head = reception.head else { return .failed(.retryable(reason: "no response", retryAfter: nil)) }
            if let problem = reception.problem { return .failed(.fatal(problem)) }
            switch AttemptStateMachine.verdict(
                on: head, url: url, redirects: redirects, policy: AttemptStateMachine.Policy(configuration),
                now: environment.now())
            {
            case .read:
                guard completed else { return .failed(.fatal(.cancelled)) }
                attempt.meter.received(wireBytes: hop.wireBytes)
                // The next page, begun now if it has come, else once this one's events are handled.
                let next = reception.sentEarly
                let nextBegun = next.map {
                    beginAhead($0, lane: lane, ids: attempt.ids, cancellation: attempt.cancellation)
                }
                do {
                    let summary = try reception.finish()
                    if let next, nextBegun == false {
                        _ = beginAhead(next, lane: lane, ids: attempt.ids, cancellation: attempt.cancellation)
                    }
                    return .page(notes: reception.notes, summary: summary, url: url, head: head)
                } catch {
                    return .failed(.fatal(.contract(error)))
                }
            case .follow(let target):
                // A POST is sent again only where the status says so (307, 308); browsers make the others a
                // GET, which would ask for something else.
                if attempt.body != nil, head.status != 307, head.status != 308 {
                    return .failed(.fatal(.status(head.status)))
                }
                redirects += 1
                url = target
            case .end(let failure):
                return .failed(failure)
            }
        }
    }

    /// Begins the next page, requested early as `request`, before this page's last events are handled: the
    /// transport gives a reception of its own the head and the first chunks it has (``AheadPage``).
    /// - Returns: Whether it began.
    private func beginAhead(
        _ request: HTTPRequest, lane: NotesFetcher.Lane, ids: IDSet, cancellation: CancellationFlag
    ) -> Bool {
        let reception = PageReception(plan: plan, ids: ids, worker: lane.worker)
        reception.beginAhead()
        guard lane.transport.begin(request, receiver: reception, cancellation: cancellation) else { return false }
        lane.ahead.keep(reception, for: request, page: page, ids: ids)
        return true
    }

    /// Sets what `reception` does when the page at `pageURL` names the next page before its end:
    /// ``Lookahead/nextPage`` is told it (from the head, or a next value before the items), and with
    /// ``Lookahead/nextRequestUnlessVisited`` the next request is made from the bytes that name it.
    private func look(ahead lookahead: Lookahead, of reception: PageReception, at pageURL: String) {
        // A page number is not sent back as it is read (auto asks for it as ?page=): nothing goes early.
        guard !AutoPagination.readsPageNumber(at: page.nextPath) else { return }
        if let visited = lookahead.nextRequestUnlessVisited {
            reception.makeNextRequest = { [self] head, value in
                nextRequest(after: head, value: value, pageURL: pageURL, unless: visited)
            }
        }
        if let tell = lookahead.nextPage {
            let pagination = locator.pagination
            let endpoint = locator.endpoint
            let fieldPaths = page.fieldPaths
            reception.early = { head, value, fields in
                let read = { (path: FieldPath) -> FieldValue? in
                    fieldPaths.firstIndex(of: path).flatMap { fields.indices.contains($0) ? fields[$0] : nil }
                }
                return pagination.earlyNext(head: head, nextValue: value, read: read, url: pageURL, endpoint: endpoint)
                    .map(tell) != nil
            }
        }
    }

    /// The next page's request, made from the next value `value` read off the page at `pageURL` before its
    /// end, as that page's first attempt will make it (so that it takes the exchange over); `nil` while a
    /// rate is kept or a limit waited out, after a head that spent the limit, or for a page already in
    /// `visited` (a cycle the walk refuses costs no request).
    private func nextRequest(after head: HTTPResponseHead, value: String, pageURL: String, unless visited: VisitedPages)
        -> HTTPRequest?
    {
        let now = environment.now()
        guard gate.isOpen(at: now), !(RateLimit.wait(head, now: now).map { $0 > 0 } ?? false),
            let next = locator.pagination.earlyNext(
                head: head, nextValue: .value(value), read: { _ in nil }, url: pageURL, endpoint: locator.endpoint)
        else { return nil }
        let nextURL = locator.url(for: next)
        guard PageLocator.urlProblem(nextURL) == nil, !visited.contains(locator.identity(for: next)) else { return nil }
        return client.request(
            for: nextURL, body: locator.pagination.body(for: next), fresh: configuration.retries == 0, meter: nil)
    }
}
