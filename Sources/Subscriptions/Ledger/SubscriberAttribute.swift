import AppStore
import JSON

/// One of a customer's attributes (RevenueCat's subscriber attributes): a value and when the
/// app set it. A deleted one keeps its time (`value` nil), so an older write cannot bring it back.
public struct SubscriberAttribute: Codable, Hashable, Sendable {
    public var value: String?
    public var updatedAtMs: Int64

    /// RevenueCat's names, in events, answers and stored customers alike.
    public enum CodingKeys: String, CodingKey {
        case value
        case updatedAtMs = "updated_at_ms"
    }

    public init(value: String?, updatedAtMs: Int64) {
        self.value = value
        self.updatedAtMs = updatedAtMs
    }

    /// How many deleted attributes a customer keeps the time of (so an older write cannot bring
    /// them back); older markers are dropped beyond it.
    public static let maximumMarkers = 100

    /// Device identifiers and attribution data, which RevenueCat does not change once set.
    public static let writeOnce: Set<String> = [
        "$idfa", "$idfv", "$gpsAdId", "$ip", "$mediaSource", "$campaign", "$adGroup", "$ad", "$keyword", "$creative",
    ]

    /// The attributes after `updates`: a write older than the stored one is ignored, an empty
    /// or null value deletes, a write-once key keeps its first value.
    public static func merging(
        _ updates: [String: SubscriberAttribute], into stored: [String: SubscriberAttribute]
    ) -> [String: SubscriberAttribute] {
        var result = stored
        for (key, update) in updates {
            let value = update.value.flatMap { $0.isEmpty ? nil : $0 }
            guard let known = result[key] else {
                // Deleting what was never set keeps nothing: no marker to grow the customer.
                if value != nil { result[key] = SubscriberAttribute(value: value, updatedAtMs: update.updatedAtMs) }
                continue
            }
            if known.updatedAtMs > update.updatedAtMs { continue }
            if writeOnce.contains(key), let kept = known.value, !kept.isEmpty { continue }
            result[key] = SubscriberAttribute(value: value, updatedAtMs: update.updatedAtMs)
        }
        // Deletion markers beyond `maximumMarkers` go, oldest first: a customer's record stays bounded.
        let markers = result.filter { $0.value.value == nil }
        if markers.count > maximumMarkers {
            for (key, _) in markers.sorted(by: { ($0.value.updatedAtMs, $0.key) < ($1.value.updatedAtMs, $1.key) })
                .prefix(markers.count - maximumMarkers)
            {
                result[key] = nil
            }
        }
        return result
    }

    /// Those with a value, as RevenueCat shows them.
    public static func shown(_ attributes: [String: SubscriberAttribute]?) -> [String: SubscriberAttribute] {
        (attributes ?? [:]).filter { $0.value.value != nil }
    }
}

extension SubscriberAttribute {
    /// `{key: {"updated_at_ms", "value"}}` in RevenueCat's shape, keys in UTF-8 order.
    public static func write(_ attributes: [String: SubscriberAttribute], into writer: inout JSONWriter) {
        writer.beginObject()
        for (key, attribute) in attributes.sorted(by: { JSONValue.precedesInUTF8($0.key, $1.key) }) {
            writer.key(text: key)
            writer.beginObject()
            writer.key("updated_at_ms")
            writer.integer(attribute.updatedAtMs)
            writer.member("value", attribute.value)
            writer.endObject()
        }
        writer.endObject()
    }

    /// What `write` wrote; nil for no member.
    static func read(_ json: JSONValue?) throws -> [String: SubscriberAttribute]? {
        guard let json, json != .null else { return nil }
        guard case .object(let members) = json else {
            throw Self.unreadable("subscriber_attributes is not an object")
        }
        var attributes: [String: SubscriberAttribute] = [:]
        for (key, value) in members {
            guard case .integer(let updated)? = value["updated_at_ms"] else {
                throw Self.unreadable("subscriber_attributes.\(key) has no updated_at_ms")
            }
            attributes[key] = SubscriberAttribute(value: value["value"]?.stringValue, updatedAtMs: updated)
        }
        return attributes
    }

    private static func unreadable(_ description: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: description))
    }
}
