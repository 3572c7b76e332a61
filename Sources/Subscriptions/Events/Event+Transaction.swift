import AppStore
import Foundation

/// Filling an event from Apple's transaction payload.
extension Event {
    /// An event about `transaction`, with its id derived from `cause` and a price of 0.
    ///
    /// Revenue events set their price afterwards with `setPrice(milliunits:)`.
    init(_ type: EventType, cause: String, transaction: JWSTransactionDecodedPayload?) {
        self.init(type: type, id: EventID.make(cause: cause))
        if let transaction { describe(transaction) }
        setPrice(milliunits: 0)
    }

    /// Copies the transaction's product, period, dates, ids, ownership, storefront and currency.
    mutating func describe(_ transaction: JWSTransactionDecodedPayload) {
        productId = transaction.productId
        periodType = SubscriptionState.periodType(of: transaction)
        purchasedAtMs = transaction.purchaseDate
        expirationAtMs = transaction.expiresDate
        environment = transaction.environment.map(EventEnvironment.init)
        transactionId = transaction.transactionId
        originalTransactionId = transaction.originalTransactionId
        isFamilyShare = transaction.inAppOwnershipType == .familyShared
        currency = transaction.currency
        offerCode = transaction.offerIdentifier
        countryCode = transaction.storefront.map(CountryCode.alpha2(fromStorefront:))
        taxPercentage = TaxRates.share(country: countryCode)
        let afterFirstYear =
            transaction.type == .autoRenewable
            && (transaction.purchaseDate ?? 0) - (transaction.originalPurchaseDate ?? .max / 2)
                >= Self.paidYearMs
        setCommission(nominal: afterFirstYear ? Self.reducedCommission : Self.standardCommission)
    }

    /// Describes the earlier period `period` of `transaction`'s subscription: its product,
    /// period, dates and currency from the summary, the rest (ids, storefront, ownership) from
    /// the subscription's `transaction`.
    mutating func describe(_ period: EarlierPeriod, of transaction: JWSTransactionDecodedPayload) {
        var earlier = transaction
        earlier.transactionId = period.transactionId
        earlier.productId = period.productId ?? transaction.productId
        earlier.purchaseDate = period.purchaseDate
        earlier.expiresDate = period.expiresDate
        earlier.currency = period.currency ?? transaction.currency
        earlier.offerIdentifier = nil
        describe(earlier)
        periodType = period.periodType
    }

    /// A year of paid service, after which Apple keeps 15% of a subscription.
    static let paidYearMs: Int64 = 365 * 86_400_000
    static let standardCommission = Decimal(string: "0.3")!
    static let reducedCommission = Decimal(string: "0.15")!

    /// `commission_percentage` and `takehome_percentage` for a nominal commission: Apple takes
    /// it after tax, so its share of the price is `nominal × (1 − tax)` (RevenueCat's since 2024).
    mutating func setCommission(nominal: Decimal) {
        takehomePercentage = 1 - nominal
        commissionPercentage = TaxRates.round(nominal * (1 - (taxPercentage ?? 0)), places: 4)
    }

    /// `price` in USD from `priceInPurchasedCurrency` and `rates` (units of a currency per US
    /// dollar), to the cent; unchanged when already set or no rate is known.
    mutating func convertPrice(usdRates rates: [String: Decimal]) {
        guard price == nil, let amount = priceInPurchasedCurrency, let currency, let rate = rates[currency], rate > 0 else {
            return
        }
        price = TaxRates.round(amount / rate, places: 2)
    }

    /// Sets both prices from milliunits of `currency`; both null when the amount is unknown (a
    /// transaction signed without `price`), as RevenueCat's `price` is for an unknown price.
    ///
    /// `price` (USD) is set here only when the purchase currency is USD, or the amount is 0;
    /// `convertPrice(usdRates:)` converts other currencies.
    mutating func setPrice(milliunits: Int64?) {
        guard let milliunits else {
            (priceInPurchasedCurrency, price) = (nil, nil)
            return
        }
        let amount = Self.decimal(milliunits: milliunits)
        priceInPurchasedCurrency = amount
        price = currency == "USD" || milliunits == 0 ? amount : nil
    }

    /// Makes this CANCELLATION the refund of `transaction`: reason CUSTOMER_SUPPORT, the refunded
    /// amount as a negative price.
    mutating func setRefund(of transaction: JWSTransactionDecodedPayload) {
        cancelReason = .customerSupport
        setPrice(milliunits: Self.refundedMilliunits(of: transaction))
    }

    /// The refunded amount of a transaction as a negative number of milliunits; nil when its
    /// price is unknown.
    ///
    /// A prorated refund (`revocationPercentage`, milliunits of a percent) refunds that share.
    /// Verified payloads hold plausible amounts (`PayloadNumber`); a snapshot stored before they
    /// were checked is clamped rather than trapped on.
    static func refundedMilliunits(of transaction: JWSTransactionDecodedPayload) -> Int64? {
        guard let signed = transaction.price else { return nil }
        let price = min(max(signed, PayloadNumber.amounts.lowerBound), PayloadNumber.amounts.upperBound)
        guard let percentage = transaction.revocationPercentage, transaction.revocationType == .refundProrated else {
            return -price
        }
        return -(price * Int64(min(max(percentage, 0), 100_000)) / 100_000)
    }

    /// Milliunits as an exact decimal amount (`4990` → `4.99`).
    static func decimal(milliunits: Int64) -> Decimal {
        Decimal(sign: milliunits < 0 ? .minus : .plus, exponent: -3, significand: Decimal(milliunits.magnitude))
    }
}

extension EventEnvironment {
    /// Production stays production; Sandbox, Xcode and LocalTesting are sandbox.
    public init(_ environment: AppStoreEnvironment) {
        self = environment == .production ? .production : .sandbox
    }
}
