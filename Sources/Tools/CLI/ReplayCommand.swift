import Foundation
import Server
import Storage

/// `revenuedot replay`: rebuilds the subscription state, events and timers from the stored raw
/// notifications and posted transactions.
package struct ReplayCommand {
    package static let usage = """
        usage: revenuedot replay [--config FILE]

        Rebuilds purchases, customers, events and timers from the stored raw notifications and
        posted StoreKit transactions, applied again in their original order at their original
        times. Run it with the server stopped; the result equals the live state, event ids included.
        """

    let configPath: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("replay takes no arguments") }
        configPath = parsed.value("config") ?? "revenuedot.json"
    }

    package func run() throws -> Int32 {
        // The rebuild is one transaction: stopped, it is rolled back.
        InterruptedCommand.sayOnSignal(
            "revenuedot replay: stopped by a signal; the rebuild is rolled back: state, events and timers are as they were")
        defer { InterruptedCommand.stop() }
        // The only writer while it runs: a server would go on writing under the rebuild.
        let (config, store) = try CommandStore.open(configPath: configPath, exclusive: true, command: "replay")
        defer { store.close() }
        let replayed = try Replay.replay(config: config, store: store)
        // Committed: a signal from here on ends the command as it would any other.
        InterruptedCommand.stop()
        var line = "revenuedot replay: applied \(replayed.inputs) input(s) again"
        // Said only when a replay made events otherwise than before (this build's rules).
        if replayed.eventsChanged + replayed.eventsNew + replayed.eventsGone > 0 {
            line +=
                "; events: \(replayed.eventsAsBefore) as before, \(replayed.eventsChanged) changed, "
                + "\(replayed.eventsNew) new (never sent), \(replayed.eventsGone) no longer made"
        }
        StandardStreams.out(line + "\n")
        return 0
    }
}

extension Replay {
    /// Replays every applied input of the apps `config` has (`run(apps:verifiers:store:)`).
    static func run(config: RevenueDotConfig, store: Store) throws -> Int {
        try replay(config: config, store: store).inputs
    }

    /// `run(config:store:)`, saying what it did to the events.
    static func replay(config: RevenueDotConfig, store: Store) throws -> Replayed {
        let verifiers = try AppVerifiers.forApps(of: config).mapValues(\.signatureOnly)
        let apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0.ledger) })
        return try replay(apps: apps, verifiers: verifiers, store: store)
    }
}
