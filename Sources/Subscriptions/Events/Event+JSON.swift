import AppStore
import Foundation
import JSON

extension Event: SortedJSONWritable {
    /// Written member by member: every event is encoded into the outbox, and a held one into its
    /// purchase's journal on every write; `EventCodingTests` holds this equal to `Codable`.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("aliases", aliases)
        writer.optional("app_id", appId)
        writer.optional("app_user_id", appUserId)
        writer.optional("cancel_reason", cancelReason?.rawValue)
        writer.optional("commission_percentage", commissionPercentage)
        writer.optional("country_code", countryCode)
        writer.optional("currency", currency)
        writer.optional("entitlement_ids", entitlementIds)
        writer.optional("environment", environment?.rawValue)
        writer.member("event_timestamp_ms", eventTimestampMs)
        writer.optional("expiration_at_ms", expirationAtMs)
        writer.optional("expiration_reason", expirationReason?.rawValue)
        writer.optional("grace_period_expiration_at_ms", gracePeriodExpirationAtMs)
        writer.member("id", id)
        writer.optional("is_family_share", isFamilyShare)
        writer.optional("is_trial_conversion", isTrialConversion)
        writer.optional("new_product_id", newProductId)
        writer.optional("offer_code", offerCode)
        writer.optional("original_app_user_id", originalAppUserId)
        writer.optional("original_transaction_id", originalTransactionId)
        writer.optional("period_type", periodType?.rawValue)
        writer.optional("presented_offering_id", presentedOfferingId)
        writer.optional("price", price)
        writer.optional("price_in_purchased_currency", priceInPurchasedCurrency)
        writer.optional("product_id", productId)
        writer.optional("purchased_at_ms", purchasedAtMs)
        writer.optional("renewal_number", renewalNumber.map(Int64.init))
        writer.optional("sequence", sequence)
        writer.member("store", store)
        if let attributes = subscriberAttributes {
            writer.key("subscriber_attributes")
            SubscriberAttribute.write(attributes, into: &writer)
        }
        writer.optional("takehome_percentage", takehomePercentage)
        writer.optional("tax_percentage", taxPercentage)
        writer.optional("transaction_id", transactionId)
        writer.optional("transferred_from", transferredFrom)
        writer.optional("transferred_to", transferredTo)
        writer.member("type", type.rawValue)
        writer.endObject()
    }
}

extension Event: JSONValueReadable {
    /// Read member by member: held events are read back with their purchase's journal.
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            type: try fields.closed("type", EventType.self), id: try fields.string("id"),
            eventTimestampMs: try fields.int64("event_timestamp_ms"))
        appId = try fields.optionalString("app_id")
        appUserId = try fields.optionalString("app_user_id")
        originalAppUserId = try fields.optionalString("original_app_user_id")
        aliases = try fields.optionalStrings("aliases")
        productId = try fields.optionalString("product_id")
        newProductId = try fields.optionalString("new_product_id")
        entitlementIds = try fields.optionalStrings("entitlement_ids")
        periodType = try fields.optional("period_type", PeriodType.self)
        purchasedAtMs = try fields.optionalInt64("purchased_at_ms")
        expirationAtMs = try fields.optionalInt64("expiration_at_ms")
        gracePeriodExpirationAtMs = try fields.optionalInt64("grace_period_expiration_at_ms")
        store = try fields.string("store")
        environment = try fields.optional("environment", EventEnvironment.self)
        transactionId = try fields.optionalString("transaction_id")
        originalTransactionId = try fields.optionalString("original_transaction_id")
        isFamilyShare = try fields.optionalBool("is_family_share")
        isTrialConversion = try fields.optionalBool("is_trial_conversion")
        cancelReason = try fields.optional("cancel_reason", LapseReason.self)
        expirationReason = try fields.optional("expiration_reason", LapseReason.self)
        currency = try fields.optionalString("currency")
        priceInPurchasedCurrency = try fields.optionalDecimal("price_in_purchased_currency")
        price = try fields.optionalDecimal("price")
        offerCode = try fields.optionalString("offer_code")
        presentedOfferingId = try fields.optionalString("presented_offering_id")
        countryCode = try fields.optionalString("country_code")
        renewalNumber = try fields.optionalInt("renewal_number")
        transferredFrom = try fields.optionalStrings("transferred_from")
        transferredTo = try fields.optionalStrings("transferred_to")
        sequence = try fields.optionalInt64("sequence")
        subscriberAttributes = try SubscriberAttribute.read(json["subscriber_attributes"])
        taxPercentage = try fields.optionalDecimal("tax_percentage")
        commissionPercentage = try fields.optionalDecimal("commission_percentage")
        takehomePercentage = try fields.optionalDecimal("takehome_percentage")
    }
}
