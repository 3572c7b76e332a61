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
    /// standing for it. A history read stands for ten minutes for any restore of the account
    /// (`RestoredHistories`). Never fails the restore: Apple not answering, every lookup slot of
    /// the app taken (an `apple.restore_skipped` line), another restore reading the account now,
    /// or a purchase `restoreBehavior` keeps with another customer, leaves the rest as posted.
    /// `done` runs once.
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
        // Each in turn, whatever each answers (a step that answers nil never ends the run).
        let linkAll: @Sendable ([RestoredHistories.Purchase]) -> Void = { [self] purchases in
            let links: [Step] = purchases.filter { !postedKeys.contains($0.key) }.map { purchase in
                { [self] next in
                    link(purchase.signed, app: app, verifier: verifier, appUserId: appUserId, access: access) { _ in next(nil) }
                }
            }
            run(links[...], reply: { _ in }, finish: done)
        }
        switch lookups.restored.claim(app: app.id, environment: environment, originalTransactionId: account) {
        case .known(let purchases): return linkAll(purchases)
        case .reading: return done()
        case .claimed: break
        }
        guard lookups.begin(app: app.id) else {
            lookups.restored.release(app: app.id, environment: environment, originalTransactionId: account)
            lookups.restoreSkipped(app: app.id)
            return done()
        }
        DispatchQueue.global().async {
            defer { lookups.end(app: app.id) }
            let history: [(signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>)]
            do {
                history = try lookups.history(app, transactionId, environment: environment)
            } catch {
                lookups.restored.release(app: app.id, environment: environment, originalTransactionId: account)
                lookups.log.warning(
                    "apple.restore_failed", "a restore's other purchases could not be read from Apple; the posted one is linked",
                    [("app", .text(app.id)), ("transaction", .text(transactionId)), ("error", .text("\(error)"))])
                return done()
            }
            var latest: [PurchaseKey: RestoredHistories.Purchase] = [:]
            var originals: Set<String> = [account]
            for (signed, transaction) in history {
                if let original = transaction.payload.originalTransactionId { originals.insert(original) }
                guard let key = Ledger.purchaseKey(of: transaction.payload, renewalInfo: nil, type: nil) else { continue }
                let purchasedMs = transaction.payload.purchaseDate ?? 0
                if purchasedMs >= latest[key]?.purchasedMs ?? .min {
                    latest[key] = RestoredHistories.Purchase(key: key, signed: signed, purchasedMs: purchasedMs)
                }
            }
            let purchases = latest.values.sorted { $0.purchasedMs < $1.purchasedMs }
            lookups.restored.remember(purchases, app: app.id, environment: environment, originalTransactionIds: originals)
            linkAll(purchases)
        }
    }
}
