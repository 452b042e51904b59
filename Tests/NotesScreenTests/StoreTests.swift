import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import NotesStore
import TestSupport
import Testing

@testable import NotesScreen

/// The screen over a SQLite store: what the store holds shows at once, offline too; each page is
/// committed into it before it shows.
@Suite("The notes screen with a store")
@MainActor
struct StoreTests {
    /// A model over `transport` that keeps its notes in `path`, with every phase recorded.
    static func model(_ transport: any HTTPTransport, store path: String) throws -> (NotesScreenModel, PhaseLog) {
        var configuration = FetchConfiguration()
        configuration.retries = 0
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: endpoint)!), configuration: configuration, transport: transport,
            environment: FetchEnvironment(sleep: { _ in }, now: { 1_000_000 }, random: { 0.5 }))
        let model = NotesScreenModel(fetcher: fetcher, store: try SQLiteDestination(path: path))
        let log = PhaseLog()
        model.onPhaseChange = { log.phases.append($0) }
        return (model, log)
    }

    static func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("notes-screen-\(UUID().uuidString).db").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test("Pages fetched are committed to the store as they show; offline, the store's rows show with the failure")
    func offline() async throws {
        let path = Self.scratch()
        defer { Self.remove(path) }
        let online = PagingTests.threePages()
        let (first, firstLog) = try Self.model(online.transport, store: path)
        await first.load().value
        await first.loadMore().value
        #expect(firstLog.summaries == ["loading", "[a b] more", "[a b] loading more", "[a b c] more"])
        #expect(try SQLiteShell.query(path, "SELECT id FROM notes ORDER BY rowid") == "a\nb\nc\n")

        let offline = MemoryTransport { _, _ in .failure(TransportError(.connect, "connection refused")) }
        let (second, log) = try Self.model(offline, store: path)
        await second.load().value
        #expect(log.summaries == ["[a b c] loading more", "[a b c] failed (try again)"])
        #expect(
            second.phase.failure?.reason == "The server is not answering.",
            "\(String(describing: second.phase.failure))")
    }

    @Test("A refresh replaces edited rows and adds new ones, in the order they first arrived")
    func refresh() async throws {
        let path = Self.scratch()
        defer { Self.remove(path) }
        let server = Server([endpoint: .json(body(["a", "b"]))])
        let (model, log) = try Self.model(server.transport, store: path)
        await model.load().value
        server[endpoint] = .json(
            #"{"notes": [{"id": "c", "title": "new"}, {"id": "a", "title": "edited"}], "next_cursor": null}"#)
        await model.refresh().value
        #expect(log.summaries == ["loading", "[a b]", "[a b] loading more", "[a b c]"])
        guard case .loaded(let rows, _) = model.phase else {
            Issue.record("not loaded")
            return
        }
        #expect(rows.map(\.title) == ["edited", "title b", "new"])
    }

    @Test("A fetcher that keeps no JSON cannot fill a store: said at once, nothing requested")
    func keepsJSON() async throws {
        let path = Self.scratch()
        defer { Self.remove(path) }
        let server = Server([endpoint: .json(body(["a"]))])
        var configuration = FetchConfiguration()
        configuration.page.keepsJSON = false
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: endpoint)!), configuration: configuration,
            transport: server.transport)
        let model = NotesScreenModel(fetcher: fetcher, store: try SQLiteDestination(path: path))
        await model.load().value
        #expect(model.phase.failure?.error.description.contains("page.keepsJSON") == true)
        #expect(server.requested.isEmpty)
    }
}
