import Foundation

extension JWSRenewalInfoDecodedPayload {
    /// This payload as `JSONValueEncoder` writes it through `Codable` (members sorted by key, nil
    /// ones left out), written member by member: it is encoded into every stored fact and state,
    /// where the generic path cost tens of microseconds each time. A test holds the two equal.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        try writer.encoded("advancedCommerceInfo", advancedCommerceInfo)
        writer.optional("appAccountToken", appAccountToken)
        writer.optional("appTransactionId", appTransactionId)
        writer.optional("autoRenewProductId", autoRenewProductId)
        writer.optional("autoRenewStatus", autoRenewStatus?.rawValue)
        try writer.encoded("commitmentInfo", commitmentInfo)
        writer.optional("currency", currency)
        writer.optional("eligibleWinBackOfferIds", eligibleWinBackOfferIds)
        writer.optional("environment", environment?.rawValue)
        writer.optional("expirationIntent", expirationIntent?.rawValue)
        writer.optional("gracePeriodExpiresDate", gracePeriodExpiresDate)
        writer.optional("isInBillingRetryPeriod", isInBillingRetryPeriod)
        writer.optional("offerDiscountType", offerDiscountType?.rawValue)
        writer.optional("offerIdentifier", offerIdentifier)
        writer.optional("offerPeriod", offerPeriod)
        writer.optional("offerType", offerType?.rawValue)
        writer.optional("originalTransactionId", originalTransactionId)
        writer.optional("priceIncreaseStatus", priceIncreaseStatus?.rawValue)
        writer.optional("productId", productId)
        writer.optional("recentSubscriptionStartDate", recentSubscriptionStartDate)
        writer.optional("renewalBillingPlanType", renewalBillingPlanType?.rawValue)
        writer.optional("renewalDate", renewalDate)
        writer.optional("renewalPrice", renewalPrice)
        writer.optional("signedDate", signedDate)
        writer.endObject()
    }
}
