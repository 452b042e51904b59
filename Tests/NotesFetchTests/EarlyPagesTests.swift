import Foundation
import NotesFetchTesting
import NotesPage
import Testing

@testable import NotesFetch

/// The page after the current one, requested early: never one the walk has visited (a cycle costs no
/// request), checked where the request would start, whatever the timing of the walk around it.
@Suite("Early pages")
struct EarlyPagesTests {
    @Test("A page the walk has visited is never requested early; one it has not is")
    func visitedPageNotRequested() {
        let transport = MemoryTransport { _, _ in .json(#"{"notes":[],"next_cursor":null}"#) }
        let pagination = NextValuePagination(cursorParameter: "cursor")
        let fetcher = NotesFetcher(
            locator: PageLocator(endpoint: URL(string: "http://127.0.0.1:8080/notes")!, pagination: pagination),
            configuration: FetchConfiguration(), transport: transport)
        let early = EarlyPages(phase: fetcher.firstPhase, lastNumber: nil, cancellation: CancellationFlag())
        defer { early.stop() }
        let visited = PageLocation.cursor("page-2")
        early.visit(fetcher.locator.identity(for: visited))
        early.makeCurrent(3)
        // Page 3 names page 2 again: no request starts for it.
        early.earlyHandler(for: 3)(visited)
        #expect(early.take(4, at: visited) == nil)
        // Page 3 names a page not visited: its request starts.
        let fresh = PageLocation.cursor("page-4")
        early.earlyHandler(for: 3)(fresh)
        #expect(early.take(4, at: fresh) != nil)
    }
}
