import Foundation

extension JWSTransactionDecodedPayload {
    /// This payload as `JSONValueEncoder` writes it through `Codable` (members sorted by key, nil
    /// ones left out), written member by member: it is encoded into every stored fact and state,
    /// where the generic path cost tens of microseconds each time. A test holds the two equal.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        try writer.encoded("advancedCommerceInfo", advancedCommerceInfo)
        writer.optional("appAccountToken", appAccountToken)
        writer.optional("appTransactionId", appTransactionId)
        writer.optional("billingPlanType", billingPlanType?.rawValue)
        writer.optional("bundleId", bundleId)
        try writer.encoded("commitmentInfo", commitmentInfo)
        writer.optional("currency", currency)
        writer.optional("environment", environment?.rawValue)
        writer.optional("expiresDate", expiresDate)
        writer.optional("inAppOwnershipType", inAppOwnershipType?.rawValue)
        writer.optional("isUpgraded", isUpgraded)
        writer.optional("offerDiscountType", offerDiscountType?.rawValue)
        writer.optional("offerIdentifier", offerIdentifier)
        writer.optional("offerPeriod", offerPeriod)
        writer.optional("offerType", offerType?.rawValue)
        writer.optional("originalPurchaseDate", originalPurchaseDate)
        writer.optional("originalTransactionId", originalTransactionId)
        writer.optional("previousOriginalTransactionId", previousOriginalTransactionId)
        writer.optional("price", price)
        writer.optional("productId", productId)
        writer.optional("purchaseDate", purchaseDate)
        writer.optional("quantity", quantity)
        writer.optional("revocationDate", revocationDate)
        writer.optional("revocationPercentage", revocationPercentage)
        writer.optional("revocationReason", revocationReason?.rawValue)
        writer.optional("revocationType", revocationType?.rawValue)
        writer.optional("signedDate", signedDate)
        writer.optional("storefront", storefront)
        writer.optional("storefrontId", storefrontId)
        writer.optional("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        writer.optional("transactionId", transactionId)
        writer.optional("transactionReason", transactionReason?.rawValue)
        writer.optional("type", type?.rawValue)
        writer.optional("webOrderLineItemId", webOrderLineItemId)
        writer.endObject()
    }
}
