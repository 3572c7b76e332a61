import AppStore
import Foundation

extension Event: SortedJSONWritable {
    /// Written member by member: every event is encoded into the outbox, and a held one into its
    /// purchase's journal on every write; `EventCodingTests` holds this equal to `Codable`.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("aliases", aliases)
        writer.optional("app_id", appId)
        writer.optional("app_user_id", appUserId)
        writer.optional("cancel_reason", cancelReason?.rawValue)
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
        writer.optional("price", price)
        writer.optional("price_in_purchased_currency", priceInPurchasedCurrency)
        writer.optional("product_id", productId)
        writer.optional("purchased_at_ms", purchasedAtMs)
        writer.optional("renewal_number", renewalNumber.map(Int64.init))
        writer.optional("sequence", sequence)
        writer.member("store", store)
        writer.optional("transaction_id", transactionId)
        writer.optional("transferred_from", transferredFrom)
        writer.optional("transferred_to", transferredTo)
        writer.member("type", type.rawValue)
        writer.endObject()
    }
}
