#if canImport(CPostgres)
    internal import CPostgres
    import NotesSystem

    #if canImport(Glibc)
        import Glibc
    #endif

    /// libpq, loaded by the first connection, not when the program starts (Sources/CPostgres/shim.h): from
    /// `libpq.so.5`, looked up as the dynamic linker does, or the file the environment variable
    /// `NOTES_PAGE_LIBPQ` names.
    private let libpq: Result<notes_pq, PostgresError> = {
        let path = System.libraryPath("libpq.so.5", overriddenBy: "NOTES_PAGE_LIBPQ")
        var api = notes_pq()
        let advice = "(install it: apt-get install libpq5; or set NOTES_PAGE_LIBPQ to the path of a libpq.so.5)"
        let problem: String
        switch System.openLibrary(path) {
        case .success(let library):
            guard let missing = notes_pq_find(&api, library) else { return .success(api) }
            problem = "\(path) is not libpq: it has no \(String(cString: missing))"
        case .failure(let error):
            problem = "libpq could not be loaded: \(error)"
        }
        return .failure(
            PostgresError(kind: .connection, message: "\(problem) \(advice)", sqlState: nil, operation: "connecting"))
    }()

    /// libpq's functions; only once ``PostgresConnection/init(_:applicationName:timeout:)`` found it loaded.
    private var pq: notes_pq {
        guard case .success(let api) = libpq else { preconditionFailure("libpq is called before it was loaded") }
        return api
    }

    /// A string libpq returned (`""` for none).
    private func text(_ characters: UnsafePointer<CChar>?) -> String {
        characters.map { String(cString: $0) } ?? ""
    }

    /// What libpq or the server said when a call failed: its message (with any password taken out), the
    /// SQLSTATE when the server sent one (`23505`, `53100`), and what was being done.
    package struct PostgresError: Error, Sendable, CustomStringConvertible {
        /// Why it failed, broadly: what the command line's exit code says.
        package enum Kind: Sendable, Hashable {
            /// The server could not be reached, or the connection was lost: worth trying again.
            case connection
            /// The credentials were refused (a wrong password, an unknown role: SQLSTATE class 28).
            case credentials
            /// Anything else the server refused (a privilege, a full disk, a constraint).
            case statement
        }

        package var kind: Kind
        package var message: String
        package var sqlState: String?
        /// What the call was for, e.g. "committing page 3".
        package var operation: String

        package var description: String {
            "\(operation): \(message)\(sqlState.map { " (SQLSTATE \($0))" } ?? "")"
        }
    }

    /// One connection to a PostgreSQL server: the only place in the project that calls libpq (`PQ*`).
    ///
    /// Not for concurrent use: one thread at a time. Messages never hold the connection's password, libpq's
    /// own included.
    package final class PostgresConnection {
        private var handle: OpaquePointer?
        /// The password the connection string or libpq's environment gave, taken out of every message.
        private var password: String?
        /// What the connection's user has made sure of and need not check again while it is open (the
        /// tables of a schema made, a table's kind checked): a worker opens one table walk after another.
        package var ready: Set<String> = []

        /// Connects with libpq's connection string or URI (`postgresql://user@host:port/db`, `host=… dbname=…`),
        /// and libpq's environment (`PGHOST`, `PGPASSWORD`, `~/.pgpass`, `sslmode`).
        /// - Parameters:
        ///   - applicationName: What the server's `pg_stat_activity` shows of this connection.
        ///   - timeout: Seconds to wait for the server to answer the connection.
        /// - Throws: ``PostgresError``: ``PostgresError/Kind/credentials`` for refused credentials, else
        ///   ``PostgresError/Kind/connection``.
        package init(_ connection: String, applicationName: String, timeout: Int = 10) throws(PostgresError) {
            if case .failure(let error) = libpq { throw error }
            password = Self.password(in: connection)
            let keys = ["dbname", "application_name", "connect_timeout"]
            let values = [connection, applicationName, "\(timeout)"]
            handle = Self.withCStrings(keys) { keys in
                Self.withCStrings(values) { values in pq.PQconnectdbParams!(keys, values, 1) }
            }
            guard let handle, pq.PQstatus!(handle) == CONNECTION_OK else {
                let message = handle.map { text(pq.PQerrorMessage!($0)) } ?? "out of memory"
                if let handle, password == nil, let used = pq.PQpass!(handle) { password = String(cString: used) }
                let refused =
                    message.contains("password authentication failed") || message.contains("no password supplied")
                    || message.contains("does not exist") && message.contains("role")
                let error = PostgresError(
                    kind: refused ? .credentials : .connection, message: clean(message), sqlState: nil,
                    operation: "connecting")
                pq.PQfinish!(self.handle)
                self.handle = nil
                throw error
            }
            if password == nil, let used = pq.PQpass!(handle) {
                let text = String(cString: used)
                if !text.isEmpty { password = text }
            }
        }

        deinit {
            if let handle { pq.PQfinish!(handle) }  // none when libpq could not be loaded
        }

        /// Whether the connection is lost (the server restarted, the backend was terminated).
        package var isBroken: Bool { handle.map { pq.PQstatus!($0) != CONNECTION_OK } ?? true }

        /// The backend's process id (for `pg_terminate_backend` in tests).
        package var backendPID: Int32 { handle.map { pq.PQbackendPID!($0) } ?? 0 }

        /// Waits at most `seconds` for a notification (`NOTIFY`) on a channel the connection listens to, and
        /// takes every one that came. Returns whether one came whose payload is `payload`.
        package func awaitNotification(payload: String, seconds: Double) -> Bool {
            guard let handle else { return false }
            func drain() -> Bool {
                var matched = false
                while let notice = pq.PQnotifies!(handle) {
                    if let extra = notice.pointee.extra, String(cString: extra) == payload { matched = true }
                    pq.PQfreemem!(notice)
                }
                return matched
            }
            if pq.PQconsumeInput!(handle) == 1, drain() { return true }
            let socket = pq.PQsocket!(handle)
            guard socket >= 0 else { return false }
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, Int32(max(0, min(seconds, 3600)) * 1000)) > 0, pq.PQconsumeInput!(handle) == 1
            else {
                return false
            }
            return drain()
        }

        /// Runs `sql` (one or more statements, no parameters).
        /// - Throws: ``PostgresError`` when a statement fails.
        package func execute(_ sql: String, _ operation: String) throws(PostgresError) {
            let result = pq.PQexec!(handle, sql)
            defer { pq.PQclear!(result) }
            try check(result, operation)
        }

        /// Runs one statement with `parameters` in text form (`nil` for NULL) and returns its rows, each a
        /// column's text (`nil` for NULL).
        /// - Throws: ``PostgresError`` when it fails.
        @discardableResult
        package func query(_ sql: String, _ parameters: [[UInt8]?] = [], _ operation: String) throws(PostgresError)
            -> [[String?]]
        {
            let name = try prepared(sql, parameters: parameters.count, operation)
            let result = Self.withParameters(parameters) { values, lengths in
                if let name {
                    return pq.PQexecPrepared!(handle, name, Int32(parameters.count), values, lengths, nil, 0)
                }
                return pq.PQexecParams!(handle, sql, Int32(parameters.count), nil, values, lengths, nil, 0)
            }
            defer { pq.PQclear!(result) }
            do {
                try check(result, operation)
            } catch {
                // A statement the server no longer has, or whose plan it cannot keep (a table made again):
                // prepared again when next used.
                if error.sqlState == "26000" || error.sqlState == "0A000" { statements[sql] = nil }
                throw error
            }
            var rows: [[String?]] = []
            for row in 0..<pq.PQntuples!(result) {
                rows.append(
                    (0..<pq.PQnfields!(result)).map { column in
                        pq.PQgetisnull!(result, row, column) == 1 ? nil : text(pq.PQgetvalue!(result, row, column))
                    })
            }
            return rows
        }

        /// Runs `sql`, a `COPY … FROM STDIN`, sending `data` (in COPY's text format) as its rows.
        /// - Throws: ``PostgresError`` when the copy fails.
        package func copy(_ sql: String, data: [UInt8], _ operation: String) throws(PostgresError) {
            let start = pq.PQexec!(handle, sql)
            guard pq.PQresultStatus!(start) == PGRES_COPY_IN else {
                defer { pq.PQclear!(start) }
                try check(start, operation)
                throw failure(operation, nil)
            }
            pq.PQclear!(start)
            // libpq takes at most Int32.max bytes a call: a page is far below it, but send in pieces anyway.
            var offset = 0
            var sent = true
            data.withUnsafeBufferPointer { bytes in
                while offset < bytes.count, sent {
                    let length = min(bytes.count - offset, 1 << 20)
                    bytes.baseAddress!.advanced(by: offset).withMemoryRebound(to: CChar.self, capacity: length) {
                        sent = pq.PQputCopyData!(handle, $0, Int32(length)) == 1
                    }
                    offset += length
                }
            }
            let ended = sent && pq.PQputCopyEnd!(handle, nil) == 1
            // Every result of the copy is read, so that the connection is ready for the next command.
            var firstFailure: PostgresError?
            while let result = pq.PQgetResult!(handle) {
                if firstFailure == nil, pq.PQresultStatus!(result) != PGRES_COMMAND_OK {
                    firstFailure = failure(operation, result)
                }
                pq.PQclear!(result)
            }
            if let firstFailure { throw firstFailure }
            if !ended { throw failure(operation, nil) }
        }

        /// ``copy(_:data:_:)``, its failure returned rather than thrown (for a caller that decides by SQLSTATE).
        package func attemptCopy(_ sql: String, data: [UInt8], _ operation: String) -> Result<
            Void, PostgresError
        > {
            do {
                try copy(sql, data: data, operation)
                return .success(())
            } catch {
                return .failure(error)
            }
        }

        /// The statements prepared on the connection, by their text: a worker runs the same few hundred times
        /// a minute, and the server then parses and plans each once.
        private var statements: [String: String] = [:]
        /// The most statements prepared on one connection (a text made anew each time is not prepared).
        static let maxPrepared = 128

        /// The name of `sql` prepared on the connection (preparing it on first use), or `nil` to run it
        /// unprepared: inside a transaction that failed, or past ``maxPrepared``.
        /// - Throws: ``PostgresError`` when the server refuses the statement (what running it would say).
        private func prepared(_ sql: String, parameters: Int, _ operation: String) throws(PostgresError) -> String? {
            if let name = statements[sql] { return name }
            guard let handle, preparedCount < Self.maxPrepared, pq.PQtransactionStatus!(handle) != PQTRANS_INERROR
            else { return nil }
            preparedCount += 1
            let name = "notes_page_\(preparedCount)"
            let result = pq.PQprepare!(handle, name, sql, Int32(parameters), nil)
            defer { pq.PQclear!(result) }
            try check(result, operation)
            statements[sql] = name
            return name
        }

        /// Statements prepared so far, which names the next.
        private var preparedCount = 0

        /// Throws the failure `result` holds, if it is one.
        private func check(_ result: OpaquePointer?, _ operation: String) throws(PostgresError) {
            switch pq.PQresultStatus!(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK: return
            default: throw failure(operation, result)
            }
        }

        /// The error of `result` (or of the connection, when there is no result).
        private func failure(_ operation: String, _ result: OpaquePointer?) -> PostgresError {
            var message = result.map { text(pq.PQresultErrorMessage!($0)) } ?? ""
            if message.isEmpty { message = handle.map { text(pq.PQerrorMessage!($0)) } ?? "" }
            let state = result.flatMap { pq.PQresultErrorField!($0, Int32(UInt8(ascii: "C"))) }.map {
                String(cString: $0)
            }
            let kind: PostgresError.Kind
            if isBroken || state?.hasPrefix("08") == true || state == "57P01" {
                kind = .connection
            } else if state?.hasPrefix("28") == true {
                kind = .credentials
            } else {
                kind = .statement
            }
            return PostgresError(kind: kind, message: clean(message), sqlState: state, operation: operation)
        }

        /// `message` on one line, without the password.
        private func clean(_ message: String) -> String {
            var text = message.split(whereSeparator: \.isNewline).map { String($0).trimming(" \t") }
                .filter { !$0.isEmpty }.joined(separator: "; ")
            if let password, !password.isEmpty { text = text.replacing(password, with: "***") }
            return String(text.prefix(400))
        }

        /// The password a connection string or URI holds, if any (libpq's parser, so every form counts).
        private static func password(in connection: String) -> String? {
            guard let options = pq.PQconninfoParse!(connection, nil) else { return nil }
            defer { pq.PQconninfoFree!(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "password", let value = option.pointee.val {
                    let text = String(cString: value)
                    return text.isEmpty ? nil : text
                }
                option += 1
            }
            return nil
        }

        /// Calls `body` with `strings` as a NULL-terminated array of C strings.
        private static func withCStrings<Result>(
            _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result
        ) -> Result {
            let copies = strings.map { string in
                let bytes = Array(string.utf8)
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
                copy[bytes.count] = 0
                return copy
            }
            defer { for copy in copies { copy.deallocate() } }
            let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }

        /// Calls `body` with `parameters` as libpq's values and lengths (NUL-terminated copies).
        private static func withParameters<Result>(
            _ parameters: [[UInt8]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?) -> Result
        ) -> Result {
            let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { bytes in
                guard let bytes else { return nil }
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                bytes.withUnsafeBufferPointer { source in
                    source.baseAddress.map { start in
                        copy.withMemoryRebound(to: UInt8.self, capacity: bytes.count) { target in
                            target.update(from: start, count: bytes.count)
                        }
                    }
                }
                copy[bytes.count] = 0
                return copy
            }
            defer { for copy in copies { copy?.deallocate() } }
            let pointers = copies.map { $0.map { UnsafePointer($0) } }
            let lengths = parameters.map { Int32($0?.count ?? 0) }
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { body(values.baseAddress, $0.baseAddress) }
            }
        }
    }
#endif
