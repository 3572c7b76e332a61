/// Who a customer is: its ids and aliases, merges, deletion (RevenueCat's identity model).
///
/// A customer is stored under one `app_user_id`; every other id it is known by is an alias of it
/// (`CustomerState.aliases`, `aliasOwners`), usable wherever an id is. Ids merge, with no
/// TRANSFER, when the app posts a purchase an anonymous customer owns, or when asked (alias).
extension Ledger {
    /// The prefixes of ids no one identified: RevenueDot's, for a purchase nobody claimed, and
    /// RevenueCat's SDK's, for an app user who has not logged in.
    public static let anonymousPrefixes = [CustomerState.anonymousPrefix, AnonymousIds.revenueCatPrefix]

    /// Whether nobody identified the customer this id names.
    public static func isAnonymous(_ appUserId: String) -> Bool {
        anonymousPrefixes.contains { appUserId.hasPrefix($0) }
    }

    /// The customer `appUserId` names now: itself, or the customer it is an alias of.
    public func customerId(_ appUserId: String) -> String { aliasOwners[appUserId] ?? appUserId }

    /// The customer ids an `appAccountToken` may name: itself, and in lower case a UUID written otherwise.
    public static func tokenCustomerIds(_ token: String?) -> [String] {
        guard let token, !token.isEmpty else { return [] }
        let lower = token.lowercased()
        return lower == token || !isUUID(token) ? [token] : [token, lower]
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hexadecimal form (any case).
    public static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Applies a customer action.
    mutating func act(_ action: CustomerAction, nowMs: Int64) -> [Effect] {
        switch action {
        case .seen(let appUserId):
            ensureCustomer(customerId(appUserId), nowMs: nowMs)
        case .aliased(let appUserId, let newAppUserId):
            // The identified id keeps the customer; otherwise the one the request is about.
            if Self.isAnonymous(customerId(appUserId)), !Self.isAnonymous(customerId(newAppUserId)) {
                merge(appUserId, into: newAppUserId, nowMs: nowMs)
            } else {
                merge(newAppUserId, into: appUserId, nowMs: nowMs)
            }
        case .loggedIn(let appUserId, let newAppUserId):
            logIn(from: appUserId, to: newAppUserId, nowMs: nowMs)
        case .deleted(let appUserId):
            delete(appUserId)
        case .appTransactionPosted(let appUserId, let version, let purchased):
            let id = customerId(appUserId)
            ensureCustomer(id, nowMs: nowMs)
            customers[id]?.originalApplicationVersion = version
            customers[id]?.originalPurchaseDateMs = purchased
        case .promotionalGranted(let appUserId, let grant):
            return grantPromotional(grant, to: customerId(appUserId), nowMs: nowMs)
        case .promotionalsRevoked(let appUserId, let entitlementId):
            return revokePromotionals(entitlementId, of: customerId(appUserId), nowMs: nowMs)
        case .offeringOverridden(let appUserId, let offeringId):
            let id = customerId(appUserId)
            ensureCustomer(id, nowMs: nowMs)
            customers[id]?.offeringOverride = offeringId
        case .attributesSet(let appUserId, let updates):
            let id = customerId(appUserId)
            ensureCustomer(id, nowMs: nowMs)
            let merged = SubscriberAttribute.merging(updates, into: customers[id]?.attributes ?? [:])
            customers[id]?.attributes = merged.isEmpty ? nil : merged
        }
        return []
    }

    /// Makes `sourceId`'s customer part of `targetId`'s: its ids become aliases, its purchases
    /// move without a TRANSFER (the slice holds them: `Input.movesEveryPurchaseOfCustomers`).
    ///
    /// Refused, changing nothing, when the one customer would be known by more ids than
    /// `CustomerIdCap` allows: false then (true when merged, or already one customer). Each
    /// caller says what happens instead: a log-in merges nothing, a posted purchase moves alone,
    /// and the API refuses an alias before it is kept.
    @discardableResult
    mutating func merge(_ sourceId: String, into targetId: String, nowMs: Int64) -> Bool {
        let (source, target) = (customerId(sourceId), customerId(targetId))
        guard source != target else { return true }
        guard !CustomerIdCap.refusesJoining(customers[source], named: sourceId, customers[target], otherNamed: targetId)
        else { return false }
        ensureCustomer(target, nowMs: nowMs)
        var ids = [sourceId, source]
        if let merged = customers.removeValue(forKey: source) {
            ids += merged.aliases
            // Its events go on from the higher of the two counts, so that no number comes twice
            // for the customer the two now are (the longer of the two runs stays gapless).
            if let kept = customers[target], merged.lastSequence > kept.lastSequence {
                customers[target]?.lastSequence = merged.lastSequence
            }
            // The older of the two gives the first id; at the same time, an anonymous one (it was
            // there before the customer logged in).
            if let kept = customers[target],
                merged.firstSeenMs < kept.firstSeenMs
                    || (merged.firstSeenMs == kept.firstSeenMs && Self.isAnonymous(merged.firstAppUserId))
            {
                customers[target]?.firstSeenMs = merged.firstSeenMs
                customers[target]?.originalAppUserId = merged.firstAppUserId
            }
            if let grants = merged.promotionalGrants {
                let kept = customers[target]?.promotionalGrants ?? []
                customers[target]?.promotionalGrants = kept + grants
            }
            // The customer kept keeps its own choice of offering; one it had not made comes along.
            if customers[target]?.offeringOverride == nil, let chosen = merged.offeringOverride {
                customers[target]?.offeringOverride = chosen
            }
            if let attributes = merged.attributes {
                let kept = customers[target]?.attributes ?? [:]
                customers[target]?.attributes = SubscriberAttribute.merging(attributes, into: kept)
            }
            for id in merged.originalTransactionIds {
                subscriptions[id]?.journal.ownerAppUserId = target
                customers[target]?.add(.subscription(originalTransactionId: id))
            }
            for id in merged.oneTimeTransactionIds {
                oneTimePurchases[id]?.journal.ownerAppUserId = target
                customers[target]?.add(.oneTime(transactionId: id))
            }
        }
        for id in ids where id != target {
            customers[target]?.aliases.insertSorted(id)
            aliasOwners[id] = target
        }
        return true
    }

    /// RevenueCat's `logIn`: an anonymous customer merges into the identified one it logs in to
    /// when that one is new, or has no anonymous id among its own yet (its first device); else
    /// (an identified customer switching accounts, a second anonymous device) nothing merges and
    /// the one logged in to is made if unknown.
    mutating func logIn(from appUserId: String, to newAppUserId: String, nowMs: Int64) {
        let (current, provided) = (customerId(appUserId), customerId(newAppUserId))
        let providedHasAnonymousId = customers[provided].map { customer in
            Self.isAnonymous(customer.appUserId) || customer.aliases.contains(where: Self.isAnonymous)
        }
        let merges = Self.isAnonymous(current) && !Self.isAnonymous(provided) && providedHasAnonymousId != true
        // A merge the cap on ids refuses (`merge`) merges nothing, as for a second anonymous device.
        if !(merges && merge(appUserId, into: newAppUserId, nowMs: nowMs)) { ensureCustomer(provided, nowMs: nowMs) }
    }

    /// Erases a customer: its row and aliases go, its purchases are left with no owner (their
    /// next events wait for a link, or go to a new anonymous customer when tracking is on).
    mutating func delete(_ appUserId: String) {
        guard let customer = customers.removeValue(forKey: customerId(appUserId)) else { return }
        for id in customer.originalTransactionIds { subscriptions[id]?.journal.ownerAppUserId = nil }
        for id in customer.oneTimeTransactionIds { oneTimePurchases[id]?.journal.ownerAppUserId = nil }
        for alias in customer.aliases { aliasOwners[alias] = nil }
    }
}
