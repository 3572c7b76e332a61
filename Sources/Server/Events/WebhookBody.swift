import AppStore
import Crypto
import Foundation
import JSON
import Subscriptions

/// The bytes RevenueCat consumers expect: `{"api_version":"1.0","event":{…}}`.
///
/// Each event type carries the keys RevenueCat's sample bodies give it, `null` when a value
/// does not apply (consumers index fields without checking for them), and no others: a TRANSFER
/// has no customer, product or price keys, as RevenueCat sends it. `sequence` is RevenueDot's
/// addition. Keys are sorted, so the body of an event is the same on every attempt.
package enum WebhookBody {
    package static let apiVersion = "1.0"

    /// The keys of every event but TRANSFER (RevenueCat's samples), with their value when absent.
    package static let common: [String: JSONValue] = [
        "aliases": .null, "app_id": .null, "app_user_id": .null, "commission_percentage": .null, "country_code": .null,
        "currency": .null, "entitlement_id": .null, "entitlement_ids": .null, "environment": .null,
        "event_timestamp_ms": .null, "experiments": .array([]), "expiration_at_ms": .null, "id": .null,
        "is_family_share": .null, "offer_code": .null, "original_app_user_id": .null, "original_transaction_id": .null,
        "period_type": .null, "presented_offering_id": .null, "price": .null, "price_in_purchased_currency": .null,
        "product_id": .null, "purchased_at_ms": .null, "renewal_number": .null, "sequence": .null, "store": .null,
        "subscriber_attributes": .object([:]), "takehome_percentage": .null, "tax_percentage": .null,
        "transaction_id": .null, "type": .null,
    ]

    /// The keys one type adds to `common`.
    package static let added: [String: [String]] = [
        "RENEWAL": ["is_trial_conversion"], "CANCELLATION": ["cancel_reason"], "EXPIRATION": ["expiration_reason"],
        "PRODUCT_CHANGE": ["new_product_id"], "BILLING_ISSUE": ["grace_period_expiration_at_ms"], "REFUND_REVERSED": ["metadata"],
    ]

    /// The only keys of a TRANSFER.
    package static let transfer: Set<String> = [
        "app_id", "environment", "event_timestamp_ms", "id", "sequence", "store", "transferred_from", "transferred_to", "type",
    ]

    /// The event object of a stored event, with the keys of its type.
    package static func event(fromStored json: String) throws -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: try members(ofStored: json).map { ($0.field.name, $0.value) }))
    }

    /// The envelope of a stored event.
    package static func envelope(fromStored json: String) throws -> JSONValue {
        .object(["api_version": .string(apiVersion), "event": try event(fromStored: json)])
    }

    /// The request body of a stored event: the bytes of `envelope(fromStored:)` serialized,
    /// written straight from the members in their key order, without building the envelope (a
    /// webhook sender makes one per delivery).
    package static func body(fromStored json: String) throws -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(json.utf8.count + 512)
        output.append(contentsOf: #"{"api_version":"\#(apiVersion)","event":{"#.utf8)
        for (index, member) in try members(ofStored: json).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: member.field.prefix)
            member.value.write(into: &output)
        }
        output.append(contentsOf: "}}".utf8)
        return Data(output)
    }

    /// The members of a stored event's object, in key order: the keys of its type, each with its
    /// stored value or its value when absent; a TRANSFER's only as stored, and no `app_id` for
    /// RevenueCat's promotional store.
    private static func members(ofStored json: String) throws -> [(field: Layout.Field, value: JSONValue)] {
        guard case .object(let stored) = try JSONValue(parsing: Data(json.utf8)) else {
            throw WebhookBodyError(description: "stored event is not a JSON object")
        }
        let type = stored["type"]?.stringValue ?? ""
        if type == "TRANSFER" {
            return Layout.transfer.compactMap { field in stored[field.name].map { (field, $0) } }
        }
        let promotional = stored["store"] == .string("PROMOTIONAL")
        return Layout.fields(of: type).compactMap { field in
            promotional && field.name == "app_id" ? nil : (field, stored[field.name] ?? field.absent)
        }
    }

    /// The keys of each type's event in the order they are written (sorted by UTF-8 bytes, as
    /// `JSONValue` writes an object), each with its value when absent.
    private enum Layout {
        struct Field {
            let name: String
            /// `"name":`
            let prefix: [UInt8]
            let absent: JSONValue

            init(_ name: String, absent: JSONValue) {
                self.name = name
                self.absent = absent
                var prefix: [UInt8] = []
                JSONValue.writeString(name, into: &prefix)
                prefix.append(UInt8(ascii: ":"))
                self.prefix = prefix
            }
        }

        /// The fields of every type but TRANSFER.
        static func fields(of type: String) -> [Field] { byType[type] ?? plain }

        private static func sorted(_ members: [String: JSONValue]) -> [Field] {
            members.keys.sorted(by: JSONValue.precedesInUTF8).map { Field($0, absent: members[$0]!) }
        }

        private static let plain = sorted(common)
        static let transfer = sorted(Dictionary(uniqueKeysWithValues: WebhookBody.transfer.map { ($0, .null) }))
        private static let byType: [String: [Field]] = added.mapValues { keys in
            sorted(common.merging(keys.map { ($0, .null) }) { _, added in added })
        }
    }
}

package struct WebhookBodyError: Error, CustomStringConvertible {
    package var description: String
}

/// `X-RevenueDot-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, and the
/// same value in `X-RevenueCat-Webhook-Signature`, the header RevenueCat's signed webhooks use
/// with this format, so a receiver written for RevenueCat's checks it unchanged.
///
/// The receiver recomputes the HMAC over the timestamp and the raw body with the shared secret,
/// compares in constant time, and refuses old timestamps to stop replays.
package enum WebhookSignature {
    package static let header = "X-RevenueDot-Signature"
    package static let revenueCatHeader = "X-RevenueCat-Webhook-Signature"

    package static func value(body: Data, secret: String, at unixSeconds: Int64) -> String {
        var signed = Data("\(unixSeconds).".utf8)
        signed.append(body)
        return "t=\(unixSeconds),v1=\(Digest.hex(Digest.hmacSHA256(key: Data(secret.utf8), data: signed)))"
    }

    /// Whether `header` signs `body` with `secret` (for receivers and tests).
    package static func verify(header: String, body: Data, secret: String) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp else { return false }
        let expected = Array(value(body: body, secret: secret, at: timestamp).utf8)
        return signatures.contains { APIKeys.equal(Array("t=\(timestamp),v1=\($0)".utf8), expected) }
    }
}
