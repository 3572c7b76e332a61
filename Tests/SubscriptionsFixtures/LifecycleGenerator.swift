import AppStore
import Subscriptions

/// Generates an Apple-like history for one subscription (plus a few one-time purchases).
///
/// A random walk over time: renewals, billing failures with or without grace and recovery,
/// voluntary and price-increase expiries, resubscriptions, plan changes, auto-renew toggles,
/// refunds (reversed or not, of the current or an older period), extensions, consumption
/// requests, the app posting transactions (refunded ones too, when asked), `TEST`s and
/// notification types Apple may add later.
/// Every fact has its own signed date, and the snapshots it carries are Apple's view at that date.
public struct LifecycleGenerator: Sendable {
    /// One input and the moment it happened (its `signedDate`).
    public struct Step: Sendable {
        public var input: Ledger.Input
        public var atMs: Int64

        public init(input: Ledger.Input, atMs: Int64) {
            self.input = input
            self.atMs = atMs
        }
    }

    private var random: SplitMix64
    public private(set) var steps: [Step] = []
    private var clock = Apple.t0
    private var serial = 0
    private var period = Apple.transaction("1000", purchase: Apple.t0)
    private var periods: [JWSTransactionDecodedPayload] = []
    private var autoRenew = true
    private var nextProduct: String?
    private var priceIncrease: PriceIncreaseStatus?
    private var lapsed = false

    /// Whether the app sometimes posts a refunded transaction after its REFUND. Off, a seed gives
    /// the history it always gave; on, a refund has its CANCELLATION under the id of whichever
    /// report came first, so the event ids depend on the delivery order.
    private let postsRefundedTransactions: Bool

    /// A history of `length` moves drawn from `seed`.
    public init(seed: UInt64, length: Int, postsRefundedTransactions: Bool = false) {
        self.postsRefundedTransactions = postsRefundedTransactions
        random = SplitMix64(seed: seed)
        let trial = random.chance(30)
        period = Apple.transaction(
            "1000", purchase: Apple.t0, expires: Apple.t0 + (trial ? 7 : 30) * Apple.day,
            offer: trial ? .introductory : nil, discount: trial ? .freeTrial : nil)
        periods = [period]
        notify(.subscribed, .initialBuy)
        for _ in 0..<length { move() }
    }

    /// The order Apple meant, then `count` shuffles where about a third of the facts also arrive
    /// twice: the delivery orders the property tests play.
    public static func orders(of steps: [Step], seed: UInt64, count: Int) -> [[Step]] {
        var random = SplitMix64(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        return [steps]
            + (0..<count).map { _ in
                let repeated = steps.filter { _ in random.chance(35) }
                return (steps + repeated).shuffled(using: &random)
            }
    }

    /// The moment after the last step by which every access has surely ended.
    public var endMs: Int64 { clock + 400 * Apple.day }

    // MARK: - Moves

    private mutating func move() {
        if lapsed { return resubscribe() }
        let roll = Int.random(in: 0..<100, using: &random)
        let expires = period.expiresDate ?? clock
        if roll < 30 || clock >= expires - Apple.day { return endPeriod() }
        tick(upTo: expires - Apple.day / 2)
        switch roll {
        case 30..<42:
            autoRenew.toggle()
            notify(.didChangeRenewalStatus, autoRenew ? .autoRenewEnabled : .autoRenewDisabled)
        case 42..<47:
            nextProduct = random.chance(50) ? Apple.basic : nil
            notify(.didChangeRenewalPref, nextProduct == nil ? nil : .downgrade)
        case 47..<52:
            let product = period.productId == Apple.yearly ? Apple.monthly : Apple.yearly
            startPeriod(product: product, length: product == Apple.yearly ? 365 : 30)
            notify(random.chance(50) ? .didChangeRenewalPref : .offerRedeemed, .upgrade)
        case 52..<58:
            priceIncrease = random.chance(60) ? .customerHasNotResponded : .customerConsentedOrWasNotifiedWithoutNeedingConsent
            notify(.priceIncrease, priceIncrease == .customerHasNotResponded ? .pending : .accepted)
        case 58..<66:
            refund(periods.randomElement(using: &random) ?? period)
        case 66..<71:
            period.expiresDate = expires + random.int64(in: 1...10) * Apple.day
            periods[periods.count - 1] = period
            notify(.renewalExtended, nil)
        case 71..<78:
            notify(random.chance(50) ? .consumptionRequest : .refundDeclined, nil, about: periods.first)
        case 78..<86:
            stamp()
            var posted = period
            posted.signedDate = clock
            steps.append(Step(input: .transactionPosted(posted, appUserId: "user"), atMs: clock))
        case 86..<91:
            notify(.unknown("FUTURE_TYPE"), random.chance(50) ? nil : .unknown("FUTURE_SUBTYPE"))
        case 91..<94:
            stamp()
            steps.append(Step(input: .notificationReceived(Apple.notification(.test, uuid: uuid(), signed: clock)), atMs: clock))
        default:
            oneTimeCharge()
        }
    }

    private mutating func endPeriod() {
        let expires = period.expiresDate ?? clock
        reach(expires)
        if !autoRenew { return expire(.voluntary, intent: .customerCancelled) }
        if priceIncrease == .customerHasNotResponded {
            return expire(.priceIncrease, intent: .customerDidNotConsentToPriceIncrease)
        }
        guard random.chance(30) else {
            startPeriod(product: nextProduct ?? period.productId ?? Apple.monthly, length: 30)
            return notify(.didRenew, nil)
        }
        let grace: Int64? = random.chance(50) ? expires + 16 * Apple.day : nil
        notify(.didFailToRenew, grace == nil ? nil : .gracePeriod, retry: true, grace: grace)
        if random.chance(50) {
            tick(upTo: grace ?? expires + 20 * Apple.day)
            startPeriod(product: period.productId ?? Apple.monthly, length: 30)
            return notify(.didRenew, .billingRecovery)
        }
        if let grace {
            reach(grace)
            notify(.gracePeriodExpired, nil, retry: true)
        }
        reach(expires + 60 * Apple.day)
        expire(.billingRetry, intent: .billingError)
    }

    private mutating func expire(_ subtype: Subtype, intent: ExpirationIntent) {
        autoRenew = false
        notify(.expired, subtype, intent: intent)
        lapsed = true
    }

    private mutating func resubscribe() {
        tick(upTo: clock + random.int64(in: 1...40) * Apple.day)
        autoRenew = true
        priceIncrease = nil
        startPeriod(product: random.chance(50) ? Apple.monthly : Apple.yearly, length: 30)
        notify(.subscribed, .resubscribe)
        lapsed = false
    }

    private mutating func refund(_ target: JWSTransactionDecodedPayload) {
        var refunded = target
        refunded.revocationDate = clock + 1
        refunded.revocationReason = .refundedForOtherReason
        refunded.revocationType = .refundFull
        notify(.refund, nil, about: refunded)
        let reversed = random.chance(40)
        if postsRefundedTransactions, random.chance(30) {
            // The app sees the refunded transaction later, a notification perhaps in between.
            if random.chance(50) { notify(.unknown("FUTURE_TYPE"), nil) }
            stamp()
            refunded.signedDate = clock
            steps.append(Step(input: .transactionPosted(refunded, appUserId: "user"), atMs: clock))
        }
        guard reversed else {
            if target.transactionId == period.transactionId { lapsed = true }
            return
        }
        tick(upTo: clock + Apple.day)
        notify(.refundReversed, nil, about: target)
    }

    private mutating func oneTimeCharge() {
        serial += 1
        let coins = Apple.transaction(
            "9\(serial)", original: "9\(serial)", product: "coins", purchase: clock, price: 990, type: .consumable,
            token: "user")
        notify(.oneTimeCharge, nil, about: coins)
        if random.chance(30) { notify(.refund, nil, about: coins) }
    }

    // MARK: - Building blocks

    private mutating func startPeriod(product: String, length: Int64) {
        serial += 1
        period = Apple.transaction(
            "\(1000 + serial)", product: product, purchase: clock, expires: clock + length * Apple.day,
            price: product == Apple.yearly ? 99_990 : 9_990)
        periods.append(period)
        nextProduct = nil
    }

    /// Moves the clock forward by at least a millisecond, to a random point before `limit`.
    private mutating func tick(upTo limit: Int64) {
        clock = max(clock + 1, min(limit, clock + random.int64(in: 1...(5 * Apple.day))))
    }

    /// Moves the clock to `moment`, or by a millisecond if it is already there.
    private mutating func reach(_ moment: Int64) {
        clock = max(clock + 1, moment)
    }

    private mutating func stamp() { clock += 1 }

    private mutating func uuid() -> String {
        serial += 1
        return "n\(serial)"
    }

    private mutating func notify(
        _ type: NotificationTypeV2, _ subtype: Subtype?, about transaction: JWSTransactionDecodedPayload? = nil,
        retry: Bool = false, grace: Int64? = nil, intent: ExpirationIntent? = nil
    ) {
        stamp()
        var snapshot = transaction ?? period
        snapshot.signedDate = clock
        let renewal = Apple.renewal(
            product: period.productId ?? Apple.monthly, next: nextProduct, autoRenew: autoRenew, retry: retry,
            grace: grace, priceIncrease: priceIncrease, intent: intent)
        let facts = Apple.notification(
            type, subtype, uuid: uuid(), signed: clock, transaction: snapshot,
            renewal: snapshot.type == .autoRenewable ? renewal : nil)
        steps.append(Step(input: .notificationReceived(facts), atMs: clock))
    }
}
