import AppStore
import JSON
import Subscriptions

/// Reading the documents `GET /v1/subscribers` needs (a customer and its purchase views) straight
/// from parsed JSON, without `Decodable`'s per-field generic machinery, which costs more than the
/// database reads on that path.
///
/// The documents are written by `Codable` (`JSONValueEncoder`); these readers accept exactly
/// that shape (absent optionals, the same member names and raw values) and throw on anything
/// else. Tests check every field against `Codable`'s own decoding.
public struct StoredViewError: Error, CustomStringConvertible {
    public var description: String
}

extension PurchaseView {
    /// A view from its stored JSON.
    public init(stored json: JSONValue) throws(StoredViewError) {
        guard case .object(let members) = json else { throw StoredViewError(description: "a purchase view is not an object") }
        let fields = StoredFields(members: members, document: "purchase view")
        guard let kind = Kind(rawValue: try fields.string("kind") ?? "") else {
            throw StoredViewError(description: "purchase view kind \(members["kind"] ?? .null) is unknown")
        }
        self.init(
            kind: kind, id: try fields.required(fields.string("id"), "id"), productId: try fields.string("productId"),
            environment: try fields.string("environment").map(AppStoreEnvironment.init(rawValue:)),
            ownershipType: try fields.string("ownershipType").map(InAppOwnershipType.init(rawValue:)),
            transactionId: try fields.string("transactionId"), purchaseDateMs: try fields.date("purchaseDateMs"),
            originalPurchaseDateMs: try fields.date("originalPurchaseDateMs"),
            expiresDateMs: try fields.date("expiresDateMs"), accessEndsAtMs: try fields.date("accessEndsAtMs"),
            gracePeriodAccessEndsAtMs: try fields.date("gracePeriodAccessEndsAtMs"),
            periodType: try fields.periodType("periodType"),
            unsubscribeDetectedAtMs: try fields.date("unsubscribeDetectedAtMs"),
            billingIssueDetectedAtMs: try fields.date("billingIssueDetectedAtMs"),
            refundedAtMs: try fields.date("refundedAtMs"), priceMilliunits: try fields.amount("priceMilliunits"),
            currency: try fields.string("currency"), advancedCommerce: members["advancedCommerce"],
            earlierProducts: try fields.earlierProducts("earlierProducts"), store: try fields.string("store"),
            lastGracePeriodAccessEndsAtMs: try fields.date("lastGracePeriodAccessEndsAtMs"))
    }
}

extension CustomerState {
    /// A customer from its stored JSON.
    public init(stored json: JSONValue) throws(StoredViewError) {
        guard case .object(let members) = json else { throw StoredViewError(description: "a customer is not an object") }
        let fields = StoredFields(members: members, document: "customer")
        self.init(
            appUserId: try fields.required(fields.string("appUserId"), "appUserId"),
            firstSeenMs: try fields.required(fields.date("firstSeenMs"), "firstSeenMs"))
        aliases = try fields.required(fields.strings("aliases"), "aliases")
        originalTransactionIds = try fields.strings("originalTransactionIds") ?? []
        oneTimeTransactionIds = try fields.strings("oneTimeTransactionIds") ?? []
        lastSequence = try fields.integer("lastSequence") ?? 0
        originalAppUserId = try fields.string("originalAppUserId")
        originalApplicationVersion = try fields.string("originalApplicationVersion")
        if case .array(let grants)? = members["promotionalGrants"] {
            promotionalGrants = try grants.map { (grant) throws(StoredViewError) -> PromotionalGrant in
                guard case .object(let members) = grant else { throw StoredViewError(description: "a grant is not an object") }
                let inner = StoredFields(members: members, document: "promotional grant")
                var parsed = PromotionalGrant(
                    id: try inner.required(inner.string("id"), "id"),
                    entitlementId: try inner.required(inner.string("entitlementId"), "entitlementId"),
                    productId: try inner.required(inner.string("productId"), "productId"),
                    startMs: try inner.required(inner.integer("startMs"), "startMs"),
                    endMs: try inner.required(inner.integer("endMs"), "endMs"))
                parsed.revokedAtMs = try inner.integer("revokedAtMs")
                if case .bool(let expired)? = members["expired"] { parsed.expired = expired }
                return parsed
            }
        }
        originalPurchaseDateMs = try fields.date("originalPurchaseDateMs")
        offeringOverride = try fields.string("offeringOverride")
        switch members["madeByTracking"] {
        case nil, .null?: break
        case .bool(let made)?: madeByTracking = made
        case let other?: throw fields.mismatch("madeByTracking", other)
        }
        if case .object(let stored)? = members["attributes"] {
            var attributes: [String: SubscriberAttribute] = [:]
            for (key, value) in stored {
                guard case .object(let attribute) = value else {
                    throw StoredViewError(description: "attribute \(key) is not an object")
                }
                let inner = StoredFields(members: attribute, document: "attribute \(key)")
                attributes[key] = SubscriberAttribute(
                    value: try inner.string("value"),
                    updatedAtMs: try inner.required(inner.integer("updated_at_ms"), "updated_at_ms")
                )
            }
            self.attributes = attributes
        }
    }
}

/// Typed access to the members of a stored object; a member of the wrong type throws.
private struct StoredFields {
    let members: [String: JSONValue]
    let document: String

    func string(_ key: String) throws(StoredViewError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw mismatch(key, other)
        }
    }

    func integer(_ key: String) throws(StoredViewError) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        case let other?: throw mismatch(key, other)
        }
    }

    /// UNIX milliseconds in App Store's span (`PayloadNumber.dates`): a row holding another was
    /// not written by RevenueDot's verified path, and is an error rather than a date to compute with.
    func date(_ key: String) throws(StoredViewError) -> Int64? {
        try bounded(key, PayloadNumber.dates, "a plausible date")
    }

    /// Milliunits of a currency within `PayloadNumber.amounts`.
    func amount(_ key: String) throws(StoredViewError) -> Int64? {
        try bounded(key, PayloadNumber.amounts, "a plausible amount")
    }

    private func bounded(_ key: String, _ range: ClosedRange<Int64>, _ what: String) throws(StoredViewError) -> Int64? {
        guard let value = try integer(key) else { return nil }
        guard range.contains(value) else { throw StoredViewError(description: "\(document) \(key) \(value) is not \(what)") }
        return value
    }

    /// A RevenueCat period type; a value that names none is an error, not nil.
    func periodType(_ key: String) throws(StoredViewError) -> PeriodType? {
        guard let raw = try string(key) else { return nil }
        guard let type = PeriodType(rawValue: raw) else {
            throw StoredViewError(description: "\(document) \(key) \(raw) is unknown")
        }
        return type
    }

    func strings(_ key: String) throws(StoredViewError) -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var values: [String] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let value) = element else { throw mismatch(key, element) }
                values.append(value)
            }
            return values
        case let other?: throw mismatch(key, other)
        }
    }

    func earlierProducts(_ key: String) throws(StoredViewError) -> [EarlierProduct]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var products: [EarlierProduct] = []
            for element in elements {
                guard case .object(let product) = element else { throw mismatch(key, element) }
                let fields = StoredFields(members: product, document: "earlier product")
                products.append(
                    EarlierProduct(
                        productId: try fields.required(fields.string("productId"), "productId"),
                        transactionId: try fields.string("transactionId"), purchaseDateMs: try fields.date("purchaseDateMs"),
                        expiresDateMs: try fields.date("expiresDateMs"),
                        periodType: try fields.required(fields.periodType("periodType"), "periodType"),
                        priceMilliunits: try fields.amount("priceMilliunits"), currency: try fields.string("currency"),
                        refundedAtMs: try fields.date("refundedAtMs"),
                        gracePeriodEndedMs: try fields.date("gracePeriodEndedMs")))
            }
            return products
        case let other?: throw mismatch(key, other)
        }
    }

    func required<T>(_ value: T?, _ key: String) throws(StoredViewError) -> T {
        guard let value else { throw StoredViewError(description: "\(document) has no \(key)") }
        return value
    }

    func mismatch(_ key: String, _ value: JSONValue) -> StoredViewError {
        StoredViewError(description: "\(document) member \(key) has the wrong type: \(value.serialized())")
    }
}
