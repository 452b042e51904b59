import Foundation
import NotesFetch
import NotesPage
import Synchronization

/// Records the delays a fetcher asked to sleep, and sleeps not at all.
final class SleepLog: Sendable {
    private let delays = Mutex<[Double]>([])

    var all: [Double] { delays.withLock { $0 } }

    func environment(random: Double = 0.5, now: Double = 1_000_000) -> FetchEnvironment {
        FetchEnvironment(
            sleep: { seconds in self.delays.withLock { $0.append(seconds) } },
            now: { now },
            random: { random }
        )
    }
}

let endpoint = URL(string: "http://127.0.0.1:8080/notes")!

func fetcher(
    _ transport: any HTTPTransport,
    configuration: FetchConfiguration = FetchConfiguration(),
    sleeps: SleepLog = SleepLog(),
    endpoint: URL = endpoint
) -> NotesFetcher {
    NotesFetcher(
        locator: PageLocator(endpoint: endpoint),
        configuration: configuration,
        transport: transport,
        environment: sleeps.environment()
    )
}

/// Fetches the first page, returning the page or the error.
func firstPage(_ fetcher: NotesFetcher, ids: IDSet = IDSet()) async -> Result<FetchedPage, FetchError> {
    do {
        return .success(try await fetcher.fetchPage(.start, number: 1, ids: ids))
    } catch {
        return .failure(error)
    }
}

extension Result where Success == FetchedPage, Failure == FetchError {
    var error: FetchError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var page: FetchedPage? {
        if case .success(let page) = self { return page }
        return nil
    }
}

let onePage = #"{"notes": [{"id": "n1", "title": "one"}], "next_cursor": null}"#
