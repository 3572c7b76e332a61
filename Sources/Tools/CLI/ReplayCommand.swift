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
        // The only writer while it runs: a server would go on writing under the rebuild.
        let (config, store) = try CommandStore.open(configPath: configPath, exclusive: true)
        defer { store.close() }
        let count = try Replay.run(config: config, store: store)
        StandardStreams.out("revenuedot replay: applied \(count) input(s) again\n")
        return 0
    }
}

extension Replay {
    /// Replays every applied input of the apps `config` has (`run(apps:verifiers:store:)`).
    static func run(config: RevenueDotConfig, store: Store) throws -> Int {
        let verifiers = try AppVerifiers.forApps(of: config).mapValues(\.signatureOnly)
        let apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0.ledger) })
        return try run(apps: apps, verifiers: verifiers, store: store)
    }
}
