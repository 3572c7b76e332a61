import Foundation
import JSON
import Testing

@testable import Server

/// `WebhookBody.body` writes the envelope's bytes directly: it must equal the envelope the
/// events API and CLI show, serialized, for every kind of stored event.
@Suite struct WebhookBodyTests {
    static let stored: [String] = [
        // A renewal as the ledger stores it: absent keys come out as null.
        #"{"aliases":["u1"],"app_id":"app","app_user_id":"u1","commission_percentage":0.3,"country_code":"US","currency":"USD","entitlement_ids":["pro"],"environment":"SANDBOX","event_timestamp_ms":1796412249061,"expiration_at_ms":1798995817342,"id":"e1","is_family_share":false,"is_trial_conversion":false,"original_transaction_id":"200","period_type":"NORMAL","price":9.99,"product_id":"pro.monthly","purchased_at_ms":1796403816342,"sequence":1,"store":"APP_STORE","subscriber_attributes":{"$email":{"updated_at_ms":1,"value":"a\"b\u00e9"}},"type":"RENEWAL"}"#,
        // Keys of another type are dropped, the type's own kept.
        #"{"type":"CANCELLATION","cancel_reason":"UNSUBSCRIBE","expiration_reason":"X","new_product_id":"p2","id":"e2"}"#,
        #"{"type":"EXPIRATION","expiration_reason":"BILLING_ERROR","id":"e3"}"#,
        #"{"type":"PRODUCT_CHANGE","new_product_id":"pro.yearly","id":"e4"}"#,
        #"{"type":"BILLING_ISSUE","grace_period_expiration_at_ms":5,"id":"e5"}"#,
        // A promotional grant has no app_id.
        #"{"type":"NON_RENEWING_PURCHASE","store":"PROMOTIONAL","app_id":"app","id":"e6"}"#,
        // A transfer keeps only its own keys, and only those stored.
        #"{"type":"TRANSFER","transferred_from":["a"],"transferred_to":["b"],"app_user_id":"b","price":1,"id":"e7","store":"PROMOTIONAL","app_id":"app"}"#,
        // An unknown or missing type gets the common keys; unknown keys are dropped.
        #"{"type":"SOMETHING_NEW","extra":1,"id":"e8"}"#,
        #"{"id":"e9","type":7}"#,
        "{}",
    ]

    @Test(arguments: stored)
    func bodyIsTheEnvelopeSerialized(_ json: String) throws {
        let body = try WebhookBody.body(fromStored: json)
        let expected = try WebhookBody.envelope(fromStored: json).serialized()
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }

    /// The keys each kind of event gets, spelled out: the body and the envelope share the rules.
    @Test func eachTypeHasItsKeys() throws {
        func keys(_ json: String) throws -> [String] {
            let event = try JSONValue(parsing: try WebhookBody.body(fromStored: json))["event"]
            return try #require(event?.objectValue).keys.sorted()
        }
        let common = WebhookBody.common.keys.sorted()
        #expect(try keys(#"{"type":"SOMETHING_NEW","extra":1}"#) == common)
        #expect(try keys(#"{"type":"EXPIRATION","cancel_reason":"X"}"#) == (common + ["expiration_reason"]).sorted())
        #expect(try keys(#"{"type":"REFUND_REVERSED"}"#) == (common + ["metadata"]).sorted())
        #expect(try keys(#"{"type":"NON_RENEWING_PURCHASE","store":"PROMOTIONAL"}"#) == common.filter { $0 != "app_id" })
        #expect(try keys(#"{"type":"TRANSFER","transferred_to":["b"],"price":1,"id":"e"}"#) == ["id", "transferred_to", "type"])
        let renewal = try JSONValue(parsing: try WebhookBody.body(fromStored: #"{"type":"RENEWAL","price":9.99}"#))
        #expect(renewal["api_version"] == .string("1.0"))
        #expect(renewal["event"]?["price"] == .number(9.99))
        #expect(renewal["event"]?["experiments"] == .array([]))
        #expect(renewal["event"]?["is_trial_conversion"] == .null)
    }

    @Test(arguments: ["[]", "\"text\"", "{", "{\"type\":\"RENEWAL\",}", ""])
    func storedTextThatIsNoObjectIsRefused(_ json: String) {
        #expect(throws: (any Error).self) { try WebhookBody.body(fromStored: json) }
    }
}
