import AppStore
import Foundation
import HTTP
import Server
import Storage

/// `revenuedot check-config`: everything `serve` checks before it listens, without serving.
package struct CheckConfigCommand {
    package static let usage = """
        usage: revenuedot check-config [--config FILE]

        Checks FILE (default revenuedot.json) as revenuedot serve would, and changes nothing:
        the JSON and every key, the files it names (readable, private where they hold secrets,
        keys and certificates that parse), webhook URLs, and the database (reachable,
        RevenueDot's, at a schema this build serves), and the listen address (bindable; one in
        use is a warning, as a running server holds it when you reload). Exits 0 with a
        summary when serve would start with it, 1 with serve's one-line message when it would
        not. Run it before sending a running server SIGHUP to reload.
        """

    let configPath: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("check-config takes no arguments") }
        configPath = parsed.value("config") ?? "revenuedot.json"
    }

    package func run() throws -> Int32 {
        let config = try ConfigLoader.loadForServing(path: configPath)
        _ = try AppVerifiers.forApps(of: config)
        let schema: SchemaState
        do throws(StoreError) {
            switch config.database {
            case .sqlite(let path): schema = try DatabaseProbe.sqlite(path: path)
            case .postgres(let url): schema = try DatabaseProbe.postgres(url: url)
            }
        } catch {
            throw ConfigError(file: config.file, key: "database", problem: error.about(config.database.description))
        }
        // An address in use may be the running server's own, for a reload: said, not refused.
        var listenInUse: String?
        do throws(HTTPServerError) {
            try HTTPServer.probeListen(host: config.listen.host, port: config.listen.port)
        } catch  where error.code == .addressInUse {
            listenInUse = error.message
        } catch {
            throw ConfigError(file: config.file, key: "listen", problem: error.message)
        }
        var databaseInUse = false
        if case .sqlite(let path) = config.database { databaseInUse = DatabaseLock.isHeldByAnother(databasePath: path) }
        StandardStreams.out(
            Self.summary(config, schema: schema, listenInUse: listenInUse, databaseInUse: databaseInUse))
        return 0
    }

    /// What the configuration sets up, a line per part, after a first line saying it is valid.
    static func summary(
        _ config: RevenueDotConfig, schema: SchemaState, listenInUse: String? = nil, databaseInUse: Bool = false
    ) -> String {
        let database =
            switch schema {
            case .absent: "no schema yet: serve creates it at its first start"
            case .current(let version): "schema \(version), current"
            case .older(let version, let pending):
                "schema \(version): serve applies \(pending) migration(s) at its next start (back it up first)"
            }
        var lines = [
            "revenuedot check-config: \(config.file) is valid (revenuedot \(RevenueDotVersion.description))",
            "  listen \(config.listen), node \(config.nodeId ?? ProcessInfo.processInfo.hostName) (serve adds its pid and a random suffix)",
            "  database \(config.database): \(database)",
        ]
        if let listenInUse {
            lines.append(
                "  warning: \(listenInUse): right for a reload of the server that holds it; "
                    + "a new serve would not start beside it")
        }
        if databaseInUse {
            lines.append(
                "  warning: another RevenueDot process (serve or replay) holds the database: right for a reload; "
                    + "a new serve would not start on it")
        }
        for app in config.apps {
            let environments = app.environments.map(\.rawValue).sorted().joined(separator: ", ")
            var parts = [
                "\(app.webhooks.count) webhook(s)", "\(app.entitlements.count) entitlement(s)",
                app.secretApiKey == nil ? "no secret API key" : "secret API key set",
            ]
            if app.inAppPurchaseKey != nil { parts.append("In-App Purchase key set") }
            lines.append("  app \"\(app.id)\" (\(app.bundleId); \(environments)): " + parts.joined(separator: ", "))
        }
        lines += ConfigWarnings.of(config).map { "  warning: " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }
}
