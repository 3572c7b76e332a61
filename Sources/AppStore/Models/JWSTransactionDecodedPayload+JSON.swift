import Foundation
import JSON

extension JWSTransactionDecodedPayload {
    /// This payload as `JSONValueEncoder` writes it through `Codable` (members sorted by key, nil
    /// ones left out), written member by member: it is encoded into every stored fact and state,
    /// where the generic path costs much more each time. A test holds the two equal.
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

extension JWSTransactionDecodedPayload: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            transactionId: try fields.optionalString("transactionId"),
            originalTransactionId: try fields.optionalString("originalTransactionId"),
            previousOriginalTransactionId: try fields.optionalString("previousOriginalTransactionId"),
            webOrderLineItemId: try fields.optionalString("webOrderLineItemId"),
            bundleId: try fields.optionalString("bundleId"),
            productId: try fields.optionalString("productId"),
            subscriptionGroupIdentifier: try fields.optionalString("subscriptionGroupIdentifier"),
            purchaseDate: try fields.optionalMilliseconds("purchaseDate"),
            originalPurchaseDate: try fields.optionalMilliseconds("originalPurchaseDate"),
            expiresDate: try fields.optionalMilliseconds("expiresDate"),
            quantity: try fields.optionalInt32("quantity"),
            type: try fields.optional("type", ProductType.self),
            appAccountToken: try fields.optionalString("appAccountToken"),
            inAppOwnershipType: try fields.optional("inAppOwnershipType", InAppOwnershipType.self),
            signedDate: try fields.optionalMilliseconds("signedDate"),
            revocationReason: try fields.optional("revocationReason", RevocationReason.self),
            revocationDate: try fields.optionalMilliseconds("revocationDate"),
            revocationType: try fields.optional("revocationType", RevocationType.self),
            revocationPercentage: try fields.optionalInt32("revocationPercentage"),
            isUpgraded: try fields.optionalBool("isUpgraded"),
            offerType: try fields.optional("offerType", OfferType.self),
            offerIdentifier: try fields.optionalString("offerIdentifier"),
            offerDiscountType: try fields.optional("offerDiscountType", OfferDiscountType.self),
            offerPeriod: try fields.optionalString("offerPeriod"),
            environment: try fields.optional("environment", AppStoreEnvironment.self),
            storefront: try fields.optionalString("storefront"),
            storefrontId: try fields.optionalString("storefrontId"),
            transactionReason: try fields.optional("transactionReason", TransactionReason.self),
            currency: try fields.optionalString("currency"),
            price: try fields.optionalInt64("price"),
            appTransactionId: try fields.optionalString("appTransactionId"),
            advancedCommerceInfo: try fields.optionalDecoded("advancedCommerceInfo", TransactionAdvancedCommerceInfo.self),
            billingPlanType: try fields.optional("billingPlanType", BillingPlanType.self),
            commitmentInfo: try fields.optionalDecoded("commitmentInfo", TransactionCommitmentInfo.self)
        )
    }
}

extension JWSTransactionDecodedPayload: SortedJSONWritable {}
