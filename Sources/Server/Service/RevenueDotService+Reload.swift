import Foundation
import Threads

extension RevenueDotService {
    /// What a reload did.
    package enum ReloadOutcome: Sendable, Equatable {
        /// The new configuration is in force; `restartNeeded` names the keys whose new values
        /// differ from those the process runs with: they take effect only at the next start.
        case reloaded(restartNeeded: [String])
        /// The running configuration stays, for this reason.
        case refused(String)
    }

    /// The keys whose values in `new` differ from those the process runs with (`running`, the
    /// configuration it started with), among those fixed for its life: the socket, the database,
    /// the HTTP server's threads and limits, the node's name, and the log. A key changed by one
    /// reload and changed back by the next is named by the first only.
    static func keysNeedingRestart(running: RevenueDotConfig, new: RevenueDotConfig) -> [String] {
        var keys: [String] = []
        if running.listen != new.listen { keys.append("listen") }
        if running.database != new.database { keys.append("database") }
        if running.http != new.http { keys.append("http") }
        if running.nodeId != new.nodeId { keys.append("node") }
        if running.log != new.log { keys.append("log") }
        return keys
    }

    /// Reads the configuration at `path` again and, when `serve` would start with it, puts it
    /// in force (`reload(to:)`); otherwise keeps the running one and logs why.
    @discardableResult
    package func reload(from path: String) -> ReloadOutcome {
        let new: RevenueDotConfig
        do {
            new = try ConfigLoader.loadForServing(path: path)
        } catch {
            return refuse("\(error)")
        }
        return reload(to: new)
    }

    /// Puts `new` in force without dropping a connection: its apps, keys, root certificates,
    /// webhooks, entitlements, exchange rates, Apple API settings and scheduler interval.
    /// Requests that arrive from now on are handled with it and inputs applied with its apps;
    /// the background services (scheduler, webhook workers, backfill, consumption answers,
    /// reconciliation) stop after the work in hand and start again with it, and held
    /// notifications it now accepts are applied.
    @discardableResult
    package func reload(to new: RevenueDotConfig) -> ReloadOutcome {
        let outcome = swap(to: new)
        // A read, outside the lock: storage that does not answer must not hold up a shutdown.
        if case .reloaded = outcome { UnservedDeliveries.settle(config: new, store: store, log: log) }
        return outcome
    }

    /// The new generation in place of the old one, under the lifecycle lock (a shutdown waits
    /// for it): what the reload does but its storage read.
    private func swap(to new: RevenueDotConfig) -> ReloadOutcome {
        lifecycle.withLock { stopping -> ReloadOutcome in
            guard !stopping else { return refuse("the server is stopping") }
            let generation: ConfiguredServices
            do { generation = try ConfiguredServices(config: new, shared: shared) } catch { return refuse("\(error)") }
            let old = self.generation
            let restartNeeded = Self.keysNeedingRestart(running: config, new: new)
            // What arrives from now on is verified, applied and answered with the new apps, and
            // commits nudge the new workers (they look for due deliveries once started).
            services.withLock { $0 = generation }
            server.replaceRouter(generation.router)
            // Old workers and scheduler finish what they hold before new ones start: two workers
            // of one webhook must never send the same customer's events at once.
            let deadline = ContinuousClock.now + reloadStopTimeout.value
            old.stop(before: deadline)
            _ = heldPass.wait(timeout: .after(max(.zero, ContinuousClock.now.duration(to: deadline))))
            generation.start(predecessor: replacing)
            takeUpHeld(by: generation)
            log.info(
                "config.reloaded", "the new configuration is in force",
                [
                    ("file", .text(new.file)), ("apps", .integer(Int64(new.apps.count))),
                    ("webhooks", .integer(Int64(generation.workers.count))),
                ])
            for warning in ConfigWarnings.of(new) { log.warning("config.warning", warning) }
            if !restartNeeded.isEmpty {
                log.warning(
                    "config.restart_needed", "these keys changed and keep their running values until the next start",
                    [("keys", .text(restartNeeded.joined(separator: ",")))])
            }
            return .reloaded(restartNeeded: restartNeeded)
        }
    }

    private func refuse(_ reason: String) -> ReloadOutcome {
        log.error("config.reload_refused", "kept the running configuration", [("error", .text(reason))])
        return .refused(reason)
    }
}
