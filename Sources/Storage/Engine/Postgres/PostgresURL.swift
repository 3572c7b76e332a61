import Foundation

/// Where a PostgreSQL database is: `postgres://user:password@host:port/database?sslmode=...`.
///
/// The password may instead come from `PGPASSWORD` or a password file (the `passwordFile` config
/// key): the URL is usually in a config file others can read. `description` never shows it, so a
/// URL can go into a log line or an error as it is.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`); libpq's
    /// default (`prefer`) when absent.
    public var sslMode: String?
    /// libpq's `sslrootcert`: the CA certificates (PEM) `verify-ca` and `verify-full` check the
    /// server against, in place of libpq's default `~/.postgresql/root.crt`.
    public var sslRootCert: String?
    /// What the server shows as the session's `application_name` (`pg_stat_activity`): a node
    /// sets its name, so an operator can tell which node holds a lock.
    public var applicationName = "revenuedot"

    private static let sslModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Parses `text`; a password absent from it is taken from `passwordFile` (its first line),
    /// else from `environment["PGPASSWORD"]`.
    ///
    /// - Throws: `.invalid` with one line naming what is wrong, never the password.
    public init(
        _ text: String, passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StoreError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let components = URLComponents(string: text)
        else {
            throw StoreError(.invalid, "a PostgreSQL database is given as postgres://user:password@host:port/database")
        }
        guard components.fragment == nil else {
            throw StoreError(.invalid, "the PostgreSQL URL holds a '#': a '#' in the password is written %23")
        }
        // An IPv6 address is written in brackets in a URL, and given to libpq without them.
        guard var host = components.host, !host.isEmpty else {
            throw StoreError(.invalid, "the PostgreSQL URL names no host (postgres://user@host:port/database)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // Each part decoded once, from its encoded form: a decoded password decoded again would
        // lose a '%' (written %25).
        guard let user = try Self.decoded(components.percentEncodedUser, "user name"), !user.isEmpty else {
            throw StoreError(.invalid, "the PostgreSQL URL names no user (postgres://user@\(host)/database)")
        }
        let path = String(components.percentEncodedPath.dropFirst())
        guard let database = try Self.decoded(path, "database name"), !database.isEmpty else {
            throw StoreError(.invalid, "the PostgreSQL URL names no database (postgres://\(user)@\(host)/database)")
        }
        guard !database.contains("/") else {
            throw StoreError(
                .invalid,
                "the PostgreSQL URL's database \"\(database)\" holds a '/': name the database alone, with no '/' after it")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw StoreError(.invalid, "the PostgreSQL URL's port \(port) is not between 1 and 65535")
        }
        var sslMode: String?
        var sslRootCert: String?
        var seen: Set<String> = []
        for item in components.queryItems ?? [] {
            // A second sslmode would quietly win over the first (a verify-full turned off).
            guard seen.insert(item.name).inserted else {
                throw StoreError(.invalid, "the PostgreSQL URL gives \(item.name) twice")
            }
            if item.name == "sslrootcert", let value = item.value, !value.isEmpty {
                sslRootCert = value
                continue
            }
            guard item.name == "sslmode", let value = item.value, Self.sslModes.contains(value) else {
                throw StoreError(
                    .invalid,
                    "the PostgreSQL URL's query takes only sslmode=\(Self.sslModes.sorted().joined(separator: "|")) "
                        + "and sslrootcert=PATH, not \(item.name)=\(item.value ?? "")")
            }
            sslMode = value
        }
        if sslRootCert != nil, sslMode == "disable" {
            throw StoreError(.invalid, "the PostgreSQL URL gives sslrootcert with sslmode=disable, which never uses it")
        }
        var password = try Self.decoded(components.percentEncodedPassword, "password")
        if password == nil, let passwordFile {
            guard let contents = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw StoreError(.invalid, "the PostgreSQL password file \(passwordFile) cannot be read")
            }
            // Its first line, ended by "\n" or by the "\r\n" of a file written on Windows.
            password = contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init)
        }
        if password == nil { password = environment["PGPASSWORD"] }
        self.user = user
        self.password = password
        self.host = host
        self.port = components.port ?? 5432
        self.database = database
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
    }

    /// `encoded` with its percent escapes decoded; nil when absent.
    ///
    /// - Throws: `.invalid` naming the part when an escape is not one (a lone '%').
    private static func decoded(_ encoded: String?, _ part: String) throws(StoreError) -> String? {
        guard let encoded else { return nil }
        guard let text = encoded.removingPercentEncoding else {
            throw StoreError(.invalid, "the PostgreSQL URL's \(part) holds a '%' that starts no escape: write '%' as %25")
        }
        return text
    }

    /// The URL without its password.
    public var description: String {
        let query = [sslMode.map { "sslmode=\($0)" }, sslRootCert.map { "sslrootcert=\($0)" }].compactMap { $0 }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The same server and credentials, another database.
    public func with(database: String) -> PostgresURL {
        var url = self
        url.database = database
        return url
    }

    /// How long a connection attempt waits for the server, in seconds.
    static let connectTimeoutSeconds = 5

    /// How soon a connection whose server or network went silent fails instead of waiting for
    /// good: TCP keepalives after 5 s idle, every 2 s, 3 unanswered (about 11 s), and data sent
    /// but not acknowledged for 10 s. A read waiting on a cut link then frees its thread.
    static let deadLinkParameters: [(String, String)] = [
        ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "10000"),
    ]

    /// A password file libpq finds no file at, and says nothing about: it reads `passfile` only
    /// when `stat` succeeds, and warns on standard error about one that is not a regular file
    /// (which `/dev/null` is not). Nothing can be created here, since `/dev/null` is no directory.
    static let absentPasswordFile = "/dev/null/revenuedot-reads-no-password-file"

    /// libpq's connection keywords and values (`PQconnectStartParams`).
    var connectionParameters: [(String, String)] {
        var parameters =
            [
                ("host", host), ("port", String(port)), ("user", user), ("dbname", database),
                ("application_name", applicationName), ("connect_timeout", String(Self.connectTimeoutSeconds)),
                // The password is the URL's, its password file's or PGPASSWORD: never ~/.pgpass's.
                ("passfile", Self.absentPasswordFile),
            ] + Self.deadLinkParameters
        if let password { parameters.append(("password", password)) }
        if let sslMode { parameters.append(("sslmode", sslMode)) }
        if let sslRootCert { parameters.append(("sslrootcert", sslRootCert)) }
        return parameters
    }
}
