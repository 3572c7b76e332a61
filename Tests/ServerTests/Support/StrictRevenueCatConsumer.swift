import AppStore
import Foundation
import JSON

/// A webhook consumer as strict as RevenueCat's documentation allows: every key of an event type
/// is one RevenueCat's sample bodies give that type (no more, no fewer), each of the type the
/// field table gives it, and `null` only where RevenueCat sends null.
///
/// The key sets and types are facts read from RevenueCat's docs (`event-types-and-fields`,
/// `sample-events`, checked 2026-12-03), written down here, not copied sample bodies. `sequence`
/// is RevenueDot's one addition.
enum StrictRevenueCatConsumer {
    enum Kind { case string, integer, number, bool, strings, object, array }

    /// Key → its kind and whether RevenueCat ever sends it as null.
    static let fields: [String: (Kind, nullable: Bool)] = [
        "aliases": (.strings, false), "app_id": (.string, false), "app_user_id": (.string, false),
        "commission_percentage": (.number, true), "country_code": (.string, true), "currency": (.string, true),
        "entitlement_id": (.string, true), "entitlement_ids": (.strings, true), "environment": (.string, false),
        "event_timestamp_ms": (.integer, false), "experiments": (.array, false), "expiration_at_ms": (.integer, true),
        "id": (.string, false), "is_family_share": (.bool, false), "offer_code": (.string, true),
        "original_app_user_id": (.string, false), "original_transaction_id": (.string, false),
        "period_type": (.string, false), "presented_offering_id": (.string, true), "price": (.number, true),
        "price_in_purchased_currency": (.number, true), "product_id": (.string, false),
        "purchased_at_ms": (.integer, false), "renewal_number": (.integer, true), "store": (.string, false),
        "subscriber_attributes": (.object, false), "takehome_percentage": (.number, true),
        "tax_percentage": (.number, true), "transaction_id": (.string, false), "type": (.string, false),
        "is_trial_conversion": (.bool, false), "cancel_reason": (.string, false), "expiration_reason": (.string, false),
        "new_product_id": (.string, false), "grace_period_expiration_at_ms": (.integer, true),
        "transferred_from": (.strings, false), "transferred_to": (.strings, false), "sequence": (.integer, false),
        "price_experiments": (.array, false), "metadata": (.object, true),
    ]

    /// The keys every lifecycle sample of RevenueCat's gives (a consumer may rely on them).
    static let required: Set<String> = [
        "aliases", "app_user_id", "commission_percentage", "currency", "entitlement_id", "entitlement_ids", "environment",
        "event_timestamp_ms", "expiration_at_ms", "id", "offer_code", "original_app_user_id", "original_transaction_id",
        "period_type", "presented_offering_id", "price", "price_in_purchased_currency", "product_id", "purchased_at_ms",
        "store", "subscriber_attributes", "takehome_percentage", "tax_percentage", "transaction_id", "type",
    ]

    /// Keys some of RevenueCat's samples give and others do not (older samples lack `app_id`,
    /// `country_code`, `is_family_share`; newer ones add experiments), and RevenueDot's `sequence`.
    static let optional: Set<String> = [
        "app_id", "country_code", "is_family_share", "experiments", "price_experiments", "renewal_number", "metadata",
        "sequence",
    ]

    /// The keys one type adds, required.
    static let added: [String: Set<String>] = [
        "RENEWAL": ["is_trial_conversion"], "CANCELLATION": ["cancel_reason"], "EXPIRATION": ["expiration_reason"],
        "PRODUCT_CHANGE": ["new_product_id"],
    ]

    static let transfer: Set<String> = [
        "app_id", "environment", "event_timestamp_ms", "id", "store", "transferred_from", "transferred_to", "type",
    ]

    /// The keys RevenueDot sends for each type: every key RevenueCat's samples give it.
    static func keys(of type: String) -> Set<String> {
        if type == "TRANSFER" { return transfer.union(["sequence"]) }
        var keys = required.union(optional).subtracting(["price_experiments", "metadata"]).union(added[type] ?? [])
        if type == "BILLING_ISSUE" { keys.insert("grace_period_expiration_at_ms") }
        if type == "REFUND_REVERSED" { keys.insert("metadata") }
        return keys
    }

    /// What is wrong with an event body, empty when a strict consumer takes it: each required
    /// key there, no key RevenueCat does not document, and null only where RevenueCat sends it.
    static func problems(_ event: JSONValue) -> [String] {
        guard case .object(let members) = event, let type = members["type"]?.stringValue else { return ["no type"] }
        var problems: [String] = []
        let needed = type == "TRANSFER" ? transfer.subtracting(["app_id"]) : required.union(added[type] ?? [])
        let allowed =
            type == "TRANSFER"
            ? transfer.union(["sequence"])
            : needed.union(optional).union(type == "BILLING_ISSUE" ? ["grace_period_expiration_at_ms"] : [])
        for key in needed.subtracting(members.keys).sorted() { problems.append("\(type): no \(key)") }
        for key in Set(members.keys).subtracting(allowed).sorted() { problems.append("\(type): unexpected \(key)") }
        for (key, value) in members {
            guard let (kind, nullable) = fields[key] else { continue }
            if value == .null {
                if !nullable { problems.append("\(type): \(key) is null") }
                continue
            }
            let fits =
                switch (kind, value) {
                case (.string, .string), (.integer, .integer), (.bool, .bool), (.object, .object), (.array, .array): true
                case (.number, .number), (.number, .integer): true
                case (.strings, .array(let items)): items.allSatisfy { $0.stringValue != nil }
                default: false
                }
            if !fits { problems.append("\(type): \(key) is \(value.serialized())") }
        }
        return problems
    }
}
