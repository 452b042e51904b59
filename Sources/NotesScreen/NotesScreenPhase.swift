public import NotesFetch
public import NotesPage

/// What the notes screen shows: exactly one of these at a time.
///
/// Each case carries what its view needs and nothing more, so a spinner over a list, an error with notes
/// that belong to no page, or a "load more" while the last page is showing cannot be represented.
public enum NotesScreenPhase: Sendable, Hashable {
    /// Nothing requested yet, or the first page was cancelled before it arrived.
    case idle
    /// The first page is on its way; nothing to show yet.
    case loading
    /// At least one page arrived: its notes, in server order, and the state of the page after them.
    case loaded(rows: [NoteRow], next: NextPageState)
    /// The endpoint answered with no notes at all: "No notes yet". A success, not an error.
    case empty
    /// The first page failed; nothing to show but the reason.
    case failed(LoadFailure)
    /// 401 or 403: the credentials are missing or no longer valid. Never retried on its own: the app
    /// signs in again (``NotesScreenModel/signIn()``), then the model starts over.
    case sessionExpired

    /// What assistive technologies say for the phase: the state in words, and the action it offers.
    public var accessibilityLabel: String {
        switch self {
        case .idle, .loading: return "Loading notes"
        case .empty: return "No notes yet"
        case .loaded(let rows, let next):
            let count = rows.count == 1 ? "1 note" : "\(rows.count) notes"
            switch next {
            case .end: return count
            case .available, .loading: return "\(count), loading more"
            case .failed(let failure): return "\(count). \(failure.accessibilityLabel)"
            }
        case .failed(let failure): return failure.accessibilityLabel
        case .sessionExpired: return "Your session has expired. Sign in again to see your notes."
        }
    }
}

/// The page after the notes shown.
public enum NextPageState: Sendable, Hashable {
    /// The last page is showing.
    case end
    /// There is a next page; ``NotesScreenModel/loadMore()`` fetches it.
    case available
    /// The next page is on its way.
    case loading
    /// The next page failed; the notes above stay. ``NotesScreenModel/retry()`` fetches that page again.
    case failed(LoadFailure)

    /// Whether there is a page after the notes shown, loaded or not.
    public var hasMore: Bool {
        if case .end = self { return false }
        return true
    }

    /// Whether the next page is on its way.
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }
}

/// One row of the list: a note, identified by its id (unique in the session, so a stable list identity).
public struct NoteRow: Identifiable, Sendable, Hashable {
    /// The note's id, decoded once.
    public let id: String
    /// The note's title, decoded once.
    public let title: String
    /// The note itself, with its exact JSON when the configuration keeps it.
    public let note: Note

    public init(_ note: Note) {
        self.id = note.id
        self.title = note.title
        self.note = note
    }
}

/// Why a page failed, in words for the screen, and whether trying again makes sense.
public struct LoadFailure: Sendable, Hashable, CustomStringConvertible {
    /// What the fetcher reported: the page, its location, the code. Safe to log.
    public let error: FetchError
    /// A short sentence for the screen; it never quotes the body, a header or an id.
    public let reason: String
    /// Whether "Try again" makes sense: `false` when the same page would fail the same way (a limit of
    /// this client, or a cursor cycle).
    public let canRetry: Bool

    /// - Parameter error: Any failure but ``FetchError/Kind/sessionExpired``, which is a phase of its own.
    public init(_ error: FetchError) {
        self.error = error
        switch error.code.base {
        case .unavailable:
            (reason, canRetry) = ("The server is not answering.", true)
        case .rateLimited:
            (reason, canRetry) = ("The server asks to wait a long while before the next page.", true)
        case .tls:
            (reason, canRetry) = ("The server's certificate cannot be trusted.", false)
        case .transportUnusable:
            (reason, canRetry) = ("This device cannot make the request: a system library is missing.", false)
        case .contentType:
            (reason, canRetry) = ("The server sent a page that is not JSON.", true)
        case .tooLarge:
            (reason, canRetry) = ("A page is larger than this app accepts.", false)
        case .contract(let pageError):
            switch pageError.code {
            case .limitExceeded:
                (reason, canRetry) = ("A page is larger than this app accepts.", false)
            case .invalidJSON, .truncated:
                (reason, canRetry) = ("The server sent a broken page.", true)
            case .duplicateID:
                (reason, canRetry) = ("The server sent the same note twice.", true)
            default:
                (reason, canRetry) = ("The server sent notes this app cannot read.", true)
            }
        case .status(let status):
            (reason, canRetry) = ("The server answered HTTP \(status).", true)
        case .cycle:
            (reason, canRetry) = ("The server's next page leads back to one already shown.", false)
        case .pagination:
            (reason, canRetry) = ("The server's page does not say where the next one is.", false)
        case .redirects:
            (reason, canRetry) = ("The server redirected too many times.", true)
        case .record:
            (reason, canRetry) = ("The server sent notes this app cannot read.", true)
        case .sessionExpired:
            (reason, canRetry) = ("Your session has expired.", false)
        case .cancelled:
            (reason, canRetry) = ("Loading was interrupted.", true)
        case .output(let failure):
            (reason, canRetry) = (failure.description, true)
        case .insecureCredentials:
            (reason, canRetry) = ("This app will not send your credentials over an unencrypted connection.", false)
        }
    }

    /// The reason and the action it offers, for assistive technologies.
    public var accessibilityLabel: String { canRetry ? "\(reason) Try again." : reason }

    /// The reason and the fetcher's technical account, for logs.
    public var description: String { "\(reason) (\(error))" }
}
