import AppStore
import Foundation
import JSON
import Storage

/// Reads and validates `revenuedot.json`; the first problem found stops it with one line.
package enum ConfigLoader {
    /// Loads the file at `path`. Relative paths inside it are relative to its directory.
    /// `readingExchangeRates` false leaves `exchangeRatesFile` unread (no rates): for commands
    /// that make no events, which a rates file being rewritten should not stop.
    package static func load(path: String, readingExchangeRates: Bool = true) throws(ConfigError) -> RevenueDotConfig {
        try parse(try contents(of: path), file: path, readingExchangeRates: readingExchangeRates)
    }

    /// The bytes of the file at `path`, or why they cannot be read: no such file (with the way
    /// to make one), a directory, a device, too large, or the system's reason (its permissions).
    private static func contents(of path: String) throws(ConfigError) -> Data {
        switch ConfigFile.read(path) {
        case .success(let data): return data
        case .failure(let problem):
            let hint = problem == .missing ? " (name yours with --config FILE; revenuedot init writes a demo one)" : ""
            throw ConfigError(file: path, key: "", problem: "cannot read the file: \(problem.reason)\(hint)")
        }
    }

    /// Where byte `offset` of `data` is, as an editor shows it: "line 3, column 7" (both from 1;
    /// columns count characters).
    static func position(ofByte offset: Int, in data: Data) -> String {
        let before = data.prefix(max(0, offset))
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return "line \(line), column \(column)"
    }

    /// Parses configuration text; `file` names it in errors and anchors relative paths.
    package static func parse(_ data: Data, file: String, readingExchangeRates: Bool = true) throws(ConfigError)
        -> RevenueDotConfig
    {
        let data = withoutByteOrderMark(data)
        let json: JSONValue
        do { json = try JSONValue(parsingWithoutRepeatedNames: data) } catch let repeated as JSONValue.RepeatedName {
            throw ConfigError(
                file: file, key: repeated.path,
                problem: "given twice (the second at \(position(ofByte: repeated.offset, in: data))); give each key once")
        } catch let failure as JSONParser.Failure {
            throw ConfigError(
                file: file, key: "", problem: "not valid JSON at \(position(ofByte: failure.offset, in: data)): \(failure.reason)"
            )
        } catch {
            throw ConfigError(file: file, key: "", problem: "not valid JSON (\(error))")
        }
        let root = try ConfigReader(file: file, path: "", value: json)
        try root.rejectUnknownKeys([
            "listen", "database", "apps", "scheduler", "http", "appleApi", "exchangeRatesFile", "node", "log",
        ])
        try root.rejectNull(["listen", "database"])
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent()

        let listen = try listenAddress(root)
        let (database, passwordFile) = try databaseLocation(root, directory: directory)
        guard let appValues = try root.array("apps"), !appValues.isEmpty else {
            throw root.fail("apps", "missing: configure at least one app")
        }
        var apps: [AppConfig] = []
        for (index, value) in appValues.enumerated() {
            let app = try AppConfigLoader.load(
                try ConfigReader(file: file, path: "apps[\(index)]", value: value), directory: directory)
            if apps.contains(where: { $0.id == app.id }) {
                throw ConfigError(file: file, key: "apps[\(index)].id", problem: "\"\(app.id)\" is used by two apps")
            }
            // A request's key names its app and its access: one key in two places would let one
            // app's public key pass for another's secret one.
            for (key, value) in [("secretApiKey", app.secretApiKey), ("publicApiKey", app.publicApiKey)] {
                guard let value, let other = apps.firstIndex(where: { [$0.secretApiKey, $0.publicApiKey].contains(value) })
                else { continue }
                throw ConfigError(
                    file: file, key: "apps[\(index)].\(key)",
                    problem: "is also a key of apps[\(other)]; give every app keys of its own")
            }
            apps.append(app)
        }
        try refuseUnsignedBesideProduction(apps, file: file)
        let ratesPath = try root.string("exchangeRatesFile").map { resolve($0, in: directory) }
        let rates: ExchangeRates
        do { rates = try ExchangeRates(path: readingExchangeRates ? ratesPath : nil) } catch {
            throw root.fail("exchangeRatesFile", "\(error.file): \(error.problem)")
        }
        for index in apps.indices { apps[index].exchangeRates = rates }
        let scheduler = try root.object("scheduler")
        try scheduler?.rejectUnknownKeys(["intervalMs"])
        let intervalMs = try scheduler?.integer("intervalMs", in: 10...3_600_000) ?? 1000
        let http = try root.object("http")
        try http?.rejectUnknownKeys([
            "threads", "maxBodyBytes", "maxBufferedBodyBytes", "timeoutSeconds", "headerTimeoutSeconds",
            "requestTimeoutSeconds", "connectionsPerIP",
        ])
        return RevenueDotConfig(
            file: file, listen: listen, database: database, databasePasswordFile: passwordFile, apps: apps,
            scheduler: SchedulerConfig(intervalMs: Int(intervalMs)), http: try httpConfig(http),
            appleAPI: try AppleAPIConfigLoader.load(try root.object("appleApi"), directory: directory),
            nodeId: try nodeId(try root.object("node")), log: try logConfig(try root.object("log")))
    }

    /// Data no App Store signed (Xcode, LocalTesting) is stored as any notification, from anyone
    /// who posts it: beside an app taking Production, on the same database, a stranger could
    /// fill its disk and stop Production's notifications (answered 503). Refused, as it is within
    /// one app (`AppConfigLoader`).
    private static func refuseUnsignedBesideProduction(_ apps: [AppConfig], file: String) throws(ConfigError) {
        guard let production = apps.first(where: { $0.environments.contains(.production) }),
            let index = apps.firstIndex(where: { $0.environments.contains { !$0.isSignedByAppStore } }),
            let unsigned = apps[index].environments.first(where: { !$0.isSignedByAppStore })
        else { return }
        throw ConfigError(
            file: file, key: "apps[\(index)].environments",
            problem: "\(unsigned.rawValue) data carries no App Store signature, so anyone can post it; it may not share a "
                + "server (and its database) with app \"\(production.id)\", which takes Production: test StoreKit in "
                + "Xcode against a server of its own")
    }

    /// `data` without the UTF-8 byte order mark some editors start a file with, which JSON does
    /// not allow.
    private static func withoutByteOrderMark(_ data: Data) -> Data.SubSequence {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
    }

    /// The `log` settings of the file at `path`, when it is JSON and they are valid, whatever
    /// else in it is wrong: how to say why a start with it failed. Nil otherwise.
    package static func logSettings(ofFileAt path: String) -> LogConfig? {
        guard case .success(let data) = ConfigFile.read(path) else { return nil }
        guard let json = try? JSONValue(parsing: Data(withoutByteOrderMark(data))), let log = json["log"],
            let reader = try? ConfigReader(file: path, path: "log", value: log)
        else { return nil }
        return try? logConfig(reader)
    }

    /// `log`: `level` (debug, info, warning, error), `format` (text, json), `access` and
    /// `accessProbes` (booleans); defaults from `LogConfig`.
    private static func logConfig(_ log: ConfigReader?) throws(ConfigError) -> LogConfig {
        var config = LogConfig()
        guard let log else { return config }
        try log.rejectUnknownKeys(["level", "format", "access", "accessProbes"])
        if let name = try log.string("level") {
            guard let level = LogLevel(name: name) else {
                throw log.fail("level", "\"\(name)\" is not a level: debug, info, warning or error")
            }
            config.level = level
        }
        if let name = try log.string("format") {
            guard let format = LogConfig.Format(rawValue: name) else {
                throw log.fail("format", "\"\(name)\" is not a format: text or json")
            }
            config.format = format
        }
        config.access = try log.bool("access") ?? config.access
        config.accessProbes = try log.bool("accessProbes") ?? config.accessProbes
        return config
    }

    /// `node.id`: letters, digits, `.`, `_` and `-`, at most 64, as it goes into logs and claims.
    private static func nodeId(_ node: ConfigReader?) throws(ConfigError) -> String? {
        try node?.rejectUnknownKeys(["id"])
        guard let node, let id = try node.string("id") else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        guard id.utf8.count <= 64, id.utf8.allSatisfy(allowed.contains) else {
            throw node.fail("id", "\"\(id)\" is not a node id (at most 64 letters, digits, '.', '_' and '-')")
        }
        return id
    }

    /// The `http` object's values, defaults filled in.
    private static func httpConfig(_ http: ConfigReader?) throws(ConfigError) -> HTTPConfig {
        let timeoutSeconds = Int(try http?.integer("timeoutSeconds", in: 1...3600) ?? 10)
        // The deadline also bounds an idle kept-alive connection, so it must not undercut the idle timeout.
        let requestTimeoutSeconds = Int(
            try http?.integer("requestTimeoutSeconds", in: 1...7200) ?? Int64(max(30, 2 * timeoutSeconds)))
        if let http, requestTimeoutSeconds < timeoutSeconds {
            throw http.fail(
                "requestTimeoutSeconds",
                "must be at least timeoutSeconds (\(timeoutSeconds)): the deadline also bounds an idle kept-alive connection")
        }
        // The same holds for the header deadline, which the request deadline contains.
        let headerTimeoutSeconds = Int(
            try http?.integer("headerTimeoutSeconds", in: 1...7200)
                ?? Int64(min(max(10, timeoutSeconds), requestTimeoutSeconds)))
        if let http, !(timeoutSeconds...requestTimeoutSeconds).contains(headerTimeoutSeconds) {
            throw http.fail(
                "headerTimeoutSeconds",
                "must be from timeoutSeconds (\(timeoutSeconds)) to requestTimeoutSeconds (\(requestTimeoutSeconds)): "
                    + "it also bounds an idle kept-alive connection, and the request deadline contains it")
        }
        let maxBodyBytes = Int(try http?.integer("maxBodyBytes", in: 1024...(64 << 20)) ?? (1 << 20))
        // The default, 64 MiB, is also the largest body limit, so it always holds one body.
        let maxBufferedBodyBytes = Int(
            try http?.integer("maxBufferedBodyBytes", in: Int64(maxBodyBytes)...(1 << 40)) ?? (64 << 20))
        return HTTPConfig(
            threads: Int(try http?.integer("threads", in: 1...1024) ?? Int64(defaultThreads)),
            maxBodyBytes: maxBodyBytes, maxBufferedBodyBytes: maxBufferedBodyBytes, timeoutSeconds: timeoutSeconds,
            headerTimeoutSeconds: headerTimeoutSeconds, requestTimeoutSeconds: requestTimeoutSeconds,
            connectionsPerIP: Int(try http?.integer("connectionsPerIP", in: 0...4096) ?? 0))
    }

    /// Workers verify and then hand the request to storage without waiting for the commit, so
    /// twice the cores keeps every core busy.
    package static var defaultThreads: Int { max(4, 2 * ProcessInfo.processInfo.activeProcessorCount) }

    private static func listenAddress(_ root: ConfigReader) throws(ConfigError) -> ListenAddress {
        let text = try root.string("listen") ?? "127.0.0.1:8080"
        guard let address = parseListen(text) else {
            throw root.fail("listen", "\"\(text)\" is not HOST:PORT (an IPv4 address, [IPv6] or localhost, and a port 0-65535)")
        }
        return address
    }

    /// `127.0.0.1:8080`, `0.0.0.0:80`, `[::1]:8080`, `localhost:8080`.
    package static func parseListen(_ text: String) -> ListenAddress? {
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            let name = String(text[..<colon])
            host = name == "localhost" ? "127.0.0.1" : name
            portText = text[text.index(after: colon)...]
            var address = in_addr()
            guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        }
        // Digits only: UInt16("+80") would take a sign.
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(portText) else {
            return nil
        }
        return ListenAddress(host: host, port: port)
    }

    /// `database`: `"sqlite:PATH"`, `"postgres://..."`, or `{"url": "postgres://...", "passwordFile":
    /// PATH}` for a password kept out of the config (else from the URL or `PGPASSWORD`); and the
    /// password file's resolved path.
    private static func databaseLocation(
        _ root: ConfigReader, directory: URL
    ) throws(ConfigError) -> (DatabaseLocation, passwordFile: String?) {
        if root.hasObject("database"), let database = try root.object("database") {
            try database.rejectUnknownKeys(["url", "passwordFile"])
            let url = try database.requiredString("url")
            let passwordFile = try database.string("passwordFile").map { resolve($0, in: directory) }
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw database.fail("url", "the database object is for PostgreSQL: postgres://USER@HOST:PORT/DB")
            }
            if let passwordFile, !FileManager.default.isReadableFile(atPath: passwordFile) {
                throw database.fail("passwordFile", "\(passwordFile) cannot be read")
            }
            return (
                try postgres(url, passwordFile: passwordFile, directory: directory, reader: database, key: "url"),
                passwordFile
            )
        }
        return (try databaseText(root, directory: directory), nil)
    }

    /// `database` given as text: `"sqlite:PATH"` or `"postgres://..."`.
    private static func databaseText(_ root: ConfigReader, directory: URL) throws(ConfigError) -> DatabaseLocation {
        let text = try root.string("database") ?? "sqlite:revenuedot.sqlite"
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw root.fail("database", "sqlite: needs a file path, as in sqlite:revenuedot.sqlite") }
            let resolved = resolve(path, in: directory)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue {
                let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
                throw root.fail(
                    "database",
                    "\(resolved) is a directory: name the database file in it, as in sqlite:\(folder)/revenuedot.sqlite")
            }
            return .sqlite(path: resolved)
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            return try postgres(text, passwordFile: nil, directory: directory, reader: root, key: "database")
        }
        throw root.fail(
            "database", "\"\(URLText.withoutPassword(text))\" is neither sqlite:PATH nor postgres://USER@HOST:PORT/DB")
    }

    /// A PostgreSQL URL parsed, its `sslrootcert` found as every other file the configuration
    /// names (relative to `directory`); a mistake in it is the config's error, without the password.
    private static func postgres(
        _ text: String, passwordFile: String?, directory: URL, reader: ConfigReader, key: String
    ) throws(ConfigError) -> DatabaseLocation {
        var url: PostgresURL
        do throws(StoreError) {
            url = try PostgresURL(text, passwordFile: passwordFile)
        } catch {
            throw reader.fail(key, error.message)
        }
        if let rootCert = url.sslRootCert {
            let path = resolve(rootCert, in: directory)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw reader.fail(key, "sslrootcert \(path) cannot be read")
            }
            url.sslRootCert = path
        }
        return .postgres(url)
    }

    /// `path` if absolute, else relative to `directory`.
    package static func resolve(_ path: String, in directory: URL) -> String {
        path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
    }
}
