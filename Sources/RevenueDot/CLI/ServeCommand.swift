import Dispatch
import Foundation

/// `revenuedot serve`: runs the service until SIGTERM or SIGINT, then stops gracefully.
public struct ServeCommand {
    public static let usage = """
        usage: revenuedot serve [--config FILE]

        Serves the HTTP API with the configuration in FILE (default revenuedot.json).
        SIGTERM or SIGINT stops it gracefully: no new connections, in-flight requests finish,
        storage is flushed, exit 0.
        """

    let configPath: String

    public init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("serve takes no arguments") }
        configPath = parsed.value("config") ?? "revenuedot.json"
    }

    public func run() -> Int32 {
        // Watch for SIGTERM and SIGINT before anything can announce readiness: a signal that
        // arrived between ignoring it and watching it would be lost, and the server would never stop.
        let termination = Termination()
        let service: RevenueDotService
        do {
            let config = try ConfigLoader.load(path: configPath)
            service = try RevenueDotService(config: config)
            try service.start { applied, stillHeld in
                guard applied + stillHeld > 0 else { return }
                StandardStreams.out(
                    "held notifications: \(applied) applied now that the configuration accepts them, \(stillHeld) still held"
                        + " (revenuedot notifications list --held)\n")
            }
        } catch {
            StandardStreams.error("revenuedot serve: \(error)\n")
            return 1
        }
        for warning in service.warnings { StandardStreams.error("revenuedot serve: warning: \(warning)\n") }
        let config = service.config
        let host = config.listen.host.contains(":") ? "[\(config.listen.host)]" : config.listen.host
        let base = "http://\(host):\(service.port)"
        let urls = config.apps.map {
            "  Apple's notification URL for app \"\($0.id)\": \(base)/v1/apple/notifications/\($0.id)\n"
        }
        StandardStreams.out(
            "RevenueDot is listening on \(base) (database \(config.database), \(config.apps.count) app(s))\n"
                + urls.joined() + "  health: \(base)/health   metrics: \(base)/metrics\n\n")
        let sample = URL(fileURLWithPath: config.file).deletingLastPathComponent()
            .appendingPathComponent(".revenuedot/sample-notification.json")
        if FileManager.default.fileExists(atPath: sample.path), let demo = config.app("demo") {
            StandardStreams.out(
                """
                Next: POST the sample notification signed by the local dev CA, then list what was stored:
                  curl -s -X POST --data @\(sample.path) \(base)/v1/apple/notifications/\(demo.id)
                  .build/release/revenuedot notifications list --config \(configPath)
                Or play the App Store: a subscription, an upgrade, and the events they made:
                  .build/release/revenuedot simulate subscribe --user alice --config \(configPath)
                  .build/release/revenuedot simulate upgrade --user alice --config \(configPath)
                  .build/release/revenuedot events list --customer alice --config \(configPath)

                """)
        }
        termination.wait()
        StandardStreams.out("revenuedot serve: stopping: finishing in-flight requests and flushing storage\n")
        guard service.shutdown() else {
            StandardStreams.error(
                "revenuedot serve: storage did not finish within \(RevenueDotService.storageShutdownTimeout) (is the disk answering?); exiting anyway: "
                    + "every notification answered 200 is on disk, and those not answered are sent again by Apple\n")
            return 1
        }
        StandardStreams.out("revenuedot serve: stopped\n")
        return 0
    }
}

/// SIGTERM and SIGINT, turned from process-killing signals into an event to wait for.
final class Termination {
    private let stop = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init() {
        let stop = self.stop
        sources = [SIGTERM, SIGINT].map { number in
            // Ignored first (libdispatch still reports it), so the default action cannot kill us.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
    }

    /// Blocks until one of the signals arrives.
    func wait() {
        stop.wait()
        sources.forEach { $0.cancel() }
    }
}
