import Foundation
import NotesFetch
import NotesFetchTesting
import NotesPage
import NotesStore
import Synchronization
import TestSupport

/// An API in memory whose records change between runs, as a sync meets them: records sorted by
/// `updated_at`, pages of `size` at `?cursor=<offset>`, and `?since=T` keeping those updated at or after
/// T (as GitHub's `since` does).
final class SyncAPI: Sendable {
    static let endpoint = URL(string: "http://127.0.0.1:9/notes")!

    struct Record: Sendable, Hashable {
        var id: String
        var title: String
        var updatedAt: String

        var json: String { #"{"id":"\#(id)","title":"\#(title)","updated_at":"\#(updatedAt)"}"# }
    }

    private let state: Mutex<[Record]>
    let size: Int
    /// Whether `?updated_gte=T&updated_lt=U` keep the records updated in `[T, U)`; otherwise ignored.
    let honoursWindows: Bool

    /// `count` records `r1`… updated a minute apart from 2026-11-30T08:00:00Z.
    init(count: Int, size: Int, honoursWindows: Bool = true) {
        self.size = size
        self.honoursWindows = honoursWindows
        state = Mutex((1...count).map { Record(id: "r\($0)", title: "note \($0)", updatedAt: Self.minute($0)) })
    }

    static func minute(_ minute: Int) -> String {
        let hours = 8 + minute / 60
        let minutes = minute % 60
        return "2026-11-30T\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes):00Z"
    }

    var records: [Record] { state.withLock { $0 } }

    /// Adds a record, or replaces the one with its id.
    func put(_ record: Record) {
        state.withLock { records in
            records.removeAll { $0.id == record.id }
            records.append(record)
        }
    }

    /// The pagination of the walks: an opaque cursor in `cursor`, read at `next_cursor`.
    static var pagination: any Pagination { PageLocator(endpoint: endpoint).pagination }

    static var configuration: FetchConfiguration {
        var page = PageConfiguration()
        page.keepsJSON = true
        return FetchConfiguration(page: page)
    }

    func transport() -> MemoryTransport {
        MemoryTransport { request, _ in
            guard let components = URLComponents(string: request.url), components.path == "/notes" else {
                return .status(404)
            }
            let items = components.queryItems ?? []
            let since = items.first { $0.name == "since" }?.value
            // A window's bounds, as django-filter's `updated_at__gte` and `__lt` keep them (when `honoursWindows`).
            let lower = self.honoursWindows ? items.first { $0.name == "updated_gte" }?.value : nil
            let upper = self.honoursWindows ? items.first { $0.name == "updated_lt" }?.value : nil
            let offset = items.first { $0.name == "cursor" }?.value.flatMap(Int.init) ?? 0
            let selected = self.records.sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
                .filter { since == nil || $0.updatedAt >= since! }
                .filter { (lower == nil || $0.updatedAt >= lower!) && (upper == nil || $0.updatedAt < upper!) }
            let page = selected.dropFirst(offset).prefix(self.size)
            let next = offset + self.size < selected.count ? "\"\(offset + self.size)\"" : "null"
            let body = #"{"notes":[\#(page.map(\.json).joined(separator: ","))],"next_cursor":\#(next)}"#
            return .json(body, chunkSize: 64)
        }
    }

    /// The walk of this API's endpoint into `destination`.
    static func walk(into destination: any PageDestination, incremental: IncrementalSync? = nil) throws(StoreError)
        -> CommittedWalk
    {
        try CommittedWalk(url: endpoint, pagination: pagination, destination: destination, incremental: incremental)
    }

    /// A fetcher of this run's pages.
    func fetcher(_ walk: CommittedWalk, transport: MemoryTransport) -> NotesFetcher {
        NotesFetcher(locator: walk.locator, configuration: Self.configuration, transport: transport)
    }
}
