import Dispatch
internal import NotesJSON
import NotesPage

extension NotesFetcher {
    enum Outcome: Sendable {
        case page(notes: [Note], summary: PageDecoder.Summary, url: String, head: HTTPResponseHead)
        case failed(AttemptStateMachine.Failure)
    }

    /// One attempt at a page, following redirects, on the transport queue.
    func attemptPage(
        url: String, body: [UInt8]?, ids: IDSet, cancellation: CancellationFlag, lane: Lane,
        early: (@Sendable (PageLocation) -> Void)?,
        sendsNextEarly: VisitedPages?, meter: ExchangeMeter, fresh: Bool
    ) async -> Outcome {
        let ids = UnsafeTransfer(ids)
        return await withCheckedContinuation { continuation in
            lane.thread.async { [self] in
                continuation.resume(
                    returning: performPage(
                        url: url, body: body, ids: ids.value, cancellation: cancellation, transport: lane.transport,
                        worker: lane.worker, early: early, sendsNextEarly: sendsNextEarly, meter: meter, fresh: fresh))
            }
        }
    }

    func performPage(
        url: String, body: [UInt8]?, ids: IDSet, cancellation: CancellationFlag, transport: any HTTPTransport,
        worker: JSONPipelineWorker, early: (@Sendable (PageLocation) -> Void)?, sendsNextEarly: VisitedPages?,
        meter: ExchangeMeter, fresh: Bool
    ) -> Outcome {
        var url = url
        var redirects = 0
        while true {
            // Only the first request of an attempt counts its sends (redirects are not attempts); the page's
            // bytes on the wire are those of the last response.
            let hop = ExchangeMeter()
            let isFirst = redirects == 0
            let request = request(for: url, body: body, fresh: fresh, meter: hop)
            defer {
                if isFirst { meter.sent(hop.sendCount) }
            }
            let reception = PageReception(configuration: page, ids: ids, worker: worker)
            // A page number is not sent back as it is read (auto asks for it as ?page=): nothing goes early.
            let nextIsNumber = AutoPagination.readsPageNumber(at: page.nextPath)
            if let visited = sendsNextEarly, !nextIsNumber {
                let pageURL = url
                reception.makeNextRequest = { [self] head, value in
                    // Not while a rate is kept or a limit waited out, nor after a head that spent the limit.
                    let now = environment.now()
                    guard gate.isOpen(at: now), !(RateLimit.wait(head, now: now).map { $0 > 0 } ?? false),
                        let next = locator.pagination.earlyNext(
                            head: head, nextValue: .value(value), read: { _ in nil }, url: pageURL,
                            endpoint: locator.endpoint)
                    else { return nil }
                    let nextURL = locator.url(for: next)
                    // A page already visited is a cycle the walk refuses: it costs no request.
                    guard FetchLimits.urlProblem(nextURL) == nil, !visited.contains(locator.identity(for: next))
                    else { return nil }
                    // As the next page's first attempt will make it, so that it takes this exchange over.
                    return self.request(
                        for: nextURL, body: locator.pagination.body(for: next), fresh: configuration.retries == 0,
                        meter: nil)
                }
            }
            if let early, !nextIsNumber {
                let pagination = locator.pagination
                let endpoint = locator.endpoint
                let pageURL = url
                let fieldPaths = page.fieldPaths
                reception.early = { head, value, fields in
                    let read = { (path: FieldPath) -> FieldValue? in
                        fieldPaths.firstIndex(of: path).flatMap { fields.indices.contains($0) ? fields[$0] : nil }
                    }
                    return pagination.earlyNext(
                        head: head, nextValue: value, read: read, url: pageURL, endpoint: endpoint
                    )
                    .map(early) != nil
                }
            }
            let completed: Bool
            do {
                completed = try transport.perform(request, receiver: reception, cancellation: cancellation)
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
                meter.received(wireBytes: hop.wireBytes)
                do {
                    let summary = try reception.finish()
                    return .page(notes: reception.notes, summary: summary, url: url, head: head)
                } catch {
                    return .failed(.fatal(.contract(error)))
                }
            case .follow(let target):
                // A POST is sent again only where the status says so (307, 308); browsers make the others a
                // GET, which would ask for something else.
                if body != nil, head.status != 307, head.status != 308 { return .failed(.fatal(.status(head.status))) }
                redirects += 1
                url = target
            case .end(let failure):
                return .failed(failure)
            }
        }
    }

    /// The request for `url`: credentials go to the endpoint's origin only (the token, and headers that
    /// carry credentials).
    func request(for url: String, body: [UInt8]?, fresh: Bool, meter: ExchangeMeter?) -> HTTPRequest {
        let sameOrigin = isSameOrigin(url)
        if !sameOrigin { tellOnce(otherOrigin: url) }
        var headers = configuration.headers.filter { sameOrigin || !FetchConfiguration.isCredential($0) }
        if sameOrigin, let token = configuration.token?.currentToken() {
            headers.append(HTTPHeader("Authorization", "Bearer \(token.value)"))
        }
        if body != nil, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(HTTPHeader("Content-Type", "application/json"))
        }
        return HTTPRequest(
            url: url, headers: headers, idleTimeout: configuration.idleTimeout,
            totalTimeout: configuration.pageTimeout, freshConnection: fresh, meter: meter, body: body)
    }

    /// Says once per walk that it follows a URL on another origin, where no credentials go.
    private func tellOnce(otherOrigin url: String) {
        let first = toldOtherOrigin.withLock { told in
            defer { told = true }
            return !told
        }
        guard first else { return }
        let origin = Origin(url).map { "\($0.scheme)://\($0.host):\($0.port)" } ?? "a URL"
        environment.notice(
            "The walk follows a URL on \(origin), another origin than the endpoint's: no credentials go there")
    }
}
