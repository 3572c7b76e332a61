import Dispatch
import Foundation
import Server

/// `revenuedot serve`: runs the service until SIGTERM, SIGINT or SIGHUP, then stops gracefully.
public struct ServeCommand {
    public static let usage = """
        usage: revenuedot serve [--config FILE]

        Serves the HTTP API with the configuration in FILE (default revenuedot.json).
        SIGTERM, SIGINT or SIGHUP (its terminal closed; not under nohup) stops it gracefully: no
        new connections, in-flight requests finish, storage is flushed, exit 0.
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
            // Watch for the stop signals first: one that comes while the service starts is kept
            // (`Termination`), and the stop begins once the start is over.
            termination = try Termination()
            let config = try ConfigLoader.load(path: configPath)
            try SecretFileModes.check(config)
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
            "RevenueDot is listening on \(base) (database \(config.database), \(config.apps.count) app(s), "
                + "node \(service.node))\n"
                + urls.joined() + "  health: \(base)/health   metrics: \(base)/metrics\n\n")
        let sample = URL(fileURLWithPath: config.file).deletingLastPathComponent()
            .appendingPathComponent(".revenuedot/sample-notification.json")
        if FileManager.default.fileExists(atPath: sample.path), let demo = config.app("demo") {
            // The commands as this one was run (an installed or copied binary is not in .build).
            let revenuedot = CommandLine.arguments.first ?? "revenuedot"
            StandardStreams.note(
                """
                Next: POST the sample notification signed by the local dev CA, then list what was stored:
                  curl -s -X POST --data @\(sample.path) \(base)/v1/apple/notifications/\(demo.id)
                  \(revenuedot) notifications list --config \(configPath)
                Or play the App Store: a subscription, an upgrade, and the events they made:
                  \(revenuedot) simulate subscribe --user alice --config \(configPath)
                  \(revenuedot) simulate upgrade --user alice --config \(configPath)
                  \(revenuedot) events list --customer alice --config \(configPath)

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

/// SIGTERM, SIGINT and SIGHUP, turned from process-killing signals into an event to wait for.
///
/// SIGHUP is a stop too: it comes when the terminal running the server closes (`make run` in a
/// window closed), and its default action ended the server at once, without the graceful stop.
/// Unless it was ignored when the server started (`nohup revenuedot serve`): then it stays ignored.
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
    static let signals = [SIGTERM, SIGINT, SIGHUP]

    init() throws {
        guard let ends = Self.ends else {
            throw UsageError("cannot watch for SIGTERM, SIGINT and SIGHUP: \(String(cString: strerror(errno)))")
        }
        read = ends.read
        for number in Self.signals where !(number == SIGHUP && Self.isIgnored(SIGHUP)) {
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
        for number in Self.signals { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Whether `number` is ignored (as `nohup` leaves SIGHUP for the command it runs).
    private static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Blocks until one of the signals arrives (at once if one came already).
    func wait() {
        var byte: UInt8 = 0
        while Glibc.read(read, &byte, 1) != 1 {
            guard errno == EINTR else { return }
        }
    }
}
