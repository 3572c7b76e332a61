/// The decoded payload of signed renewal information (`signedRenewalInfo`).
///
/// Dates are UNIX time in milliseconds; prices are milliunits of `currency`. Renewal info
/// carries no `bundleId`, so only its `environment` can be checked against the configuration.
///
/// https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    public var originalTransactionId: String?
    /// The product the customer is currently subscribed to.
    public var productId: String?
    /// The product that renews next; differs after a downgrade or crossgrade.
    public var autoRenewProductId: String?
    public var autoRenewStatus: AutoRenewStatus?
    public var expirationIntent: ExpirationIntent?
    public var isInBillingRetryPeriod: Bool?
    @Milliseconds public var gracePeriodExpiresDate: Int64?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// The offer that applies at the next renewal.
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    /// An ISO 8601 duration such as `P1Y`.
    public var offerPeriod: String?
    @Milliseconds public var signedDate: Int64?
    public var environment: AppStoreEnvironment?
    /// The start of the current run of subscriptions, ignoring lapses under 60 days.
    @Milliseconds public var recentSubscriptionStartDate: Int64?
    @Milliseconds public var renewalDate: Int64?
    public var renewalPrice: Int64?
    public var currency: String?
    /// Best offer first.
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    /// Present only for Advanced Commerce products.
    public var advancedCommerceInfo: RenewalAdvancedCommerceInfo?
    public var renewalBillingPlanType: BillingPlanType?
    public var commitmentInfo: RenewalCommitmentInfo?

    public init(
        originalTransactionId: String? = nil,
        productId: String? = nil,
        autoRenewProductId: String? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        expirationIntent: ExpirationIntent? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Int64? = nil,
        priceIncreaseStatus: PriceIncreaseStatus? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        offerPeriod: String? = nil,
        signedDate: Int64? = nil,
        environment: AppStoreEnvironment? = nil,
        recentSubscriptionStartDate: Int64? = nil,
        renewalDate: Int64? = nil,
        renewalPrice: Int64? = nil,
        currency: String? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil,
        appTransactionId: String? = nil,
        advancedCommerceInfo: RenewalAdvancedCommerceInfo? = nil,
        renewalBillingPlanType: BillingPlanType? = nil,
        commitmentInfo: RenewalCommitmentInfo? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.signedDate = signedDate
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.advancedCommerceInfo = advancedCommerceInfo
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitmentInfo = commitmentInfo
    }
}
