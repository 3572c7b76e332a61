import AppStore

import Subscriptions

/// Builders for the decoded Apple payloads the reducer consumes, with sensible defaults.
///
/// Snapshots carry the notification's `signedDate` unless a test sets another, as Apple signs
/// the transaction and renewal info when it sends the notification.
public enum Apple {
    public static let day: Int64 = 86_400_000
    public static let t0: Int64 = 1_700_000_000_000
    public static let original = "1000"
    public static let monthly = "pro.monthly"
    public static let yearly = "pro.yearly"
    public static let basic = "basic.monthly"

    public static func transaction(
        _ id: String,
        original: String = Apple.original,
        product: String = Apple.monthly,
        purchase: Int64,
        expires: Int64? = nil,
        price: Int64 = 9_990,
        currency: String = "USD",
        offer: OfferType? = nil,
        discount: OfferDiscountType? = nil,
        offerId: String? = nil,
        ownership: InAppOwnershipType = .purchased,
        type: ProductType = .autoRenewable,
        token: String? = nil,
        revokedAt: Int64? = nil,
        revocationType: RevocationType? = nil,
        signed: Int64? = nil
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: id, originalTransactionId: original, webOrderLineItemId: "w\(id)",
            bundleId: "com.example.app", productId: product, subscriptionGroupIdentifier: "group",
            purchaseDate: purchase, originalPurchaseDate: t0,
            expiresDate: type == .autoRenewable ? (expires ?? purchase + 30 * day) : nil,
            quantity: 1, type: type, appAccountToken: token, inAppOwnershipType: ownership, signedDate: signed,
            revocationReason: revokedAt == nil ? nil : .refundedDueToIssue, revocationDate: revokedAt,
            revocationType: revokedAt == nil ? nil : (revocationType ?? .refundFull),
            offerType: offer, offerIdentifier: offerId ?? offer.map { "offer-\($0.rawValue)" },
            offerDiscountType: discount, environment: .production, storefront: "USA", storefrontId: "143441",
            transactionReason: id == original ? .purchase : .renewal, currency: currency,
            price: discount == .freeTrial ? 0 : price)
    }

    public static func renewal(
        original: String = Apple.original,
        product: String = Apple.monthly,
        next: String? = nil,
        autoRenew: Bool = true,
        retry: Bool? = nil,
        grace: Int64? = nil,
        priceIncrease: PriceIncreaseStatus? = nil,
        intent: ExpirationIntent? = nil,
        token: String? = nil
    ) -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionId: original, productId: product, autoRenewProductId: next ?? product,
            autoRenewStatus: autoRenew ? .on : .off, expirationIntent: intent, isInBillingRetryPeriod: retry,
            gracePeriodExpiresDate: grace, priceIncreaseStatus: priceIncrease, environment: .production,
            appAccountToken: token)
    }

    public static func notification(
        _ type: NotificationTypeV2,
        _ subtype: Subtype? = nil,
        uuid: String,
        signed: Int64,
        transaction: JWSTransactionDecodedPayload? = nil,
        renewal: JWSRenewalInfoDecodedPayload? = nil
    ) -> VerifiedNotificationFacts {
        var transaction = transaction
        if transaction != nil, transaction?.signedDate == nil { transaction?.signedDate = signed }
        var renewal = renewal
        if renewal != nil, renewal?.signedDate == nil { renewal?.signedDate = signed }
        return VerifiedNotificationFacts(
            notificationUUID: uuid, notificationType: type, subtype: subtype, signedDateMs: signed,
            environment: .production, transaction: transaction, renewalInfo: renewal)
    }
}
