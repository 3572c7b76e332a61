import AppStore
import JSON

/// `advanced_commerce` under a subscription in `GET /v1/subscribers`: what an Advanced Commerce
/// subscription is made of now, and what changes at the next renewal.
extension SubscriberInfo {
    /// Nil for a subscription without `advancedCommerceInfo` (the key is then left out).
    static func advancedCommerce(_ subscription: SubscriptionState) -> JSONValue? {
        guard let current = subscription.advancedCommerce else { return nil }
        let currency = subscription.currency
        let items = (current.items ?? []).filter { $0.revocationDate == nil }.map { item in
            itemJSON(sku: item.sku, displayName: item.displayName, priceMilliunits: item.price, currency: currency)
        }
        var object: [String: JSONValue] = [
            "items": .array(items),
            "period": current.period.map { .string($0.rawValue) } ?? .null,
            "request_reference_id": current.requestReferenceId.map(JSONValue.string) ?? .null,
        ]
        object["scheduled_changes"] = scheduledChanges(current, subscription.renewalAdvancedCommerce, currency: currency)
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
                    itemJSON(sku: $0.sku, displayName: $0.displayName, priceMilliunits: $0.price, currency: currency)
                }),
            "period": renewal.period.map { .string($0.rawValue) } ?? .null,
        ])
    }

    private static func itemJSON(sku: String?, displayName: String?, priceMilliunits: Int64?, currency: String?) -> JSONValue {
        .object([
            "SKU": sku.map(JSONValue.string) ?? .null,
            "display_name": displayName.map(JSONValue.string) ?? .null,
            "price": price(priceMilliunits, currency),
        ])
    }
}
