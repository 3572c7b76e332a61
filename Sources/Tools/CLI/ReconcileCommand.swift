import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Server
import Storage
import Subscriptions
import Threads

/// `revenuedot reconcile`: stored subscriptions brought in line with what Apple says of them.
package struct ReconcileCommand {
    package static let usage = """
        usage: revenuedot reconcile --app ID [--customer APP_USER_ID] [--subscription ORIGINAL_TRANSACTION_ID]
                                    [--config FILE]

        For each subscription of the app with access now or within the last 60 days (of one
        customer, or one subscription, when given), asks Apple (Get All Subscription Statuses,
        in the subscription's environment) and compares: transaction, product, expiry,
        revocation, auto-renew and its product, billing retry. Where Apple's answer differs and
        is not older than what is stored, it is applied through the subscription logic, which
        emits the events that were missed (a renewal's RENEWAL, auto-renew's CANCELLATION or
        UNCANCELLATION), and kept for replay. Prints one
        line per subscription that drifted, then a summary. Writes the database; with serve
        running on it, each subscription is reconciled by serve (POST /v1/apple/reconcile, with
        the app's secretApiKey), so its rate limit holds for both and the result is the same.
        """

    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        parsed = try ParsedArguments(arguments, valueOptions: ["config", "app", "customer", "subscription"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("reconcile takes options only") }
        guard parsed.value("app") != nil else { throw UsageError("reconcile needs --app ID") }
    }

    package func run() throws -> Int32 {
        let (config, app) = try AppleCommand.configuredApp(parsed)
        // Refused before anything is read: without a key no subscription can be asked about.
        _ = try AppleAPIClients.key(of: app)
        let appId = app.id
        let (reader, reconcileOne, close) = try target(config: config, app: app)
        defer { close() }
        let nowMs = UnixTime.nowMs
        var states = try Reconcile.candidates(app: app, store: reader, nowMs: nowMs, only: parsed.value("subscription"))
        if let customer = parsed.value("customer") {
            // By its id or an alias.
            guard let owner = try reader.appUserId(named: customer, appId: app.id) else {
                throw NothingToReconcile("no customer \"\(customer)\" in app \(app.id)")
            }
            states = states.filter { $0.journal.ownerAppUserId == owner }
        }
        if let only = parsed.value("subscription"), states.isEmpty {
            // Asked for by name: say why it is not checked rather than check nothing.
            guard try reader.hasSubscription(only, appId: app.id) else {
                throw NothingToReconcile("no subscription \(only) in app \(app.id)")
            }
            if let customer = parsed.value("customer"),
                try Reconcile.candidates(app: app, store: reader, nowMs: nowMs, only: only).isEmpty == false
            {
                throw NothingToReconcile("subscription \(only) is not customer \"\(customer)\"'s")
            }
            throw NothingToReconcile(
                "subscription \(only) lapsed more than \(Reconcile.lapsedWindowMs / 86_400_000) days ago: reconcile "
                    + "checks those with access now or within the last \(Reconcile.lapsedWindowMs / 86_400_000) days")
        }
        var (drifted, applied, failed, asked, unknown) = (0, 0, 0, 0, 0)
        let progress = ProgressLines()
        for state in states {
            progress.say("reconcile \(appId): \(asked)/\(states.count) checked, \(drifted) drifted, \(failed) failed")
            asked += 1
            do {
                let outcome = try reconcileOne(state)
                guard !outcome.drifts.isEmpty || outcome.note != nil else { continue }
                if !outcome.drifts.isEmpty { drifted += 1 } else { unknown += 1 }
                if outcome.applied { applied += 1 }
                let what = outcome.drifts.map(\.description).joined(separator: ", ")
                StandardStreams.out(
                    "\(outcome.originalTransactionId): \(what.isEmpty ? "" : what + "; ")"
                        + (outcome.applied ? "applied" : outcome.note ?? "not applied") + "\n")
            } catch {
                failed += 1
                StandardStreams.error("reconcile \(state.originalTransactionId): \(error)\n")
                // Apple unreachable, limiting the rate or refusing the key: the rest would fail alike.
                if (error as? AppStoreServerAPIError)?.failsEveryCall == true || error is Unavailable {
                    StandardStreams.error(
                        "reconcile \(appId): stopped after \(asked) of \(states.count): the rest would fail alike (\(error))\n")
                    break
                }
            }
        }
        StandardStreams.out(
            "reconcile \(appId): \(asked) subscription\(asked == 1 ? "" : "s") checked, \(drifted) drifted, "
                + "\(applied) applied, \(failed) failed"
                // Apple's answer, not a failure: said in the summary, not only in the lines above.
                + (unknown > 0 ? ", \(unknown) unknown to Apple" : "") + "\n")
        return failed > 0 ? 1 : 0
    }

    /// Where subscriptions are read and reconciled: through the running server when one has the
    /// database (read beside it, reconciled by it, within its rate limit), else here.
    func target(config: RevenueDotConfig, app: AppConfig) throws -> (
        any ReadsStore, (SubscriptionState) throws -> Reconcile.Outcome, () -> Void
    ) {
        if let listen = try CommandStore.servingAddress(config, for: "reconcile") {
            let server = try RunningServer(listen: listen, app: app, command: "reconcile")
            StandardStreams.error("reconcile \(app.id): through the running server at \(listen)\n")
            let reader = try CommandStore.reader(config)
            return (
                reader,
                { state in
                    let body = JSONValue.object(["original_transaction_id": .string(state.originalTransactionId)])
                    let answer: JSONValue
                    switch try server.answer("/v1/apple/reconcile", body) {
                    case .json(let json): answer = json
                    // This subscription's: Apple failing for it (502), or it lapsed meanwhile (404).
                    case .refused(let status, let message) where [404, 502].contains(status):
                        throw CommandError("the running server answered \(status): \(message)")
                    // Any other (the key refused, no inAppPurchaseKey, 503) would refuse every one.
                    case .refused(let status, let message):
                        throw Unavailable(message: "the running server answered \(status): \(message)")
                    }
                    guard let outcome = Reconcile.Outcome(json: answer) else {
                        throw CommandError("the server answered what is no reconciliation: \(answer.serialized())")
                    }
                    return outcome
                }, {}
            )
        }
        let store = try CommandStore.openApplying(config, to: "reconcile", command: "reconcile")
        let clients = AppleAPIClientPool(config: config.appleAPI)
        let nowMs = UnixTime.nowMs
        return (
            store,
            { state in
                let client = try clients.client(for: app, environment: Reconcile.environment(of: state))
                return try Reconcile.reconcile(state, app: app, client: client, store: store, nowMs: nowMs)
            }, { store.close() }
        )
    }
}

/// What was asked for names nothing reconcile can check: said in one line, exit 1 (the
/// arguments were well formed, so no usage follows).
struct NothingToReconcile: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The running server refuses every subscription now: its 503 (no call to Apple would get
/// through), a refused key, no inAppPurchaseKey.
struct Unavailable: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
