/// The platform's transport: ``CurlTransport`` where libcurl is (Linux), ``URLSessionTransport`` elsewhere
/// (Apple platforms, where NotesFetch is built without libcurl).
/// - Returns: A new transport, with a connection pool of its own.
public func defaultTransport() -> any HTTPTransport {
    #if canImport(CCurl)
        CurlTransport()
    #else
        URLSessionTransport()
    #endif
}
