import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Server
import Storage
import Threads

/// `revenuedot import`: existing subscribers brought in from Apple, by original transaction id.
package struct ImportCommand {
    package static let usage = """
        usage: revenuedot import --app ID FILE [--environment Production|Sandbox] [--emit-events] [--concurrency N]
                                 [--config FILE]

        FILE is CSV with a header: original_transaction_id, and optionally app_user_id (what a
        RevenueCat export or your own database gives; a renewal's transaction id imports its
        subscription under the original id). For each row, Apple is asked for the
        subscription's Transaction History and its status with renewal info (or a one-time
        purchase's transaction); each answer is verified, applied in purchase order, kept for
        replay, and linked to app_user_id when given. Apple is asked in the app's environments,
        Production first, unless --environment says. Imported purchases make state, not
        webhooks: their events are recorded but not delivered unless --emit-events. A purchase
        already stored (pushed or backfilled first) is only linked to app_user_id when the row
        names a customer who does not own it yet, from Apple's current answer (reconcile
        updates it otherwise). An app without an inAppPurchaseKey is refused before anything is
        read or written.
        Resumable: the run stops at the first row Apple cannot answer now (no answer, 5xx, a rate
        limit past the retries, a refused key) or storage cannot take; after that or an
        interrupt, the same command on the same file goes on from the checkpoint beside the
        database (another file under the same name starts over). Progress goes to standard
        error, a summary to standard output; the rows Apple knows in none of the environments
        asked go to FILE.APP.not-found.csv, those that failed to FILE.APP.failed.csv (with a
        reason column; APP is --app, so each app's run keeps its own), in the same format, batch
        by batch (a resumed run adds to them, a new one starts them again); writes the
        database; with serve running on it, rows go through serve (POST /v1/apple/import, with the
        app's secretApiKey), so its rate limit holds for both and the result is the same.
        """

    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
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

    package func run() throws -> Int32 {
        let (config, app) = try AppleCommand.configuredApp(parsed)
        let appId = app.id
        // Every row would stop at Apple for want of a key: refused before anything is read or written.
        _ = try AppleAPIClients.key(of: app)
        let file = parsed.positionals[0]
        // What the file holds is what the command found wrong (exit 1), not its command line.
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandError("cannot read \(file)") }
        let rows: [Import.Row]
        do { rows = try Import.rows(csv: String(decoding: data, as: UTF8.self)) } catch { throw CommandError(error.description) }
        let environments =
            try AppleCommand.environment(parsed.value("environment")).map { [$0] } ?? Backfill.environments(of: app)
        guard !environments.isEmpty, environments.allSatisfy(app.environments.contains) else {
            throw UsageError("app \"\(appId)\" does not accept \(environments.map(\.rawValue).joined(separator: ", "))")
        }
        let target = try target(config: config, app: app, environments: environments)
        defer { target.close() }
        let progress = ProgressLines()
        let checkpoint = Import.checkpointPath(databasePath: CommandStore.checkpointBase(config), appId: appId, file: file)
        let lists = ImportLists(
            file: file, appId: appId,
            resumedFrom: Import.resumption(checkpoint: checkpoint, fingerprint: Import.fingerprint(rows))?.note)
        let summary = Import.run(
            rows, concurrency: Int(parsed.value("concurrency") ?? "4") ?? 4, checkpoint: checkpoint,
            resumed: { done in
                StandardStreams.error("import \(appId): resuming at row \(done + 1) of \(rows.count) (checkpoint)\n")
            },
            progress: { done, total, rate in
                let left = rate > 0 ? Double(total - done) / rate : 0
                progress.say(
                    "import \(appId): \(done)/\(total) (\(done * 100 / max(total, 1))%), \(Int(rate))/s, "
                        + "ETA \(Int(left.rounded())) s", final: done == total)
            }, list: { lists.add($0, appId: appId) }, note: { lists.note }, importRow: target.importRow)
        StandardStreams.out(
            "import \(appId): \(summary.imported) imported, \(summary.alreadyKnown) already known, "
                + "\(summary.linked) linked to their customer, \(summary.notFound) not found, \(summary.failed.count) failed\n")
        for reason in summary.failed.prefix(20) { StandardStreams.error("  failed: \(reason)\n") }
        lists.report(notFound: summary.notFound, failed: summary.failed.count, appId: appId)
        if let stopped = summary.stopped {
            StandardStreams.error(
                "import \(appId): stopped at row \(stopped.resumeAt): \(stopped.reason); run the same command again to resume there\n"
            )
        }
        return summary.failed.isEmpty && summary.stopped == nil ? 0 : 1
    }

    /// Where rows are imported: through the running server when one has the database (so its
    /// rate limit holds for both), else into the database opened here.
    func target(config: RevenueDotConfig, app: AppConfig, environments: [AppStoreEnvironment]) throws
        -> (importRow: @Sendable (Import.Row) -> Import.RowOutcome, close: () -> Void)
    {
        let emit = parsed.flags.contains("emit-events")
        if let listen = try CommandStore.servingAddress(config, for: "import") {
            let server = try RunningServer(listen: listen, app: app, command: "import")
            let importRow: @Sendable (Import.Row) -> Import.RowOutcome = { row in
                var body: [String: JSONValue] = [
                    "original_transaction_id": .string(row.originalTransactionId),
                    "environments": .array(environments.map { .string($0.rawValue) }), "emit_events": .bool(emit),
                ]
                body["app_user_id"] = row.appUserId.map(JSONValue.string)
                do {
                    let answer: JSONValue
                    switch try server.answer("/v1/apple/import", .object(body)) {
                    case .json(let json): answer = json
                    // A refusal of this row (400) is the row's; any other (the key refused, no
                    // inAppPurchaseKey, the server failing) would refuse every row: it stops the run.
                    case .refused(400, let message):
                        return .failed("\(row.originalTransactionId): the running server answered 400: \(message)")
                    case .refused(let status, let message):
                        return .unavailable("\(row.originalTransactionId): the running server answered \(status): \(message)")
                    }
                    switch answer["outcome"]?.stringValue {
                    case "imported": return .imported
                    case "already_known": return .alreadyKnown
                    case "linked": return .linked
                    case "not_found": return .notFound
                    case "unavailable":
                        return .unavailable(answer["reason"]?.stringValue ?? "\(row.originalTransactionId): unavailable")
                    default:
                        return .failed(answer["reason"]?.stringValue ?? "\(row.originalTransactionId): \(answer.serialized())")
                    }
                } catch {
                    return .unavailable("\(row.originalTransactionId): the running server: \(error)")
                }
            }
            StandardStreams.error("import \(app.id): through the running server at \(listen)\n")
            return (importRow, {})
        }
        let store = try CommandStore.openApplying(config, to: "import", command: "import")
        let clients = AppleAPIClientPool(config: config.appleAPI)
        let importRow: @Sendable (Import.Row) -> Import.RowOutcome = { row in
            Import.importRow(
                row, app: app, environments: environments, clients: clients, store: store, emitEvents: emit,
                nowMs: UnixTime.nowMs)
        }
        return (importRow, { store.close() })
    }
}
