import AdvancedCommerce
import AppStore
import Foundation
import JSON

/// An Advanced Commerce subscription of the simulated App Store (the `commerce-*` stories): the
/// items, period and descriptors of the current period and of the next, as the in-app requests
/// RevenueDot signed made them, and what Apple puts of them in `advancedCommerceInfo`.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercetransactioninfo
struct SimulatedCommerce: Codable, Sendable {
    struct Item: Codable, Hashable, Sendable {
        var sku: String
        var displayName: String?
        var description: String?
        var price: Int64
        /// An offer's price and the periods it has left, this one included.
        var offer: AdvancedCommerceOffer?

        /// What one period of the item costs: the offer's price while the offer runs.
        var periodPrice: Int64 { offer?.price ?? price }

        /// The item a period later: one period fewer of its offer.
        var advanced: Item {
            var next = self
            if let count = offer?.periodCount {
                next.offer =
                    count > 1
                    ? offer.map {
                        var o = $0; o.periodCount = count - 1; return o
                    } : nil
            }
            return next
        }
    }

    /// What a period is made of.
    struct Terms: Codable, Hashable, Sendable {
        var items: [Item]
        var period: AdvancedCommercePeriod
        var displayName: String?
        var description: String?
        /// The `requestReferenceId` of the request that made these terms.
        var requestReferenceId: String

        var priceMilliunits: Int64 { items.reduce(0) { $0 + $1.periodPrice } }
    }

    /// The current period's terms.
    var current: Terms
    /// The next period's terms: the current ones a period on, with the changes scheduled for it.
    var next: Terms
    var taxCode: String?
    /// Apple's guard against requests made from an old view of the subscription; a new one after each change.
    var consistencyToken: String

    /// The subscription a create request makes, or nil for one without items or period.
    init?(_ request: SubscriptionCreateRequest, reference: String) {
        guard let period = request.period, let items = request.items?.compactMap(Self.item), !items.isEmpty else { return nil }
        current = Terms(
            items: items, period: period, displayName: request.descriptors?.displayName,
            description: request.descriptors?.description, requestReferenceId: reference)
        next = current
        next.items = items.map(\.advanced)
        taxCode = request.taxCode
        consistencyToken = Self.newConsistencyToken()
    }

    /// Applies a modify request Apple accepted: what is `IMMEDIATELY` (and added items) changes
    /// the current period and the next; what waits for the `NEXT_BILL_CYCLE`, and removed items,
    /// the next only. Returns whether the current period changed (Apple charges it now).
    mutating func modify(_ request: SubscriptionModifyInAppRequest, reference: String) -> Bool {
        var now = false
        for change in request.changeItems ?? [] {
            guard let current = change.currentSKU, let item = Self.item(change) else { continue }
            let immediately = change.effective == .immediately
            if immediately {
                self.current.items = Self.replacing(current, with: item, in: self.current.items)
                now = true
            }
            next.items = Self.replacing(current, with: immediately ? item.advanced : item, in: next.items)
        }
        for added in request.addItems ?? [] {
            guard let sku = added.sku, let price = added.price else { continue }
            let item = Item(
                sku: sku, displayName: added.displayName, description: added.description, price: price,
                offer: added.offer.map(Self.offer))
            current.items.append(item)
            next.items.append(item.advanced)
            now = true
        }
        let removed = Set((request.removeItems ?? []).compactMap(\.sku))
        next.items.removeAll { removed.contains($0.sku) }
        if let change = request.periodChange, let period = change.period {
            next.period = period
            if change.effective == .immediately {
                current.period = period
                now = true
            }
        }
        if let descriptors = request.descriptors {
            next.displayName = descriptors.displayName ?? next.displayName
            next.description = descriptors.description ?? next.description
            if descriptors.effective == .immediately {
                (current.displayName, current.description) = (next.displayName, next.description)
                now = true
            }
        }
        taxCode = request.taxCode ?? taxCode
        next.requestReferenceId = reference
        if now { current.requestReferenceId = reference }
        consistencyToken = Self.newConsistencyToken()
        return now
    }

    /// The next period begins: its terms become the current ones.
    mutating func renew() {
        current = next
        next.items = current.items.map(\.advanced)
        consistencyToken = Self.newConsistencyToken()
    }

    // MARK: - What Apple signs

    /// The transaction's `advancedCommerceInfo`, tax included in its price (a tax rate of 0).
    var transactionInfo: JSONValue {
        var info = Self.common(current, taxCode: taxCode)
        info["items"] = .array(current.items.map(Self.json))
        info["estimatedTax"] = .integer(0)
        info["taxExclusivePrice"] = .integer(current.priceMilliunits)
        info["taxRate"] = .string("0")
        return .object(info)
    }

    /// The renewal info's `advancedCommerceInfo`: the next period's terms.
    var renewalInfo: JSONValue {
        var info = Self.common(next, taxCode: taxCode)
        info["items"] = .array(next.items.map(Self.json))
        info["consistencyToken"] = .string(consistencyToken)
        return .object(info)
    }

    private static func common(_ terms: Terms, taxCode: String?) -> [String: JSONValue] {
        var info: [String: JSONValue] = [
            "period": .string(terms.period.rawValue), "requestReferenceId": .string(terms.requestReferenceId),
        ]
        var descriptors: [String: JSONValue] = [:]
        descriptors["displayName"] = terms.displayName.map(JSONValue.string)
        descriptors["description"] = terms.description.map(JSONValue.string)
        if !descriptors.isEmpty { info["descriptors"] = .object(descriptors) }
        info["taxCode"] = taxCode.map(JSONValue.string)
        return info
    }

    private static func json(_ item: Item) -> JSONValue {
        var members: [String: JSONValue] = ["SKU": .string(item.sku), "price": .integer(item.price)]
        members["displayName"] = item.displayName.map(JSONValue.string)
        members["description"] = item.description.map(JSONValue.string)
        if let offer = item.offer {
            var fields: [String: JSONValue] = [:]
            fields["period"] = offer.period.map { .string($0.rawValue) }
            fields["periodCount"] = offer.periodCount.map { .integer(Int64($0)) }
            fields["price"] = offer.price.map(JSONValue.integer)
            fields["reason"] = offer.reason.map { .string($0.rawValue) }
            members["offer"] = .object(fields)
        }
        return .object(members)
    }

    // MARK: - From requests

    private static func item(_ created: SubscriptionCreateItem) -> Item? {
        guard let sku = created.sku, let price = created.price else { return nil }
        return Item(
            sku: sku, displayName: created.displayName, description: created.description, price: price,
            offer: created.offer.map(offer))
    }

    private static func item(_ change: SubscriptionModifyChangeItem) -> Item? {
        guard let sku = change.sku, let price = change.price else { return nil }
        return Item(
            sku: sku, displayName: change.displayName, description: change.description, price: price,
            offer: change.offer.map(offer))
    }

    private static func offer(_ offer: Offer) -> AdvancedCommerceOffer {
        AdvancedCommerceOffer(period: offer.period, periodCount: offer.periodCount, price: offer.price, reason: offer.reason)
    }

    /// `items` with the one whose SKU is `sku` replaced by `item` (added when none is).
    private static func replacing(_ sku: String, with item: Item, in items: [Item]) -> [Item] {
        guard let index = items.firstIndex(where: { $0.sku == sku }) else { return items + [item] }
        var replaced = items
        replaced[index] = item
        return replaced
    }

    private static func newConsistencyToken() -> String {
        "1.\(UInt32.random(in: 1...UInt32.max)).\(UUID().uuidString.lowercased())"
    }
}
