public import NotesFetch

/// The platform's transport: ``NotesFetch/CurlTransport`` on Linux, ``URLSessionTransport`` elsewhere
/// (Apple platforms, where NotesFetch is built without libcurl).
/// - Returns: A new transport, with a connection pool of its own.
public func defaultTransport() -> any HTTPTransport {
    #if os(Linux)
        CurlTransport()
    #else
        URLSessionTransport()
    #endif
}
