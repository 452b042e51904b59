import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import Synchronization
import Testing

@testable import NotesScreen

/// A token the app's sign-in replaces; the fetcher asks for it before every request.
final class TokenStore: TokenProvider, Sendable {
    private let value = Mutex<String?>(nil)

    init(_ token: String?) {
        value.withLock { $0 = token }
    }

    func currentToken() -> Secret? { value.withLock { $0 }.map(Secret.init) }

    func set(_ token: String?) { value.withLock { $0 = token } }
}

/// A server that answers 401 unless the request carries `Authorization: Bearer good`.
func guardedServer() -> MemoryTransport {
    MemoryTransport { request, _ in
        let authorization = request.headers.first { $0.name == "Authorization" }?.value
        guard authorization == "Bearer good" else { return .status(401) }
        switch request.url {
        case endpoint: return .json(body(["a", "b"], next: "c2"))
        case page("c2"): return .json(body(["c"]))
        default: return .status(404)
        }
    }
}

@MainActor
@Suite("Session expired: the app's sign-in, a token asked for per request, the states said aloud")
struct SignInTests {
    func model(_ transport: MemoryTransport, tokens: TokenStore, signIn: (@MainActor () async -> Bool)?)
        -> (NotesScreenModel, PhaseLog)
    {
        var configuration = FetchConfiguration()
        configuration.token = tokens
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: endpoint)!), configuration: configuration,
            transport: transport, environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 }))
        let model = NotesScreenModel(fetcher: fetcher, signIn: signIn)
        let log = PhaseLog()
        model.onPhaseChange = { log.phases.append($0) }
        return (model, log)
    }

    @Test("After the app signs in, the model starts over with the new token; the model never holds it")
    func signInThenLoad() async {
        let transport = guardedServer()
        let tokens = TokenStore("stale")
        let signIns = Mutex(0)
        let (model, log) = model(transport, tokens: tokens) {
            signIns.withLock { $0 += 1 }
            tokens.set("good")
            return true
        }
        await model.load().value
        #expect(model.phase == .sessionExpired)
        #expect(model.canSignIn)
        await model.signIn().value
        #expect(signIns.withLock { $0 } == 1)
        await model.loadMore().value
        #expect(
            log.summaries == ["loading", "session expired", "loading", "[a b] more", "[a b] loading more", "[a b c]"])
        let sent = transport.requests.map { $0.headers.first { $0.name == "Authorization" }?.value }
        #expect(sent == ["Bearer stale", "Bearer good", "Bearer good"])
        #expect(!String(describing: model.phase).contains("good"))
    }

    @Test("A sign-in the reader abandons leaves the session expired, with no request")
    func signInAbandoned() async {
        let transport = guardedServer()
        let (model, log) = model(transport, tokens: TokenStore(nil)) { false }
        await model.load().value
        await model.signIn().value
        #expect(log.summaries == ["loading", "session expired"])
        #expect(transport.requests.count == 1)
        #expect(transport.requests[0].headers.allSatisfy { $0.name != "Authorization" }, "no token, no header")
    }

    @Test("A token provider is asked before every request: a token rotated between pages is sent from then on")
    func rotatedBetweenPages() async {
        let tokens = TokenStore("good")
        let transport = MemoryTransport { request, _ in
            if request.url == endpoint { tokens.set("newer") }
            return request.url == endpoint ? .json(body(["a"], next: "c2")) : .json(body(["b"]))
        }
        let (model, _) = model(transport, tokens: tokens, signIn: nil)
        await model.load().value
        await model.loadMore().value
        let sent = transport.requests.map { $0.headers.first { $0.name == "Authorization" }?.value }
        #expect(sent == ["Bearer good", "Bearer newer"])
    }

    @Test("Each phase is said in words for assistive technologies, with the action it offers")
    func accessibilityLabels() {
        let rows = [NoteRow(Note(id: "a", title: "t"))]
        let retryable = LoadFailure(FetchError(.unavailable("HTTP 503"), page: 2, location: .cursor("c2")))
        let final = LoadFailure(FetchError(.cycle, page: 2, location: .cursor("c2")))
        #expect(NotesScreenPhase.loading.accessibilityLabel == "Loading notes")
        #expect(NotesScreenPhase.idle.accessibilityLabel == "Loading notes")
        #expect(NotesScreenPhase.empty.accessibilityLabel == "No notes yet")
        #expect(NotesScreenPhase.loaded(rows: rows, next: .end).accessibilityLabel == "1 note")
        #expect(
            NotesScreenPhase.loaded(rows: rows + rows, next: .available).accessibilityLabel == "2 notes, loading more")
        #expect(
            NotesScreenPhase.loaded(rows: rows, next: .failed(retryable)).accessibilityLabel
                == "1 note. The server is not answering. Try again.")
        #expect(
            NotesScreenPhase.failed(final).accessibilityLabel
                == "The server's next page leads back to one already shown.")
        #expect(
            NotesScreenPhase.sessionExpired.accessibilityLabel
                == "Your session has expired. Sign in again to see your notes.")
    }
}
