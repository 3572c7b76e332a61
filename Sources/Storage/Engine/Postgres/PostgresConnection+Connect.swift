import CPostgres
import Foundation

// MARK: - Connecting

extension PostgresConnection {
    /// A libpq connection to `url`, made, with its notices going to `ignoreNotice`.
    ///
    /// Started with `PQconnectStartParams` and driven here, rather than with
    /// `PQconnectdbParams`, so that the notice processor is in place before the server says
    /// anything: a warning it sends as the session starts (a collation version mismatch, a
    /// database setting it rejects) would otherwise go to standard error as libpq prints it.
    ///
    /// - Throws: `.unavailable` naming `url` (never its password) and saying libpq's reason in
    ///   one line, when the server cannot be reached in `PostgresURL.connectTimeoutSeconds`, or
    ///   refuses the credentials or the database.
    static func connect(_ url: PostgresURL) throws(StoreError) -> OpaquePointer {
        let parameters = url.connectionParameters
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectStartParams(keywordPointers, valuePointers, 0) else {
            throw StoreError(.unavailable, "libpq could not allocate a connection to \(url)")
        }
        PQsetNoticeProcessor(connection, ignoreNotice, nil)
        if let reason = establish(connection, within: Double(PostgresURL.connectTimeoutSeconds)) {
            PQfinish(connection)
            throw StoreError(.unavailable, "cannot connect to \(url): \(reason)")
        }
        return connection
    }

    /// Drives `PQconnectPoll` until the connection is made (nil) or has failed (the reason, one
    /// line), waiting on the socket as libpq asks, for `seconds` at most in all: for every
    /// address a host name resolves to together (libpq's `connect_timeout` is not applied here).
    private static func establish(_ connection: OpaquePointer, within seconds: Double) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        // As libpq's documentation says: start as if PQconnectPoll had asked to write.
        var state = PGRES_POLLING_WRITING
        while PQstatus(connection) != CONNECTION_BAD {
            switch state {
            case PGRES_POLLING_OK: return nil
            case PGRES_POLLING_FAILED: return oneLine(text(PQerrorMessage(connection)))
            default: break
            }
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = Int32(max(0, min(seconds * 1000, (left / .milliseconds(1)).rounded(.up))))
            var socket = pollfd(
                fd: PQsocket(connection), events: Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
            let ready = poll(&socket, 1, milliseconds)
            if ready == 0 { return "no answer in \(Int(seconds)) s" }
            if ready < 0, errno != EINTR { return "poll: " + String(cString: strerror(errno)) }
            if ready > 0 { state = PQconnectPoll(connection) }
        }
        return oneLine(text(PQerrorMessage(connection)))
    }
}

// MARK: - Notices

extension PostgresConnection {
    /// Drops a notice, a warning, or an error the server sent while no statement ran (its
    /// `FATAL: terminating connection due to administrator command` as it shuts down), which
    /// libpq's default processor would print on standard error, outside the log's format.
    ///
    /// Installed once per connection (libpq keeps it across `PQreset`). Nothing is lost that an
    /// operator needs: a connection the server ended fails its next statement, and that error
    /// (`check`, `reconnectIfLost`) reaches the log; sessions ask for no notice below a warning
    /// (`client_min_messages`), and RevenueDot's statements are written to cause none.
    static var ignoreNotice: PQnoticeProcessor { { _, _ in } }
}
