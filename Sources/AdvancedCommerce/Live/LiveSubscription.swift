/// What RevenueDot knows of the subscription a modify request targets, from the latest signed
/// transaction and renewal info Apple sent for it.
public struct LiveSubscription: Sendable, Equatable {
    /// Every transaction id of the subscription (the original one included): a request may name any.
    public var transactionIds: Set<String>
    /// The SKUs of the items the customer has now (revoked ones excluded).
    public var items: [String]
    /// The SKUs set to renew (the latest renewal info's items), when Apple gave them: a scheduled
    /// change shows here before it takes effect.
    public var renewingItems: [String]?
    /// `advancedCommerceInfo.consistencyToken` of the latest renewal info, if any.
    public var consistencyToken: String?
    /// Whether the subscription gives access now.
    public var isActive: Bool
    /// Whether it renews at the end of the period (the latest renewal info's `autoRenewStatus`).
    public var autoRenews: Bool
    /// Whether the customer bought it: false for a family member's access through Family
    /// Sharing (the latest transaction's `inAppOwnershipType` FAMILY_SHARED), which only the
    /// purchaser may change, reactivate or buy again.
    public var isPurchased: Bool
    /// The latest transaction's currency, when Apple gave it: the unit of a modify request's
    /// prices when the request names none. (Neither it nor the storefront is held against the
    /// request: Apple asks for the customer's current storefront, which changes when they move
    /// App Store country, and only Apple knows it.)
    public var currency: String?
    /// Each current item's price, by SKU, and the SKUs whose current period runs under an offer.
    public var prices: [String: Int64]
    public var offered: Set<String>

    public init(
        transactionIds: Set<String>, items: [String], consistencyToken: String?, isActive: Bool, autoRenews: Bool = true,
        isPurchased: Bool = true, currency: String? = nil, prices: [String: Int64] = [:], offered: Set<String> = [],
        renewingItems: [String]? = nil
    ) {
        self.transactionIds = transactionIds
        self.items = items
        self.renewingItems = renewingItems
        self.consistencyToken = consistencyToken
        self.isActive = isActive
        self.autoRenews = autoRenews
        self.isPurchased = isPurchased
        self.currency = currency
        self.prices = prices
        self.offered = offered
    }

    /// Gives a request's `requestInfo` this subscription's consistency token when the caller left
    /// it out. One the caller gave is kept: it may come from renewal info newer than what RevenueDot
    /// has received (a notification Apple has yet to retry), so only Apple can tell it stale.
    func fillConsistencyToken(_ info: inout RequestInfo?) {
        if info != nil, info?.consistencyToken == nil { info?.consistencyToken = consistencyToken }
    }
}

/// Checks a modify request against the customer's live subscription, after the request-only
/// rules (`AdvancedCommerceValidator`).
public enum LiveValidator {
    /// The request with `requestInfo.consistencyToken` filled from the renewal info when the
    /// caller left it out, and every live-state error found.
    ///
    /// - Parameters:
    ///   - subscriptions: the customer's Advanced Commerce subscriptions; the request's
    ///     `transactionId` must belong to one of them.
    ///   - usedRequestReferenceIds: ids of requests already signed for this app.
    public static func validate(
        _ request: SubscriptionModifyInAppRequest, subscriptions: [LiveSubscription], usedRequestReferenceIds: Set<String>
    ) -> (request: SubscriptionModifyInAppRequest, errors: [ValidationError]) {
        var request = request
        var (live, errors) = locate(
            request.transactionId, reference: request.requestInfo?.requestReferenceId, in: subscriptions,
            used: usedRequestReferenceIds)
        guard let live else { return (request, errors) }
        if !live.isActive { errors.append(ValidationError(.inactiveACASub, field: "transactionId")) }
        live.fillConsistencyToken(&request.requestInfo)
        // Without a currency of its own, the request's prices are in the subscription's: the
        // decimals that currency allows, which the request-only rules could not check, apply.
        if request.currency == nil, let currency = live.currency {
            var priced = request
            priced.currency = currency
            let found = Set(request.validationErrors())
            errors += priced.validationErrors().filter { !found.contains($0) }
        }
        let current = Set(live.items)
        for (index, item) in (request.changeItems ?? []).enumerated() {
            if let sku = item.currentSKU, !current.contains(sku) {
                errors.append(ValidationError(.changeItemNotFound, field: "changeItems[\(index)].currentSKU", detail: sku))
            }
            // Changing an item into another the customer already has would hold one SKU twice.
            if let sku = item.sku, sku != item.currentSKU, current.contains(sku) {
                errors.append(ValidationError(.productAlreadyExists, field: "changeItems[\(index)].SKU", detail: sku))
            }
            // The same item at another price is a price change, which Apple's Change Subscription
            // Price does; prices compare only in one currency (a customer who moved country pays
            // in another) and one period (a price is per period: a period change prices it anew).
            if let sku = item.sku, sku == item.currentSKU, let price = item.price, let now = live.prices[sku], price != now,
                request.currency == nil || request.currency == live.currency, request.periodChange == nil
            {
                errors.append(
                    ValidationError(
                        .priceChangeNotSupportedThroughModifyItems, field: "changeItems[\(index)].price",
                        detail: "\(sku) costs \(now) now."))
            }
            if item.effective == .immediately, let sku = item.currentSKU, live.offered.contains(sku) {
                errors.append(
                    ValidationError(.offerPreventsItemMidCycleChange, field: "changeItems[\(index)].currentSKU", detail: sku))
            }
        }
        for (index, item) in (request.removeItems ?? []).enumerated() {
            if let sku = item.sku, !current.contains(sku) {
                errors.append(ValidationError(.removeItemNotFound, field: "removeItems[\(index)].SKU", detail: sku))
            }
        }
        for (index, item) in (request.addItems ?? []).enumerated() {
            if let sku = item.sku, current.contains(sku) {
                errors.append(ValidationError(.productAlreadyExists, field: "addItems[\(index)].SKU", detail: sku))
            }
        }
        let removed = Set((request.removeItems ?? []).compactMap(\.sku))
        if !current.isEmpty, current.isSubset(of: removed), (request.addItems ?? []).isEmpty, (request.changeItems ?? []).isEmpty
        {
            errors.append(ValidationError(.removeAllItemsNotAllowed, field: "removeItems"))
        }
        if request.periodChange != nil {
            let changed = Set((request.changeItems ?? []).compactMap(\.currentSKU))
            for sku in live.items where !changed.contains(sku) {
                errors.append(
                    ValidationError(
                        .missingUpdatedItemsWithPeriodChange, field: "changeItems",
                        detail: "Current item \(sku) is not in changeItems."))
            }
        }
        return (request, errors)
    }
}

extension LiveValidator {
    /// A reactivation names a transaction of one of the customer's subscriptions: one still
    /// active whose auto-renew is off (Apple: "reactivate a subscription that has automatic
    /// renewal turned off"). One that renews anyway is `SubscriptionAlreadyActiveError`; one that
    /// has lapsed is `InactiveACASubError` (it comes back with a create request naming
    /// `previousTransactionId`). Items named must be the ones set to renew (4000220): the
    /// renewal info's items when Apple gave them (a scheduled downgrade's new tier), else the
    /// current ones.
    public static func validate(
        _ request: SubscriptionReactivateInAppRequest, subscriptions: [LiveSubscription], usedRequestReferenceIds: Set<String>
    ) -> (request: SubscriptionReactivateInAppRequest, errors: [ValidationError]) {
        var request = request
        var (live, errors) = locate(
            request.transactionId, reference: request.requestInfo?.requestReferenceId, in: subscriptions,
            used: usedRequestReferenceIds)
        guard let live else { return (request, errors) }
        if !live.isActive {
            errors.append(ValidationError(.inactiveACASub, field: "transactionId"))
        } else if live.autoRenews {
            errors.append(ValidationError(.subscriptionAlreadyActive, field: "transactionId"))
        }
        // A missing SKU is the request-only rules' error (NullSKUError), not this one.
        let renewing = live.renewingItems ?? live.items
        for (index, item) in (request.items ?? []).enumerated() where item.sku.map({ !renewing.contains($0) }) ?? false {
            errors.append(
                ValidationError(
                    .invalidSKUMustBeCurrentSKUSetToRenew, field: "items[\(index)].SKU",
                    detail: "\(item.sku ?? "") is not set to renew; \(renewing.joined(separator: ", ")) are."))
        }
        live.fillConsistencyToken(&request.requestInfo)
        return (request, errors)
    }
}

extension LiveValidator {
    /// `RepeatedRequestReferenceIdError` when `reference` was used before, for every operation.
    public static func repeatedReference(_ reference: String?, used: Set<String>) -> [ValidationError] {
        guard let reference, used.contains(reference) else { return [] }
        return [ValidationError(.repeatedRequestReferenceId, field: "requestInfo.requestReferenceId")]
    }

    /// The subscription `transactionId` belongs to (else `TransactionIdNotFoundError` at `field`),
    /// `ProductNotOwnedError` when the customer has it through Family Sharing (every request
    /// naming a transaction changes or buys again what only the purchaser owns), and
    /// `RepeatedRequestReferenceIdError` when `reference` was used before.
    static func locate(
        _ transactionId: String?, reference: String?, in subscriptions: [LiveSubscription], used: Set<String>,
        field: String = "transactionId"
    ) -> (LiveSubscription?, [ValidationError]) {
        var errors = repeatedReference(reference, used: used)
        // A missing or empty id is the request's own error (Null/InvalidTransactionIdError), said once.
        guard let transactionId, !transactionId.isEmpty else { return (nil, errors) }
        guard let live = subscriptions.first(where: { $0.transactionIds.contains(transactionId) }) else {
            errors.append(
                ValidationError(
                    .transactionIdNotFound, field: field, detail: "It is not a transaction of this customer's subscriptions."))
            return (nil, errors)
        }
        if !live.isPurchased {
            errors.append(
                ValidationError(
                    .productNotOwned, field: field, detail: "The customer has it through Family Sharing; the purchaser owns it."))
        }
        return (live, errors)
    }
}
