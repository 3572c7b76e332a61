import AppStore
import Foundation

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
    ]

    /// The keys RevenueCat's samples give every lifecycle event.
    static let baseline: Set<String> = [
        "aliases", "app_id", "app_user_id", "commission_percentage", "country_code", "currency", "entitlement_id",
        "entitlement_ids", "environment", "event_timestamp_ms", "experiments", "expiration_at_ms", "id",
        "is_family_share", "offer_code", "original_app_user_id", "original_transaction_id", "period_type",
        "presented_offering_id", "price", "price_in_purchased_currency", "product_id", "purchased_at_ms", "store",
        "subscriber_attributes", "takehome_percentage", "tax_percentage", "transaction_id", "type",
        // In the field table (and the REFUND_REVERSED sample), and RevenueDot's own.
        "renewal_number", "sequence",
    ]

    /// The keys of each type.
    static func keys(of type: String) -> Set<String> {
        switch type {
        case "TRANSFER":
            [
                "app_id", "environment", "event_timestamp_ms", "id", "store", "transferred_from", "transferred_to", "type",
                "sequence",
            ]
        case "RENEWAL": baseline.union(["is_trial_conversion"])
        case "CANCELLATION": baseline.union(["cancel_reason"])
        case "EXPIRATION": baseline.union(["expiration_reason"])
        case "PRODUCT_CHANGE": baseline.union(["new_product_id"])
        case "BILLING_ISSUE": baseline.union(["grace_period_expiration_at_ms"])
        default: baseline
        }
    }

    /// What is wrong with an event body, empty when a strict consumer takes it.
    static func problems(_ event: JSONValue) -> [String] {
        guard case .object(let members) = event, let type = members["type"]?.stringValue else { return ["no type"] }
        var problems: [String] = []
        let expected = keys(of: type)
        for key in expected.subtracting(members.keys).sorted() { problems.append("\(type): no \(key)") }
        for key in Set(members.keys).subtracting(expected).sorted() { problems.append("\(type): unexpected \(key)") }
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
