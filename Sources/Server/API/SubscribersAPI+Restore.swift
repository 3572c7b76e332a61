import AppStore
import AppStoreServerAPI
import Dispatch
import Foundation
import HTTP
import Subscriptions

extension SubscribersAPI {
    /// A restore's other purchases: RevenueCat's SDK posts one transaction of the Apple account
    /// (the first it finds) and RevenueCat asks Apple for the rest. With the app's
    /// `inAppPurchaseKey`, Apple's transaction history of that account is read and each purchase
    /// in it not posted is linked to `appUserId` as its posted transaction would be (the device
    /// holds the account: it posted a transaction Apple signed for it), its latest transaction
    /// standing for it. Never fails the restore: Apple not answering, every lookup slot of the
    /// app taken (an `apple.restore_skipped` line), or a purchase `restoreBehavior` keeps with
    /// another customer, leaves the rest as posted; so does a restore of an account whose history
    /// a restore read in the last ten minutes (`AppleTransactionLookups.claimRestore`): what that
    /// one linked is linked. `done` runs once.
    func restoreAccount(
        of posted: [String], app: AppConfig, verifier: AppVerifiers, appUserId: String, access: APIKeys.Access,
        done: @escaping @Sendable () -> Void
    ) {
        let now = clock()
        let verified = posted.compactMap { try? verifier.strict.verifyTransaction($0, now: now).payload }
        guard let lookups = appleLookups, app.inAppPurchaseKey != nil, let anchor = verified.first,
            let transactionId = anchor.transactionId, let environment = anchor.environment,
            environment == .production || environment == .sandbox  // Apple's API keeps no other history
        else { return done() }
        let postedKeys = Set(verified.compactMap { Ledger.purchaseKey(of: $0, renewalInfo: nil, type: nil) })
        let account = anchor.originalTransactionId ?? transactionId
        guard lookups.claimRestore(app: app.id, environment: environment, originalTransactionId: account) else {
            return done()
        }
        guard lookups.begin(app: app.id) else {
            lookups.releaseRestore(app: app.id, environment: environment, originalTransactionId: account)
            lookups.restoreSkipped(app: app.id)
            return done()
        }
        DispatchQueue.global().async { [self] in
            defer { lookups.end(app: app.id) }
            let history: [(signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>)]
            do {
                history = try lookups.history(app, transactionId, environment: environment)
            } catch {
                lookups.releaseRestore(app: app.id, environment: environment, originalTransactionId: account)
                lookups.log.warning(
                    "apple.restore_failed", "a restore's other purchases could not be read from Apple; the posted one is linked",
                    [("app", .text(app.id)), ("transaction", .text(transactionId)), ("error", .text("\(error)"))])
                return done()
            }
            var latest: [PurchaseKey: (signed: String, purchasedMs: Int64)] = [:]
            for (signed, transaction) in history {
                guard let key = Ledger.purchaseKey(of: transaction.payload, renewalInfo: nil, type: nil),
                    !postedKeys.contains(key)
                else { continue }
                let purchasedMs = transaction.payload.purchaseDate ?? 0
                if purchasedMs >= latest[key]?.purchasedMs ?? .min { latest[key] = (signed, purchasedMs) }
            }
            // Each in turn, whatever each answers (a step that answers nil never ends the run).
            let links: [Step] = latest.sorted { $0.value.purchasedMs < $1.value.purchasedMs }.map { _, other in
                { [self] next in
                    link(other.signed, app: app, verifier: verifier, appUserId: appUserId, access: access) { _ in next(nil) }
                }
            }
            run(links[...], reply: { _ in }, finish: done)
        }
    }
}
