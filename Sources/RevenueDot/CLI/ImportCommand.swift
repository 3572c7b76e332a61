import AppStore
import AppStoreServerAPI
import Foundation
import Storage

/// `revenuedot import`: existing subscribers brought in from Apple, by original transaction id.
public struct ImportCommand {
    public static let usage = """
        usage: revenuedot import --app ID FILE [--environment Production|Sandbox] [--emit-events] [--concurrency N]
                                 [--config FILE]

        FILE is CSV with a header: original_transaction_id, and optionally app_user_id (what a
        RevenueCat export or your own database gives). For each row, what Apple says of the
        purchase now (its subscription status with renewal info, or the transaction of a one-time
        purchase) is verified, applied, kept for replay, and linked to app_user_id when given.
        Apple is asked in the app's environments, Production first, unless --environment says.
        Imported purchases make state, not webhooks: their events are recorded but not delivered
        unless --emit-events. A purchase already stored is left alone (reconcile updates it).
        Resumable: after an interrupt, the same command goes on from the checkpoint beside the
        database. Progress goes to standard error, a summary to standard output; writes the
        database, so run it while serve is stopped.
        """

    let parsed: ParsedArguments

    public init(arguments: [String]) throws {
        parsed = try ParsedArguments(
            arguments, valueOptions: ["config", "app", "environment", "concurrency"], flagOptions: ["emit-events"])
        guard parsed.positionals.count == 1 else { throw UsageError("import needs one CSV FILE") }
        guard parsed.value("app") != nil else { throw UsageError("import needs --app ID") }
        if let text = parsed.value("concurrency") {
            guard let number = Int(text), (1...64).contains(number) else {
                throw UsageError("--concurrency must be 1 to 64, not \"\(text)\"")
            }
        }
        _ = try AppleCommand.environment(parsed.value("environment"))
    }

    public func run(stopAfter: Int? = nil) throws -> Int32 {
        let config = try ConfigLoader.load(path: parsed.value("config") ?? "revenuedot.json")
        let appId = parsed.value("app") ?? ""
        guard let app = config.app(appId) else { throw UsageError("no app \"\(appId)\" is configured") }
        try SecretFileModes.check(config)
        let file = parsed.positionals[0]
        guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read \(file)") }
        let rows = try Import.rows(csv: String(decoding: data, as: UTF8.self))
        let environments =
            try AppleCommand.environment(parsed.value("environment")).map { [$0] } ?? Backfill.environments(of: app)
        guard !environments.isEmpty, environments.allSatisfy(app.environments.contains) else {
            throw UsageError("app \"\(appId)\" does not accept \(environments.map(\.rawValue).joined(separator: ", "))")
        }
        let (store, path) = try CommandStore.openApplying(config, to: "import")
        defer { store.close() }
        let (summary, finished) = Import.run(
            rows, app: app, environments: environments, clients: AppleAPIClientPool(config: config.appleAPI), store: store,
            emitEvents: parsed.flags.contains("emit-events"), concurrency: Int(parsed.value("concurrency") ?? "4") ?? 4,
            checkpoint: Import.checkpointPath(databasePath: path, appId: appId, file: file), stopAfter: stopAfter
        ) { done, total, rate in
            let left = rate > 0 ? Double(total - done) / rate : 0
            StandardStreams.error(
                "import \(appId): \(done)/\(total) (\(done * 100 / max(total, 1))%), \(Int(rate))/s, ETA \(Int(left.rounded())) s\n"
            )
        }
        StandardStreams.out(
            "import \(appId): \(summary.imported) imported, \(summary.alreadyKnown) already known, \(summary.notFound) not found, "
                + "\(summary.failed.count) failed" + (finished ? "" : " (stopped: run the same command to go on)") + "\n")
        for reason in summary.failed.prefix(20) { StandardStreams.error("  failed: \(reason)\n") }
        return summary.failed.isEmpty && finished ? 0 : 1
    }
}
