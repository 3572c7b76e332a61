import AppStore
import JSON

/// `advanced_commerce` under a subscription in `GET /v1/subscribers`: what an Advanced Commerce
/// subscription is made of now, and what changes at the next renewal, if it renews. Each item has its price
/// and, while a discount runs, its `offer` (the price charged per offer period, how many, why),
/// so the items add up to what the period charged.
extension SubscriberInfo {
    /// Nil for a subscription without `advancedCommerceInfo` (the key is then left out).
    static func advancedCommerce(_ subscription: SubscriptionState) -> JSONValue? {
        guard let current = subscription.advancedCommerce else { return nil }
        let currency = subscription.currency
        let items = (current.items ?? []).filter { $0.revocationDate == nil }.map { item in
            itemJSON(
                sku: item.sku, displayName: item.displayName, priceMilliunits: item.price, offer: item.offer, currency: currency)
        }
        var object: [String: JSONValue] = [
            "items": .array(items),
            "period": current.period.map { .string($0.rawValue) } ?? .null,
            "request_reference_id": current.requestReferenceId.map(JSONValue.string) ?? .null,
        ]
        // With auto-renew off nothing renews: a change scheduled before is not shown as coming.
        object["scheduled_changes"] =
            subscription.autoRenewEnabled == false
            ? .null : scheduledChanges(current, subscription.renewalAdvancedCommerce, currency: currency)
        return .object(object)
    }

    /// What renews differently from now (items or period), or null when nothing is scheduled.
    private static func scheduledChanges(
        _ current: TransactionAdvancedCommerceInfo, _ renewal: RenewalAdvancedCommerceInfo?, currency: String?
    ) -> JSONValue {
        guard let renewal else { return .null }
        let now = (current.items ?? []).filter { $0.revocationDate == nil }.map { "\($0.sku ?? "")|\($0.price ?? 0)" }
        let next = (renewal.items ?? []).map { "\($0.sku ?? "")|\($0.price ?? 0)" }
        let periodChanges = renewal.period != nil && renewal.period != current.period
        guard Set(now) != Set(next) || periodChanges else { return .null }
        return .object([
            "items": .array(
                (renewal.items ?? []).map {
                    itemJSON(
                        sku: $0.sku, displayName: $0.displayName, priceMilliunits: $0.price, offer: $0.offer, currency: currency)
                }),
            "period": renewal.period.map { .string($0.rawValue) } ?? .null,
        ])
    }

    private static func itemJSON(
        sku: String?, displayName: String?, priceMilliunits: Int64?, offer: AdvancedCommerceOffer?, currency: String?
    ) -> JSONValue {
        .object([
            "SKU": sku.map(JSONValue.string) ?? .null,
            "display_name": displayName.map(JSONValue.string) ?? .null,
            "price": price(priceMilliunits, currency),
            "offer": offer.map { offer in
                .object([
                    "price": price(offer.price, currency),
                    "period": offer.period.map { .string($0.rawValue) } ?? .null,
                    "period_count": offer.periodCount.map { .integer(Int64($0)) } ?? .null,
                    "reason": offer.reason.map { .string($0.rawValue) } ?? .null,
                ])
            } ?? .null,
        ])
    }
}
