import AppStore

/// Who a purchase belongs to, and where its events go.
///
/// A purchase becomes a customer's (a) when the app posts its transaction or links it for that
/// customer, (b) when a notification's `appAccountToken` equals an existing customer's
/// `app_user_id`, or (c) with `trackNewPurchasesFromServerNotifications` on, when a notification
/// arrives for a purchase nobody claimed: it then goes to a new anonymous customer. With the
/// switch off such a purchase is folded as usual but its events are held, and released in order,
/// stamped for the owner, when it is linked. A purchase owned by someone else moves, with a
/// `TRANSFER` to the new owner, as `restoreBehavior` allows, unless its owner was anonymous:
/// that customer is then merged into the new one (`Ledger+Identity`).
extension Ledger {
    /// Links `key` to `appUserId` (creating the customer): an anonymous owner is merged into it,
    /// another owner loses it with a TRANSFER as `restoreBehavior` allows.
    ///
    /// `evidence`: the transaction the input brings (a post, an answer of Apple's), which may show
    /// access the stored state does not know of yet (a renewal whose notification was missed).
    /// `offering`: the offering the poster says the purchase was sold from, kept with it once
    /// linked (not when refused), so that the events released or made from then on carry it.
    mutating func link(
        _ key: PurchaseKey, to appUserId: String, evidence: JWSTransactionDecodedPayload? = nil, offering: String? = nil,
        nowMs: Int64
    ) -> [Effect] {
        let target = customerId(appUserId)
        ensureCustomer(target, nowMs: nowMs)
        switch key {
        case .subscription(let id):
            var subscription = subscriptions[id] ?? SubscriptionState(originalTransactionId: id)
            let access = subscription.hasAccess(atMs: nowMs) || Self.givesAccess(evidence, atMs: nowMs)
            if let kept = keptWith(subscription.journal, of: key, from: target, givesAccess: access) {
                return [.linkRefused(key, keptWith: kept)]
            }
            if let offering { subscription.journal.presentedOfferingId = offering }
            let effects = move(
                key, journal: &subscription.journal, to: target, environment: subscription.environment, nowMs: nowMs)
            subscriptions[id] = subscription
            return effects
        case .oneTime(let id):
            var purchase = oneTimePurchases[id] ?? OneTimePurchase(transactionId: id)
            // RevenueCat: "the presence of one-time (non-subscription) purchases does not prevent
            // transfers": only an active subscription keeps a purchase under transferIfNoActive,
            // and RevenueCat moves an Apple account's purchases together, so the owner's active
            // subscription keeps this one too (the slice holds them: `needsSubscriptions`).
            let active = purchase.journal.ownerAppUserId.map {
                holdsActiveSubscription($0, environment: purchase.environment, atMs: nowMs)
            }
            if let kept = keptWith(purchase.journal, of: key, from: target, givesAccess: active ?? false) {
                return [.linkRefused(key, keptWith: kept)]
            }
            if let offering { purchase.journal.presentedOfferingId = offering }
            let effects = move(key, journal: &purchase.journal, to: target, environment: purchase.environment, nowMs: nowMs)
            oneTimePurchases[id] = purchase
            return effects
        }
    }

    /// Whether `owner` holds a subscription giving access at `nowMs` in `environment` (an Apple
    /// account's purchases share one; any when it is unknown).
    private func holdsActiveSubscription(_ owner: String, environment: AppStoreEnvironment?, atMs nowMs: Int64) -> Bool {
        subscriptions.values.contains { subscription in
            subscription.journal.ownerAppUserId == owner && subscription.hasAccess(atMs: nowMs)
                && (environment == nil || subscription.environment == nil || subscription.environment == environment)
        }
    }

    /// Whether a subscription's posted transaction shows its owner access at `nowMs` the stored
    /// state does not know of (a renewal whose notification was missed): not expired, not
    /// revoked, and not a purchase. A purchase of a subscription whose stored period has lapsed
    /// is a resubscription by whoever holds the Apple account now, the poster: it is not the
    /// owner's access, or `transferIfNoActive` would keep what the poster just paid for with the
    /// customer whose subscription had lapsed.
    static func givesAccess(_ transaction: JWSTransactionDecodedPayload?, atMs nowMs: Int64) -> Bool {
        guard let transaction, transaction.revocationDate == nil, let expires = transaction.expiresDate,
            transaction.transactionReason != .purchase
        else { return false }
        return expires > nowMs
    }

    /// The identified customer `restoreBehavior` keeps the purchase with instead of giving it to
    /// `target`; nil when it goes to `target`, or is `target`'s already.
    ///
    /// A customer tracking made from the purchase's token and nothing else has touched
    /// (`isTokenPlaceholder`) is not kept: the app's post and Apple's notification race, and the
    /// purchase must end with the poster whichever arrives first, as it does when the post does.
    private func keptWith(_ journal: PurchaseJournal, of key: PurchaseKey, from target: String, givesAccess: Bool)
        -> String?
    {
        guard let owner = journal.ownerAppUserId, owner != target, !Self.isAnonymous(owner),
            !isTokenPlaceholder(owner, of: key)
        else { return nil }
        switch configuration.restoreBehavior {
        case .transfer: return nil
        case .keepWithOriginal: return owner
        case .transferIfNoActive: return givesAccess ? owner : nil
        }
    }

    /// Claims an unowned purchase for the customer its token names, else with tracking on for
    /// the customer a UUID token will be (created, in lower case), else an anonymous one.
    ///
    /// A purchase tracking gave an anonymous customer of its own (`isPlaceholder`) is claimed
    /// too, by a fact whose token names a customer: the fact that made the placeholder came
    /// first only because it arrived first (a plan change before the purchase's own notice),
    /// and the purchase ends with the token's customer in every order. The placeholder merges
    /// into it, as an anonymous owner does.
    mutating func claim(
        _ key: PurchaseKey, journal: inout PurchaseJournal, token: String?, fact: PurchaseFact, nowMs: Int64
    ) -> [Effect] {
        guard journal.ownerAppUserId == nil || isPlaceholder(journal.ownerAppUserId, of: key) else { return [] }
        for id in Self.tokenCustomerIds(token) where customers[customerId(id)] != nil {
            return moveKeepingIdentity(key, journal: &journal, to: customerId(id), nowMs: nowMs)
        }
        guard configuration.trackNewPurchasesFromServerNotifications else { return [] }
        if let token, Self.isUUID(token) {
            let named = customerId(token.lowercased())
            if customers[named] == nil {
                ensureCustomer(named, nowMs: nowMs)
                customers[named]?.madeByTracking = true
            }
            return moveKeepingIdentity(key, journal: &journal, to: named, nowMs: nowMs)
        }
        guard journal.ownerAppUserId == nil else { return [] }
        let anonymous = configuration.anonymousIds.id(for: key, originalTransactionId: fact.transaction?.originalTransactionId)
        ensureCustomer(anonymous, nowMs: nowMs)
        return move(key, journal: &journal, to: anonymous, environment: nil, nowMs: nowMs)
    }

    /// `move`, where the customer keeps its first id and first-seen time: a placeholder merged in
    /// came first only by arriving first, so it does not become the customer's first id (in
    /// signed order it never existed).
    private mutating func moveKeepingIdentity(
        _ key: PurchaseKey, journal: inout PurchaseJournal, to appUserId: String, nowMs: Int64
    ) -> [Effect] {
        let identity = customers[appUserId].map { ($0.firstSeenMs, $0.originalAppUserId) }
        let effects = move(key, journal: &journal, to: appUserId, environment: nil, nowMs: nowMs)
        if let (firstSeenMs, originalAppUserId) = identity {
            customers[appUserId]?.firstSeenMs = firstSeenMs
            customers[appUserId]?.originalAppUserId = originalAppUserId
        }
        return effects
    }

    /// Whether `owner` is an anonymous customer tracking made for `key` alone: the id tracking
    /// gives it (`AnonymousIds`), this purchase and nothing else, no other id, no grant or attribute.
    func isPlaceholder(_ owner: String?, of key: PurchaseKey) -> Bool {
        guard let owner, configuration.anonymousIds.isMade(owner, for: key), let customer = customers[owner] else {
            return false
        }
        return customer.holdsOnly([key])
    }

    /// Whether `owner` is a customer tracking made from a UUID token that the app has not acted
    /// as, holding `key` alone (nothing, for nil): no other id, purchase, grant, attribute or
    /// AppTransaction.
    func isTokenPlaceholder(_ owner: String, of key: PurchaseKey?) -> Bool {
        guard let customer = customers[owner], customer.madeByTracking == true else { return false }
        return customer.holdsOnly(key.map { [$0] } ?? []) && customer.originalApplicationVersion == nil
    }

    /// Makes `appUserId` the owner: releases held events, merges an anonymous owner into it, or
    /// records a transfer.
    private mutating func move(
        _ key: PurchaseKey, journal: inout PurchaseJournal, to appUserId: String,
        environment: AppStoreEnvironment?, nowMs: Int64
    ) -> [Effect] {
        let previous = journal.ownerAppUserId
        guard previous != appUserId else { return [] }
        if let previous { customers[previous]?.remove(key) }
        customers[appUserId]?.add(key)
        journal.ownerAppUserId = appUserId
        guard let previous else {
            let held = journal.heldEvents
            journal.heldEvents = []
            return deliver(held, journal: &journal, nowMs: nowMs)
        }
        // As RevenueCat: an anonymous owner becomes an alias of the new one, with what else it owns.
        // Where the cap on ids refuses the merge (`merge`), the purchase has moved alone, with no
        // TRANSFER: the anonymous customer keeps its ids and what else it owns.
        if Self.isAnonymous(previous) {
            merge(previous, into: appUserId, nowMs: nowMs)
            return []
        }
        journal.transferCount += 1
        var transfer = Event(type: .transfer, id: EventID.make(cause: "\(key.id)/TRANSFER/\(journal.transferCount)"))
        transfer.environment = environment.map(EventEnvironment.init)
        transfer.transferredFrom = [previous]
        transfer.transferredTo = [appUserId]
        // Tracking's customer for this purchase's token, left with nothing: gone, as if the
        // post had come before the notification that made it.
        if isTokenPlaceholder(previous, of: nil) { customers[previous] = nil }
        guard journal.recordEmission(transfer.id) else { return [] }
        return deliver([transfer], journal: &journal, nowMs: nowMs)
    }

    /// Stamps events for the purchase's owner and returns them as effects, or holds them. Events
    /// about the purchase (a TRANSFER is not) carry the offering it was sold from, when known by
    /// now: held events made before the app posted it included.
    mutating func deliver(_ events: [Event], journal: inout PurchaseJournal, nowMs: Int64) -> [Effect] {
        guard let owner = journal.ownerAppUserId else {
            journal.heldEvents += events
            return []
        }
        ensureCustomer(owner, nowMs: nowMs)
        return events.map { event in
            var event = event
            if event.type != .transfer { event.presentedOfferingId = journal.presentedOfferingId }
            return .emit(stamp(event, for: owner, nowMs: nowMs))
        }
    }

    /// `event` made for `owner` now: app, time, the customer's next sequence, its ids and
    /// attributes, the entitlements of its product (none from a non-production purchase the
    /// customer has no sandbox access for), commission and price in dollars.
    mutating func stamp(_ event: Event, for owner: String, nowMs: Int64) -> Event {
        var stamped = event
        stamped.appId = configuration.appId
        stamped.eventTimestampMs = nowMs
        stamped.sequence = customers[owner]?.nextSequence()
        if event.type != .transfer {
            stamped.appUserId = owner
            stamped.originalAppUserId = customers[owner]?.firstAppUserId ?? owner
            stamped.aliases = customers[owner]?.aliases
            stamped.subscriberAttributes = SubscriberAttribute.shown(customers[owner]?.attributes)
        }
        stamped.entitlementIds = stamped.entitlementIds ?? configuration.entitlementIds(for: event.productId)
        // A non-production purchase of a customer without sandbox access grants nothing.
        if event.environment == .sandbox, !configuration.sandboxAccess.grants(customers[owner], appUserId: owner) {
            stamped.entitlementIds = nil
        }
        if configuration.smallBusinessProgram, stamped.takehomePercentage != nil {
            stamped.setCommission(nominal: Event.reducedCommission)
        }
        stamped.convertPrice(usdRates: configuration.usdExchangeRates)
        return stamped
    }

    /// The customer with this id, created with `firstSeenMs = nowMs` if new.
    mutating func ensureCustomer(_ appUserId: String, nowMs: Int64) {
        if customers[appUserId] == nil {
            customers[appUserId] = CustomerState(appUserId: appUserId, firstSeenMs: nowMs)
        }
    }
}
