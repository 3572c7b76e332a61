import AppStore
import Foundation
import JSON
import LoopbackClient
import Server
import Threads

/// A local App Store: plays named stories against a running RevenueDot, signing each
/// notification over the dev chain as Apple would, and remembering the subscription between runs.
///
/// Every step happens now, on the clock RevenueDot reads too: what Apple does at the end of a
/// period (renew, fail to renew, expire) moves that end to now rather than waiting for it, so
/// access ends when RevenueDot is told it ends. A step the App Store would not take in the
/// subscription's state (renewing what expired, recovering from no billing issue) is refused.
struct Simulator {
    enum Story: String, CaseIterable {
        case subscribe, renew, upgrade, downgrade, revert, cancel, uncancel
        case billingFailure = "billing-failure"
        case billingRecovery = "billing-recovery"
        case expire, refund
        case refundReversed = "refund-reversed"
        case familyRevoke = "family-revoke"
        case priceIncrease = "price-increase"
        case lifecycle
        case commerceSubscribe = "commerce-subscribe"
        case commerceUpgrade = "commerce-upgrade"
        case commerceDowngrade = "commerce-downgrade"
    }

    struct Options {
        var appId: String
        var user: String
        var bundleId: String
        var appAppleId: Int64?
        var product: String?
        /// `--period`: every period this story starts lasts this long; nil: the product's own.
        var periodMs: Int64?
        var environment: String
        var host: String
        var port: UInt16
        var grace = true
        var accept = false
        /// A new subscription is a family member's access through Family Sharing, not a purchase.
        var familyShared = false
        /// The app's public (or secret) API key: with it, a purchase is also posted by "the app"
        /// to `/v1/subscribers/{user}/transactions`, linking it to `--user` as a real app would.
        var apiKey: String?
        /// The app's secret API key, with which its backend has RevenueDot sign Advanced Commerce requests.
        var secretApiKey: String?
        /// `--request FILE`: the in-app request a `commerce-*` story has signed instead of its example.
        var requestFile: String?
    }

    let options: Options
    let chain: TestChain
    let stateFile: URL
    /// Where new transaction ids come from.
    let ids: TransactionIDs
    var state: SimulatedSubscription?
    /// Where each step's lines go.
    let print: (String) -> Void
    /// Where what the simulated App Store sent is kept for `simulate apple-api`; nil keeps nothing.
    var journal: AppleAPIJournal? = nil
    /// The product a plan change moves to: `--product`, except in `lifecycle`, where `--product`
    /// is the plan the story starts on and each change picks its own.
    private var planChangeProduct: String? { playingLifecycle ? nil : options.product }
    var playingLifecycle = false

    /// The plan `upgrade` moves to unless told: the top of the simulated catalog.
    static let topPlan = "pro.yearly"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The billing grace period the simulator grants at most: Apple's 16-day choice (App Store
    /// Connect offers 3, 16 or 28 days for monthly and longer periods, 3 or 6 for weekly ones).
    static let maximumGraceMs: Int64 = 16 * 86_400_000

    // MARK: - Stories

    mutating func play(_ story: Story) throws {
        takeUpStoreChanges()
        // Not before the last step: a 0.1.0 story's clock may run ahead of the wall clock.
        let now = max(UnixTime.nowMs, state?.signedAfterMs ?? 0)
        if let periodMs = options.periodMs { state?.fixedPeriodMs = periodMs }
        switch story {
        case .subscribe:
            try subscribe(at: now)
        case .renew:
            let current = try live("renew")
            try refuse(!current.autoRenew, "auto-renew is off, so the App Store does not renew; uncancel first, or expire")
            try refuse(current.billingIssue, "the renewal is in billing retry: billing-recovery renews it")
            try refuse(
                current.priceIncreasePending,
                "the customer has not accepted the price increase: price-increase --accept first, or expire (PRICE_INCREASE)")
            // Apple renews at the end of the period; the story does not wait for it: a period that
            // has not ended yet ends now.
            let ended =
                current.expiresMs <= now && current.length(of: current.autoRenewProductId).end(after: current.expiresMs) > now
            let id = try ids.next()
            try change {
                $0.commerce?.renew()
                $0.nextPeriod(
                    productId: $0.autoRenewProductId, transactionId: id, startMs: ended ? $0.expiresMs : now, renewal: true)
            }
            try send("DID_RENEW", nil)
        case .upgrade:
            let product = planChangeProduct ?? Self.topPlan
            try refuse(try live("upgrade").commerce != nil, "an Advanced Commerce subscription changes with commerce-upgrade")
            try refuse(try live("upgrade").productId == product, "\(options.user) is on \(product) already")
            let id = try ids.next()
            try change {
                $0.autoRenewProductId = product
                $0.nextPeriod(productId: product, transactionId: id, startMs: now, renewal: false)
            }
            try send("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        case .downgrade:
            let current = try live("downgrade")
            try refuse(current.commerce != nil, "an Advanced Commerce subscription changes with commerce-downgrade")
            let product = planChangeProduct ?? (current.productId == Self.topPlan ? "pro.monthly" : "pro.basic")
            try refuse(product == current.productId, "\(options.user) is on \(product) already")
            try change { $0.autoRenewProductId = product }
            try send("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
        case .revert:
            try refuse(try live("revert").autoRenewProductId == state?.productId, "no plan change is scheduled to take back")
            try change { $0.autoRenewProductId = $0.productId }
            try send("DID_CHANGE_RENEWAL_PREF", nil)
        case .cancel:
            try refuse(!(try live("cancel").autoRenew), "auto-renew is off already")
            try change { $0.autoRenew = false }
            try send("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
        case .uncancel:
            try refuse(try live("uncancel").autoRenew, "auto-renew is on already")
            try change { $0.autoRenew = true }
            try send("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        case .billingFailure:
            let current = try live("billing-failure")
            try refuse(!current.autoRenew, "auto-renew is off, so the App Store does not try to renew: expire ends it")
            try refuse(current.billingIssue, "the renewal is in billing retry already")
            // The renewal date is now: the paid period ends, and a grace period (half a period, at
            // most 16 days) may keep access while Apple retries.
            let grace = options.grace ? min(Self.maximumGraceMs, max((current.expiresMs - current.purchaseMs) / 2, 1000)) : nil
            try change {
                $0.billingIssue = true
                $0.expiresMs = min($0.expiresMs, now)
                $0.graceEndsMs = grace.map { now + $0 }
            }
            try send("DID_FAIL_TO_RENEW", grace != nil ? "GRACE_PERIOD" : nil, expirationIntent: 2)
        case .billingRecovery:
            try refuse(
                !(try live("billing-recovery").billingIssue), "there is no billing issue to recover from: billing-failure first")
            let id = try ids.next()
            try change {
                $0.commerce?.renew()
                $0.nextPeriod(productId: $0.autoRenewProductId, transactionId: id, startMs: now, renewal: true)
            }
            try send("DID_RENEW", "BILLING_RECOVERY")
        case .expire:
            let current = try live("expire")
            // Why Apple lets it end: the customer turned auto-renew off, billing retry gave up, a
            // price increase went unanswered, or else the product was no longer for sale (the
            // one EXPIRED subtype left for a subscription in good standing).
            let (subtype, intent): (String, Int) =
                !current.autoRenew
                ? ("VOLUNTARY", 1)
                : current.billingIssue
                    ? ("BILLING_RETRY", 2)
                    : current.priceIncreasePending ? ("PRICE_INCREASE", 3) : ("PRODUCT_NOT_FOR_SALE", 4)
            // The period (and any grace period) ends now.
            try change {
                $0.expiresMs = min($0.expiresMs, now)
                $0.graceEndsMs = $0.graceEndsMs.map { min($0, now) }
                $0.expired = true
                // Billing retry is over once Apple gives up: the status says expired, not retrying.
                $0.billingIssue = false
                if subtype == "PRICE_INCREASE" { $0.autoRenew = false }
            }
            try send("EXPIRED", subtype, expirationIntent: intent)
        case .refund:
            let current = try existing()
            try refuse(
                current.familyShared,
                "\(options.user) has the subscription through Family Sharing and was never charged; the purchaser's refund "
                    + "reaches a family member as family-revoke")
            try refuse(current.refundedMs != nil, "the current period is refunded already")
            try change { $0.refundedMs = now }
            try send("REFUND", nil)
        case .refundReversed:
            try refuse(try existing().refundedMs == nil, "the current period was not refunded: refund first")
            try change { $0.refundedMs = nil }
            try send("REFUND_REVERSED", nil)
        case .familyRevoke:
            // Apple revokes a family member's own shared transaction, never the purchaser's.
            let current = try existing()
            try refuse(
                !current.familyShared,
                "\(options.user) bought the subscription; family-revoke ends a family member's shared access: play a "
                    + "family member's story from subscribe --family-shared")
            try refuse(current.refundedMs != nil, "the shared access is revoked already")
            try change { $0.refundedMs = now }
            try send("REVOKE", nil)
        case .priceIncrease:
            // Advanced Commerce prices change through Apple's Change Subscription Price, not simulated.
            try refuse(
                try live("price-increase").commerce != nil, "an Advanced Commerce subscription has no price-increase story")
            let accept = options.accept
            try change {
                $0.priceIncreasePending = !accept
                if accept {
                    let product = $0.autoRenewProductId
                    $0.acceptedPrices = ($0.acceptedPrices ?? [:]).merging([
                        product: SimulatedProduct.increased($0.price(of: product))
                    ]) {
                        _, new in new
                    }
                    $0.priceIncreaseAccepted = true
                }
            }
            try send("PRICE_INCREASE", accept ? "ACCEPTED" : "PENDING")
        case .lifecycle:
            try lifecycle()
        case .commerceSubscribe, .commerceUpgrade, .commerceDowngrade:
            try playCommerce(story, at: now)
        }
        try save()
    }

    /// A first purchase, or a resubscription once the subscription expired.
    private mutating func subscribe(at now: Int64) throws {
        guard var current = state, !Self.startsAnew(after: current, familyShared: options.familyShared) else {
            state = SimulatedSubscription(
                productId: options.product ?? "pro.monthly", transactionId: try ids.next(), fixedPeriodMs: options.periodMs,
                nowMs: now, user: options.user, environment: options.environment, bundleId: options.bundleId, trial: false,
                familyShared: options.familyShared)
            try postFromApp()
            try send("SUBSCRIBED", "INITIAL_BUY")
            return
        }
        try refuse(
            !current.expired, "\(options.user) is already subscribed (\(current.productId)); try renew, upgrade or expire")
        current.nextPeriod(
            productId: options.product ?? current.productId, transactionId: try ids.next(), startMs: now, renewal: false)
        current.autoRenew = true
        current.autoRenewProductId = current.productId
        state = current
        try postFromApp()
        try send("SUBSCRIBED", "RESUBSCRIBE")
    }

    /// Whether `subscribe` starts a new subscription rather than resubscribing to `current`: after
    /// an Advanced Commerce one has expired (it is of another group), after a family member's
    /// shared access was revoked (what they buy now is their own), or once access ended, when
    /// whose purchase it is changes (`--family-shared` or not).
    static func startsAnew(after current: SimulatedSubscription, familyShared: Bool) -> Bool {
        if current.commerce != nil { return current.expired }
        if current.familyShared && current.refundedMs != nil { return true }
        return current.expired && current.familyShared != familyShared
    }

    /// A free trial that converts, an upgrade, a downgrade taken back, a cancellation, and the
    /// expiry: a whole customer story in about two and a half periods (of `--period`, or the
    /// product's).
    /// `--product` is the plan it starts on (no upgrade from the top plan).
    private mutating func lifecycle() throws {
        let now = UnixTime.nowMs
        state = SimulatedSubscription(
            productId: options.product ?? "pro.monthly", transactionId: try ids.next(), fixedPeriodMs: options.periodMs,
            nowMs: now, user: options.user, environment: options.environment, bundleId: options.bundleId, trial: true,
            familyShared: options.familyShared)
        let periodMs = (state?.expiresMs ?? now) - now
        try postFromApp()
        try send("SUBSCRIBED", "INITIAL_BUY")
        // The renewal comes just before the trial ends, as Apple charges ahead of the expiry.
        try wait(until: (state?.expiresMs ?? now) - min(periodMs / 10, 60_000) - 500)
        try play(.renew)
        playingLifecycle = true
        defer { playingLifecycle = false }
        try wait(milliseconds: periodMs / 2)
        if state?.productId == Self.topPlan {
            print("   (\(Self.topPlan) is the top plan: no upgrade)")
        } else {
            try play(.upgrade)
        }
        try wait(milliseconds: periodMs / 2)
        try play(.downgrade)
        try play(.revert)
        try play(.cancel)
        try wait(until: state?.expiresMs ?? UnixTime.nowMs)
        try play(.expire)
    }
}
