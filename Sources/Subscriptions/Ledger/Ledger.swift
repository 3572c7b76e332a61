import AppStore
import Foundation

/// One app's subscriptions, one-time purchases and customers: the reducer of RevenueDot.
///
/// `apply(_:at:)` takes a past-tense fact and the clock, updates the state, and returns commands
/// for the shell: events to commit to the outbox and timers to store. It does no I/O and never
/// reads the clock. A ledger may hold only a slice of the app: the entries an input touches
/// (see `Input`), so the shell can load a few rows, apply, and write them back.
public struct Ledger: Codable, Hashable, Sendable {
    /// What happened: the reducer's inputs.
    ///
    /// The slice a shell loads for each: the purchase the input names (routed as in
    /// `purchaseKey(of:)`), its owner, the customer the input names, and for a notification about
    /// a purchase with no owner, the customer whose `app_user_id` equals its `appAccountToken`.
    public enum Input: Hashable, Sendable {
        /// A verified App Store Server Notification.
        case notificationReceived(VerifiedNotificationFacts)
        /// The app posted a verified StoreKit transaction for a customer: link its purchase to
        /// `appUserId` (a transfer if someone else owned it) and apply the transaction.
        /// `presentedOfferingId`: the offering the app says it sold the purchase from (RevenueCat's
        /// `presented_offering_id`), kept with the purchase when the link is made.
        case transactionPosted(JWSTransactionDecodedPayload, appUserId: String, presentedOfferingId: String? = nil)
        /// Link a purchase to `appUserId` without a transaction (a transfer if owned by another).
        case linked(PurchaseKey, appUserId: String)
        /// A stored timer came due.
        case timerFired(ExpirationTimer)
        /// What the App Store Server API answered of a purchase when asked (reconciliation,
        /// import): its latest transaction and renewal info, verified; with `appUserId`, the
        /// purchase is linked to that customer first (an import that knows the owner).
        case appleAnswered(JWSTransactionDecodedPayload, renewalInfo: JWSRenewalInfoDecodedPayload?, appUserId: String?)
        /// A past transaction of a purchase, from Apple's Transaction History (import), verified:
        /// folded at its purchase date, so an imported subscription has its earlier periods in
        /// order; with `appUserId`, the purchase is linked to that customer first.
        case appleHistory(JWSTransactionDecodedPayload, appUserId: String?)
        /// Something the API did to a customer: seen, aliased, deleted.
        case customerAction(CustomerAction)
    }

    /// What the shell must do, in order, in the same storage transaction as the new state.
    public enum Effect: Hashable, Sendable {
        /// Commit the event to the outbox (its id is stable: insert-or-ignore).
        case emit(Event)
        /// Store the timer, replacing any pending one with the same `id`.
        case schedule(ExpirationTimer)
        /// Nothing to store: the input asked to link the purchase to a customer, and the app's
        /// `restoreBehavior` keeps it with `keptWith`, its owner. The shell tells whoever asked.
        case linkRefused(PurchaseKey, keptWith: String)

        /// Whether this is a `linkRefused`.
        public var isLinkRefusal: Bool {
            if case .linkRefused = self { return true }
            return false
        }
    }

    /// App id, entitlement map, tracking switch.
    public var configuration: LedgerConfiguration
    /// Subscriptions by `originalTransactionId`.
    public var subscriptions: [String: SubscriptionState]
    /// One-time purchases by `transactionId`.
    public var oneTimePurchases: [String: OneTimePurchase]
    /// Customers by `app_user_id`.
    public var customers: [String: CustomerState]
    /// Ids that are aliases of another customer, to that customer's `app_user_id`: those the
    /// slice's inputs name (`Input.namedCustomerIds`), and those an input made.
    public var aliasOwners: [String: String]
    /// Notifications about no purchase (TEST, RENEWAL_EXTENSION SUMMARY, EXTERNAL_PURCHASE_TOKEN,
    /// RESCIND_CONSENT, unknown types without data), by id: kept, and deduplicated.
    public var unattachedFacts: [String: PurchaseFact]

    /// A ledger, or a slice of one, from stored entries.
    public init(
        configuration: LedgerConfiguration = LedgerConfiguration(),
        subscriptions: [String: SubscriptionState] = [:],
        oneTimePurchases: [String: OneTimePurchase] = [:],
        customers: [String: CustomerState] = [:],
        aliasOwners: [String: String] = [:],
        unattachedFacts: [String: PurchaseFact] = [:]
    ) {
        self.aliasOwners = aliasOwners
        self.configuration = configuration
        self.subscriptions = subscriptions
        self.oneTimePurchases = oneTimePurchases
        self.customers = customers
        self.unattachedFacts = unattachedFacts
    }

    /// Applies one input at `now` and returns the effects, in the order they must be executed.
    public mutating func apply(_ input: Input, at now: Date) -> [Effect] {
        let effects = reduce(input, at: now)
        // A customer the app (or its backend) acts as is the app's, not tracking's placeholder.
        for id in input.actingCustomerIds where customers[customerId(id)]?.madeByTracking != nil {
            customers[customerId(id)]?.madeByTracking = nil
        }
        return effects
    }

    private mutating func reduce(_ input: Input, at now: Date) -> [Effect] {
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded())
        let mayClaim = mayClaimAPurchase(by: input)
        switch input {
        case .notificationReceived(let facts):
            return receive(facts, mayClaim: mayClaim, nowMs: nowMs)
        case .customerAction(let action):
            return act(action, nowMs: nowMs)
        case .transactionPosted(let transaction, let appUserId, let offering):
            guard let key = Self.purchaseKey(of: transaction, renewalInfo: nil, type: nil) else { return [] }
            var effects = link(key, to: appUserId, evidence: transaction, offering: offering, nowMs: nowMs)
            effects += receive(PurchaseFact(posted: transaction), about: key, token: nil, mayClaim: mayClaim, nowMs: nowMs)
            return effects
        case .linked(let key, let appUserId):
            return link(key, to: appUserId, nowMs: nowMs)
        case .appleAnswered(let transaction, let renewalInfo, let appUserId):
            guard let key = Self.purchaseKey(of: transaction, renewalInfo: renewalInfo, type: nil) else { return [] }
            let token = transaction.appAccountToken ?? renewalInfo?.appAccountToken
            var effects = appUserId.map { link(key, to: $0, evidence: transaction, nowMs: nowMs) } ?? []
            effects += receive(
                PurchaseFact(appleAPI: transaction, renewalInfo: renewalInfo), about: key, token: token, mayClaim: mayClaim,
                nowMs: nowMs)
            return effects
        case .appleHistory(let transaction, let appUserId):
            guard let key = Self.purchaseKey(of: transaction, renewalInfo: nil, type: nil) else { return [] }
            var effects = appUserId.map { link(key, to: $0, nowMs: nowMs) } ?? []
            effects += receive(
                PurchaseFact(appleHistory: transaction), about: key, token: transaction.appAccountToken, mayClaim: mayClaim,
                nowMs: nowMs)
            return effects
        case .timerFired(let timer):
            if let (grantId, customer) = PromotionalGrant.parse(timer: timer) {
                return expirePromotional(grantId: grantId, of: customerId(customer), nowMs: nowMs)
            }
            guard var subscription = subscriptions[timer.originalTransactionId] else { return [] }
            var effects: [Effect] = []
            if let expiration = subscription.expire(atMs: nowMs, scheduledAtMs: timer.fireAtMs) {
                effects = deliver([expiration], journal: &subscription.journal, nowMs: nowMs)
            }
            if let next = subscription.pendingTimer { effects.append(.schedule(next)) }
            subscriptions[timer.originalTransactionId] = subscription
            return effects
        }
    }

    // MARK: - Notifications

    private mutating func receive(_ facts: VerifiedNotificationFacts, mayClaim: Bool, nowMs: Int64) -> [Effect] {
        let fact = PurchaseFact(facts)
        guard
            let key = Self.purchaseKey(
                of: facts.transaction, renewalInfo: facts.renewalInfo, type: facts.notificationType)
        else {
            guard unattachedFacts[fact.id] == nil else { return [] }
            unattachedFacts[fact.id] = fact
            guard facts.notificationType == .test, facts.subtype == nil else { return [] }
            var test = Event(type: .test, id: EventID.make(cause: "notification/\(fact.id)/TEST"))
            test.environment = facts.environment.map(EventEnvironment.init)
            test.appId = configuration.appId
            test.eventTimestampMs = nowMs
            // No customer and no purchase, but the types a consumer reads every event with: a
            // boolean and a list, not nulls a strictly typed receiver refuses (and the refusal
            // would be retried for days).
            test.isFamilyShare = false
            test.aliases = []
            return [.emit(test)]
        }
        let token = facts.transaction?.appAccountToken ?? facts.renewalInfo?.appAccountToken
        return receive(fact, about: key, token: token, mayClaim: mayClaim, nowMs: nowMs)
    }

    /// Applies a fact to its purchase: claim it if unowned and the input may
    /// (`mayClaimAPurchase(by:)`), fold it, deliver or hold its events.
    private mutating func receive(
        _ fact: PurchaseFact, about key: PurchaseKey, token: String?, mayClaim: Bool, nowMs: Int64
    ) -> [Effect] {
        switch key {
        case .subscription(let id):
            var subscription = subscriptions[id] ?? newSubscription(id, from: fact)
            guard !subscription.journal.hasFact(id: fact.id) else { return [] }
            var effects =
                mayClaim ? claim(key, journal: &subscription.journal, token: token, fact: fact, nowMs: nowMs) : []
            let lapse = subscription.expire(before: fact).map { [$0] } ?? []
            let events = lapse + (subscription.receive(fact) ?? [])
            effects += deliver(events, journal: &subscription.journal, nowMs: nowMs)
            if let timer = subscription.pendingTimer { effects.append(.schedule(timer)) }
            subscriptions[id] = subscription
            return effects
        case .oneTime(let id):
            var purchase = oneTimePurchases[id] ?? OneTimePurchase(transactionId: id)
            guard !purchase.journal.hasFact(id: fact.id) else { return [] }
            var effects = mayClaim ? claim(key, journal: &purchase.journal, token: token, fact: fact, nowMs: nowMs) : []
            let events = purchase.receive(fact) ?? []
            effects += deliver(events, journal: &purchase.journal, nowMs: nowMs)
            oneTimePurchases[id] = purchase
            return effects
        }
    }

    /// A subscription seen for the first time; after an Advanced Commerce migration it keeps the
    /// owner of the subscription it replaced (`previousOriginalTransactionId`).
    private mutating func newSubscription(_ id: String, from fact: PurchaseFact) -> SubscriptionState {
        var subscription = SubscriptionState(originalTransactionId: id)
        if let previous = fact.transaction?.previousOriginalTransactionId,
            let owner = subscriptions[previous]?.journal.ownerAppUserId
        {
            subscription.journal.ownerAppUserId = owner
            customers[owner]?.add(.subscription(originalTransactionId: id))
        }
        return subscription
    }

    // MARK: - Routing

    /// The purchase a transaction (or renewal info) is about, or nil for none.
    ///
    /// `ONE_TIME_CHARGE` and consumable, non-consumable and non-renewing transactions are one-time
    /// purchases keyed by `transactionId`; everything else is a subscription keyed by
    /// `originalTransactionId`. A transaction without `type` is a subscription when it expires.
    public static func purchaseKey(
        of transaction: JWSTransactionDecodedPayload?, renewalInfo: JWSRenewalInfoDecodedPayload?,
        type: NotificationTypeV2?
    ) -> PurchaseKey? {
        if let transaction {
            let oneTimeTypes: [ProductType] = [.consumable, .nonConsumable, .nonRenewable]
            let isOneTime =
                type == .oneTimeCharge
                || transaction.type.map(oneTimeTypes.contains)
                    ?? (transaction.expiresDate == nil && renewalInfo == nil)
            if isOneTime { return transaction.transactionId.map { .oneTime(transactionId: $0) } }
            if let id = transaction.originalTransactionId ?? renewalInfo?.originalTransactionId {
                return .subscription(originalTransactionId: id)
            }
        }
        return renewalInfo?.originalTransactionId.map { .subscription(originalTransactionId: $0) }
    }
}
