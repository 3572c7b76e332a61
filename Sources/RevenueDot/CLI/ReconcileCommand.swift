import AppStore
import AppStoreServerAPI
import Foundation
import Storage

/// `revenuedot reconcile`: stored subscriptions brought in line with what Apple says of them.
public struct ReconcileCommand {
    public static let usage = """
        usage: revenuedot reconcile --app ID [--customer APP_USER_ID] [--subscription ORIGINAL_TRANSACTION_ID]
                                    [--config FILE]

        For each subscription of the app with access now or within the last 30 days (of one
        customer, or one subscription, when given), asks Apple (Get All Subscription Statuses,
        in the subscription's environment) and compares: transaction, product, expiry,
        revocation, auto-renew and its product, billing retry. Where Apple's answer differs and
        is not older than what is stored, it is applied through the subscription logic, which
        emits the events that were missed (a renewal's RENEWAL), and kept for replay. Prints one
        line per subscription that drifted, then a summary. Writes the database: run it while
        serve is stopped.
        """

    let parsed: ParsedArguments

    public init(arguments: [String]) throws {
        parsed = try ParsedArguments(arguments, valueOptions: ["config", "app", "customer", "subscription"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("reconcile takes options only") }
        guard parsed.value("app") != nil else { throw UsageError("reconcile needs --app ID") }
    }

    public func run() throws -> Int32 {
        let config = try ConfigLoader.load(path: parsed.value("config") ?? "revenuedot.json")
        let appId = parsed.value("app") ?? ""
        guard let app = config.app(appId) else { throw UsageError("no app \"\(appId)\" is configured") }
        try SecretFileModes.check(config)
        let (store, _) = try CommandStore.openApplying(config, to: "reconcile")
        defer { store.close() }
        let nowMs = UnixTime.nowMs
        var states = try Reconcile.candidates(app: app, store: store, nowMs: nowMs, only: parsed.value("subscription"))
        if let customer = parsed.value("customer") { states = states.filter { $0.journal.ownerAppUserId == customer } }
        let clients = AppleAPIClientPool(config: config.appleAPI)
        var (drifted, applied, failed) = (0, 0, 0)
        for state in states {
            let environment = AppStoreEnvironment(rawValue: state.currentTransaction?.environment?.rawValue ?? "Production")
            do {
                let client = try clients.client(for: app, environment: environment)
                let outcome = try Reconcile.reconcile(state, app: app, client: client, store: store, nowMs: nowMs)
                guard !outcome.drifts.isEmpty || outcome.note != nil else { continue }
                if !outcome.drifts.isEmpty { drifted += 1 }
                if outcome.applied { applied += 1 }
                let what = outcome.drifts.map(\.description).joined(separator: ", ")
                StandardStreams.out(
                    "\(outcome.originalTransactionId): \(what.isEmpty ? "" : what + "; ")"
                        + (outcome.applied ? "applied" : outcome.note ?? "not applied") + "\n")
            } catch {
                failed += 1
                StandardStreams.error("reconcile \(state.originalTransactionId): \(error)\n")
            }
        }
        StandardStreams.out(
            "reconcile \(appId): \(states.count) subscription\(states.count == 1 ? "" : "s") checked, \(drifted) drifted, "
                + "\(applied) applied, \(failed) failed\n")
        return failed > 0 ? 1 : 0
    }
}
