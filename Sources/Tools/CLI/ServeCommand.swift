import Dispatch
import Foundation
import Server

/// `revenuedot serve`: runs the service until SIGTERM or SIGINT, then stops gracefully; SIGHUP
/// reloads the configuration (or stops, when it comes from the terminal the server ran in closing).
package struct ServeCommand {
    package static let usage = """
        usage: revenuedot serve [--config FILE]

        Serves the HTTP API with the configuration in FILE (default revenuedot.json).
        Signals:
          SIGTERM, SIGINT  stop gracefully: no new connections, in-flight requests finish,
                           storage is flushed, exit 0.
          SIGHUP           reload FILE: apps, keys, webhooks, entitlements and Apple API settings
                           take effect without dropping a connection; an invalid file is logged
                           and the running configuration kept (check it first with
                           `revenuedot check-config`). listen, database, http, node and log take
                           effect at the next start. When the terminal serve runs in closes
                           (its SIGHUP), serve stops gracefully instead, except under nohup,
                           where every SIGHUP reloads.
        """

    let configPath: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("serve takes no arguments") }
        configPath = parsed.value("config") ?? "revenuedot.json"
    }

    /// Says why a start failed, as one `start.failed` line in the configured log format (text
    /// when it is not known): the line an alert on the log waits for, and the one a person at
    /// the terminal reads. Gives the exit status.
    private static func startFailed(_ error: any Error, log config: LogConfig) -> Int32 {
        Log(config).error("start.failed", "\(error)")
        return 1
    }

    package func run() -> Int32 {
        // A standard output nobody reads any more (a log pipe that died) must not end the server
        // with SIGPIPE: its lines are lost, the server goes on and still stops gracefully.
        signal(SIGPIPE, SIG_IGN)
        let signals: Termination
        let service: RevenueDotService
        let config: RevenueDotConfig
        do {
            // Watch for the signals first: one that comes while the service starts is kept
            // (`Termination`), and acted on once the start is over.
            signals = try Termination()
            config = try ConfigLoader.loadForServing(path: configPath)
        } catch {
            // A file whose log settings read is said in their format, whatever else is wrong.
            return Self.startFailed(error, log: ConfigLoader.logSettings(ofFileAt: configPath) ?? LogConfig())
        }
        do {
            service = try RevenueDotService(config: config, docs: ReferenceDocs.serve)
        } catch {
            return Self.startFailed(error, log: config.log)
        }
        do {
            try service.start()
        } catch {
            // A start that cannot listen closes the database it opened, which gives its WAL
            // reserve back. A database this start made stays: whether another process made it
            // first can be known only under its lock, and deleting one that holds data would lose
            // what was answered 200.
            service.shutdown()
            return Self.startFailed(error, log: config.log)
        }
        for warning in service.warnings + ConfigWarnings.of(service.config) {
            service.log.warning("start.warning", warning)
        }
        if let upgrade = service.schemaUpgrade {
            service.log.info(
                "storage.migrated", "the database's schema was brought forward for this build",
                [
                    ("from", .integer(upgrade.from)), ("to", .integer(upgrade.to)),
                    ("migrations", .integer(Int64(upgrade.migrations))),
                ])
        }
        service.log.info(
            "start", "RevenueDot is serving",
            [
                ("version", .text(RevenueDotVersion.semantic)), ("commit", .text(RevenueDotVersion.commit)),
                ("node", .text(service.node)),
                ("listen", .text(ListenAddress(host: config.listen.host, port: service.port).description)),
                ("database", .text(config.database.description)), ("apps", .integer(Int64(config.apps.count))),
                ("webhooks", .integer(Int64(config.apps.reduce(0) { $0 + $1.webhooks.count }))),
                ("config", .text(configPath)),
            ])
        // A JSON log is JSON only: the welcome's facts are in the start line.
        if config.log.format == .text { printWelcome(service) }
        let systemd = SystemdNotify()
        let tell = { (state: String) in
            guard systemd.isActive, !systemd.send(state) else { return }
            // Under Type=notify a lost READY=1 leaves the unit starting until its timeout.
            service.log.error(
                "systemd.notify_failed", "systemd's NOTIFY_SOCKET did not take the message", [("state", .text(state))])
        }
        tell("READY=1\nMAINPID=\(getpid())\nSTATUS=serving on port \(service.port)")
        while true {
            let received = signals.wait()
            guard received == SIGHUP, !signals.terminalClosed else { break }
            tell(SystemdNotify.reloading())
            service.log.info("config.reload", "SIGHUP: reading the configuration again", [("config", .text(configPath))])
            service.reload(from: configPath)
            tell("READY=1")
        }
        tell("STOPPING=1")
        service.log.info("stop", "finishing in-flight requests and flushing storage")
        guard service.shutdown() else {
            service.log.error(
                "stop.storage_timeout",
                "storage did not finish within \(RevenueDotService.storageShutdownTimeout) (is the disk answering?); exiting "
                    + "anyway: every notification answered 200 is on disk, and those not answered are sent again by Apple")
            return 1
        }
        service.log.info("stop.done", "stopped", [("node", .text(service.node))])
        return 0
    }

    /// The URLs to give Apple and, on a demo configuration, what to try next (standard output).
    private func printWelcome(_ service: RevenueDotService) {
        let config = service.config
        let host = config.listen.host.contains(":") ? "[\(config.listen.host)]" : config.listen.host
        let base = "http://\(host):\(service.port)"
        let urls = config.apps.map {
            "  notifications for app \"\($0.id)\": \(base)/v1/apple/notifications/\($0.id)\n"
        }
        StandardStreams.note(
            "RevenueDot \(RevenueDotVersion.semantic) is listening on \(base) (database \(config.database), "
                + "\(config.apps.count) app(s), node \(service.node))\n"
                + urls.joined()
                + "  (App Store Connect takes https://<your host>/v1/apple/notifications/<app id>, served by a TLS proxy "
                + "in front: README \"Deploying\")\n"
                + "  health: \(base)/health   metrics: \(base)/metrics\n\n")
        let sample = URL(fileURLWithPath: config.file).deletingLastPathComponent()
            .appendingPathComponent(".revenuedot/sample-notification.json")
        if FileManager.default.fileExists(atPath: sample.path), let demo = config.app("demo") {
            // The commands as this one was run (an installed or copied binary is not in .build).
            let revenuedot = CommandLine.arguments.first ?? "revenuedot"
            // Port 0 in `listen` names no port the simulator could reach: it is given the bound one.
            let server = config.listen.port == service.port ? "" : " --server \(base)"
            StandardStreams.note(
                """
                Next: POST the sample notification signed by the local dev CA, then list what was stored:
                  curl -s -X POST --data @\(sample.path) \(base)/v1/apple/notifications/\(demo.id)
                  \(revenuedot) notifications list --config \(configPath)
                Or play the App Store: a subscription, an upgrade, and the events they made:
                  \(revenuedot) simulate subscribe --user alice --config \(configPath)\(server)
                  \(revenuedot) simulate upgrade --user alice --config \(configPath)\(server)
                  \(revenuedot) events list --customer alice --config \(configPath)

                """)
        }
    }
}
