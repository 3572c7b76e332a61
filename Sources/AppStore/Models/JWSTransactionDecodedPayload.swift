/// The decoded payload of a signed transaction (`signedTransactionInfo`).
///
/// Dates are UNIX time in milliseconds; prices are milliunits of `currency`.
///
/// https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    public var transactionId: String?
    /// The identity of a subscription across renewals.
    public var originalTransactionId: String?
    /// The original transaction identifier before an Advanced Commerce migration.
    public var previousOriginalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    @Milliseconds public var purchaseDate: Int64?
    @Milliseconds public var originalPurchaseDate: Int64?
    @Milliseconds public var expiresDate: Int64?
    public var quantity: Int32?
    public var type: ProductType?
    /// The UUID the app set at purchase, kept as Apple sent it.
    public var appAccountToken: String?
    public var inAppOwnershipType: InAppOwnershipType?
    @Milliseconds public var signedDate: Int64?
    public var revocationReason: RevocationReason?
    @Milliseconds public var revocationDate: Int64?
    public var revocationType: RevocationType?
    /// The refunded share in milliunits of a percent (`50000` is 50%).
    public var revocationPercentage: Int32?
    public var isUpgraded: Bool?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    /// An ISO 8601 duration such as `P1Y`.
    public var offerPeriod: String?
    public var environment: AppStoreEnvironment?
    /// An ISO 3166-1 alpha-3 country code.
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: TransactionReason?
    /// An ISO 4217 currency code.
    public var currency: String?
    public var price: Int64?
    public var appTransactionId: String?
    /// Present only for Advanced Commerce products.
    public var advancedCommerceInfo: TransactionAdvancedCommerceInfo?
    public var billingPlanType: BillingPlanType?
    public var commitmentInfo: TransactionCommitmentInfo?

    public init(
        transactionId: String? = nil,
        originalTransactionId: String? = nil,
        previousOriginalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil,
        expiresDate: Int64? = nil,
        quantity: Int32? = nil,
        type: ProductType? = nil,
        appAccountToken: String? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        signedDate: Int64? = nil,
        revocationReason: RevocationReason? = nil,
        revocationDate: Int64? = nil,
        revocationType: RevocationType? = nil,
        revocationPercentage: Int32? = nil,
        isUpgraded: Bool? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        offerPeriod: String? = nil,
        environment: AppStoreEnvironment? = nil,
        storefront: String? = nil,
        storefrontId: String? = nil,
        transactionReason: TransactionReason? = nil,
        currency: String? = nil,
        price: Int64? = nil,
        appTransactionId: String? = nil,
        advancedCommerceInfo: TransactionAdvancedCommerceInfo? = nil,
        billingPlanType: BillingPlanType? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.previousOriginalTransactionId = previousOriginalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.appTransactionId = appTransactionId
        self.advancedCommerceInfo = advancedCommerceInfo
        self.billingPlanType = billingPlanType
        self.commitmentInfo = commitmentInfo
    }
}
