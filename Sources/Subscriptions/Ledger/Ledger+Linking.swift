import AppStore

/// Who a purchase belongs to, and where its events go.
///
/// A purchase becomes a customer's (a) when the app posts its transaction or links it for that
/// customer, (b) when a notification's `appAccountToken` equals an existing customer's
/// `app_user_id`, or (c) with `trackNewPurchasesFromServerNotifications` on, when a notification
/// arrives for a purchase nobody claimed: it then goes to a new anonymous customer. With the
/// switch off such a purchase is folded as usual but its events are held, and released in order,
/// stamped for the owner, when it is linked. A purchase owned by someone else moves, with a
/// `TRANSFER` to the new owner.
extension Ledger {
    /// Links `key` to `appUserId` (creating the customer), transferring it if someone else owned it.
    mutating func link(_ key: PurchaseKey, to appUserId: String, nowMs: Int64) -> [Effect] {
        ensureCustomer(appUserId, nowMs: nowMs)
        switch key {
        case .subscription(let id):
            var subscription = subscriptions[id] ?? SubscriptionState(originalTransactionId: id)
            let effects = move(
                key, journal: &subscription.journal, to: appUserId, environment: subscription.environment, nowMs: nowMs)
            subscriptions[id] = subscription
            return effects
        case .oneTime(let id):
            var purchase = oneTimePurchases[id] ?? OneTimePurchase(transactionId: id)
            let effects = move(key, journal: &purchase.journal, to: appUserId, environment: purchase.environment, nowMs: nowMs)
            oneTimePurchases[id] = purchase
            return effects
        }
    }

    /// Claims an unowned purchase for the customer its token names, or an anonymous one.
    mutating func claim(
        _ key: PurchaseKey, journal: inout PurchaseJournal, token: String?, fact: PurchaseFact, nowMs: Int64
    ) -> [Effect] {
        guard journal.ownerAppUserId == nil else { return [] }
        if let token, customers[token] != nil {
            return move(key, journal: &journal, to: token, environment: nil, nowMs: nowMs)
        }
        guard configuration.trackNewPurchasesFromServerNotifications else { return [] }
        let anonymous = CustomerState.anonymousPrefix + (fact.transaction?.originalTransactionId ?? key.id)
        ensureCustomer(anonymous, nowMs: nowMs)
        return move(key, journal: &journal, to: anonymous, environment: nil, nowMs: nowMs)
    }

    /// Makes `appUserId` the owner: releases held events, or records a transfer.
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
        journal.transferCount += 1
        var transfer = Event(type: .transfer, id: EventID.make(cause: "\(key.id)/TRANSFER/\(journal.transferCount)"))
        transfer.environment = environment.map(EventEnvironment.init)
        transfer.transferredFrom = [previous]
        transfer.transferredTo = [appUserId]
        guard journal.recordEmission(transfer.id) else { return [] }
        return deliver([transfer], journal: &journal, nowMs: nowMs)
    }

    /// Stamps events for the purchase's owner and returns them as effects, or holds them.
    mutating func deliver(_ events: [Event], journal: inout PurchaseJournal, nowMs: Int64) -> [Effect] {
        guard let owner = journal.ownerAppUserId else {
            journal.heldEvents += events
            return []
        }
        ensureCustomer(owner, nowMs: nowMs)
        return events.map { event in
            var stamped = event
            stamped.appId = configuration.appId
            stamped.eventTimestampMs = nowMs
            stamped.sequence = customers[owner]?.nextSequence()
            if event.type != .transfer {
                stamped.appUserId = owner
                stamped.originalAppUserId = owner
                stamped.aliases = customers[owner]?.aliases
            }
            stamped.entitlementIds = configuration.entitlementIds(for: event.productId)
            return .emit(stamped)
        }
    }

    /// The customer with this id, created with `firstSeenMs = nowMs` if new.
    mutating func ensureCustomer(_ appUserId: String, nowMs: Int64) {
        if customers[appUserId] == nil {
            customers[appUserId] = CustomerState(appUserId: appUserId, firstSeenMs: nowMs)
        }
    }
}
