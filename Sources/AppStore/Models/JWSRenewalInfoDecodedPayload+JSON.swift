import Foundation
import JSON

extension JWSRenewalInfoDecodedPayload {
    /// This payload as `JSONValueEncoder` writes it through `Codable` (members sorted by key, nil
    /// ones left out), written member by member: it is encoded into every stored fact and state,
    /// where the generic path costs much more each time. A test holds the two equal.
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

extension JWSRenewalInfoDecodedPayload: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            originalTransactionId: try fields.optionalString("originalTransactionId"),
            productId: try fields.optionalString("productId"),
            autoRenewProductId: try fields.optionalString("autoRenewProductId"),
            autoRenewStatus: try fields.optional("autoRenewStatus", AutoRenewStatus.self),
            expirationIntent: try fields.optional("expirationIntent", ExpirationIntent.self),
            isInBillingRetryPeriod: try fields.optionalBool("isInBillingRetryPeriod"),
            gracePeriodExpiresDate: try fields.optionalMilliseconds("gracePeriodExpiresDate"),
            priceIncreaseStatus: try fields.optional("priceIncreaseStatus", PriceIncreaseStatus.self),
            offerType: try fields.optional("offerType", OfferType.self),
            offerIdentifier: try fields.optionalString("offerIdentifier"),
            offerDiscountType: try fields.optional("offerDiscountType", OfferDiscountType.self),
            offerPeriod: try fields.optionalString("offerPeriod"),
            signedDate: try fields.optionalMilliseconds("signedDate"),
            environment: try fields.optional("environment", AppStoreEnvironment.self),
            recentSubscriptionStartDate: try fields.optionalMilliseconds("recentSubscriptionStartDate"),
            renewalDate: try fields.optionalMilliseconds("renewalDate"),
            renewalPrice: try fields.optionalInt64("renewalPrice"),
            currency: try fields.optionalString("currency"),
            eligibleWinBackOfferIds: try fields.optionalStrings("eligibleWinBackOfferIds"),
            appAccountToken: try fields.optionalString("appAccountToken"),
            appTransactionId: try fields.optionalString("appTransactionId"),
            advancedCommerceInfo: try fields.optionalDecoded("advancedCommerceInfo", RenewalAdvancedCommerceInfo.self),
            renewalBillingPlanType: try fields.optional("renewalBillingPlanType", BillingPlanType.self),
            commitmentInfo: try fields.optionalDecoded("commitmentInfo", RenewalCommitmentInfo.self)
        )
    }
}

extension JWSRenewalInfoDecodedPayload: SortedJSONWritable {}
