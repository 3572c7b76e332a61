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
        // A standard output nobody reads any more (a log pipe that died) must not end the server
        // with SIGPIPE: its lines are lost, the server goes on and still stops gracefully.
        signal(SIGPIPE, SIG_IGN)
        let termination: Termination
        let service: RevenueDotService
        do {
            // Watch for SIGTERM and SIGINT first: one that comes while the service starts is kept
            // (`Termination`), and the stop begins once the start is over.
            termination = try Termination()
            let config = try ConfigLoader.load(path: configPath)
            service = try RevenueDotService(config: config)
            try service.start(
                heldDone: { applied, stillHeld in
                    guard applied + stillHeld > 0 else { return }
                    StandardStreams.note(
                        "held notifications: \(applied) applied now that the configuration accepts them, \(stillHeld) still held"
                            + " (revenuedot notifications list --held)\n")
                },
                failedDone: { applied, stillFailed in
                    guard applied + stillFailed > 0 else { return }
                    StandardStreams.note(
                        "notifications whose application had failed: \(applied) applied on this start, \(stillFailed) failed still"
                            + " (revenuedot notifications list)\n")
                })
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
        StandardStreams.note(
            "RevenueDot is listening on \(base) (database \(config.database), \(config.apps.count) app(s))\n"
                + urls.joined() + "  health: \(base)/health   metrics: \(base)/metrics\n\n")
        let sample = URL(fileURLWithPath: config.file).deletingLastPathComponent()
            .appendingPathComponent(".revenuedot/sample-notification.json")
        if FileManager.default.fileExists(atPath: sample.path), let demo = config.app("demo") {
            StandardStreams.note(
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
        StandardStreams.note("revenuedot serve: stopping: finishing in-flight requests and flushing storage\n")
        guard service.shutdown() else {
            StandardStreams.error(
                "revenuedot serve: storage did not finish within \(RevenueDotService.storageShutdownTimeout) (is the disk answering?); exiting anyway: "
                    + "every notification answered 200 is on disk, and those not answered are sent again by Apple\n")
            return 1
        }
        StandardStreams.note("revenuedot serve: stopped\n")
        return 0
    }
}

/// SIGTERM and SIGINT, turned from process-killing signals into an event to wait for.
///
/// A handler of its own, installed with `sigaction` before `init` returns, writes a byte to a
/// pipe (`write` is one of the few calls a signal handler may make) and `wait` reads it. A
/// signal that comes while the service is still starting waits in the pipe, so the stop begins
/// as soon as the start is over. (The signal sources of libdispatch, used before, were set up on
/// its own thread a moment after the signals were ignored, and a signal in between was lost: a
/// SIGTERM a few milliseconds after the start left the server running.)
final class Termination {
    /// The pipe's ends: made once, before any handler can run, and never closed; nil when no
    /// pipe could be made (no descriptor left).
    private static let ends: (read: Int32, write: Int32)? = {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }()
    private let read: Int32

    init() throws {
        guard let ends = Self.ends else {
            throw UsageError("cannot watch for SIGTERM and SIGINT: \(String(cString: strerror(errno)))")
        }
        read = ends.read
        for number in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(Termination.ends?.write ?? -1, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            // Other threads' system calls go on after the handler (most do; the rest retry on EINTR).
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A mask inherited from the parent may block them (a test runner's did): the handler
        // would never run, and the stop would never come. This thread (and the threads it
        // starts from now on) takes them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Blocks until one of the signals arrives (at once if one came already).
    func wait() {
        var byte: UInt8 = 0
        while Glibc.read(read, &byte, 1) != 1 {
            guard errno == EINTR else { return }
        }
    }
}
