import AppStore

/// The current period's view, computed from the newest snapshot of its transaction; the other
/// periods are known by their summaries (`EarlierPeriod`).
///
/// The current period is the transaction with the latest `purchaseDate`: a renewal, a
/// resubscription and an upgrade each start a later one, while a downgrade only changes
/// `autoRenewProductId` until its renewal arrives.
extension SubscriptionState {
    /// The newest snapshot of the current period's transaction: the latest period kept whole,
    /// which is the latest period (`merge` summarizes the others).
    public var currentTransaction: JWSTransactionDecodedPayload? { latestKeptWhole?.value }

    /// The snapshot kept whole whose period is the latest (by `periodOrder`, then its key), with its key.
    var latestKeptWhole: (key: String, value: JWSTransactionDecodedPayload)? {
        transactions.max { Self.periodRank($0.value, $0.key) < Self.periodRank($1.value, $1.key) }
    }

    /// Every known period's transaction id (the current one and the earlier ones).
    public var knownTransactionIds: Set<String> {
        Set(transactions.keys).union(earlierPeriods?.keys ?? [:].keys)
    }

    /// The current period's `transactionId`.
    public var transactionId: String? { currentTransaction?.transactionId }
    /// The product of the current period: the plan in effect now.
    public var productId: String? { currentTransaction?.productId }
    /// The subscription group of the current period.
    public var subscriptionGroupIdentifier: String? { currentTransaction?.subscriptionGroupIdentifier }
    /// Sandbox or Production, from the current period.
    public var environment: AppStoreEnvironment? { currentTransaction?.environment }
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var ownershipType: InAppOwnershipType? { currentTransaction?.inAppOwnershipType }
    /// The token the app set at purchase, if any.
    public var appAccountToken: String? { currentTransaction?.appAccountToken ?? renewalInfo?.appAccountToken }
    /// ISO 3166-1 alpha-3 storefront of the current period.
    public var storefront: String? { currentTransaction?.storefront }
    /// When the current period started.
    public var purchaseDateMs: Int64? { currentTransaction?.purchaseDate }
    /// When the subscription was first bought.
    public var originalPurchaseDateMs: Int64? {
        currentTransaction?.originalPurchaseDate ?? orderedPeriodKeys().first.flatMap(\.purchaseDate)
    }
    /// When the current period ends (before any grace period).
    public var expiresDateMs: Int64? { currentTransaction?.expiresDate }
    /// Trial, intro, promotional or normal, from the current period's offer fields.
    public var periodType: PeriodType? { currentTransaction.map(Self.periodType(of:)) }
    /// The offer of the current period, if any.
    public var offer: Offer? { currentTransaction.flatMap(Self.offer(of:)) }
    /// The current period's price in milliunits of `currency`.
    public var priceMilliunits: Int64? { currentTransaction?.price }
    /// ISO 4217.
    public var currency: String? { currentTransaction?.currency }
    /// The current period's number, 1 for the first known one.
    public var renewalNumber: Int? { transactionId.flatMap(periodNumber(of:)) }
    /// The Advanced Commerce items, descriptors and prices of the current period, when present.
    public var advancedCommerce: TransactionAdvancedCommerceInfo? { currentTransaction?.advancedCommerceInfo }
    /// The Advanced Commerce items and prices of the next renewal, when present.
    public var renewalAdvancedCommerce: RenewalAdvancedCommerceInfo? { renewalInfo?.advancedCommerceInfo }
    /// The product a scheduled plan change moves to at the next renewal; nil when none.
    public var scheduledProductId: String? {
        guard let next = autoRenewProductId, next != productId else { return nil }
        return next
    }

    /// The 1-based position of a period among the known ones, in the order they started.
    public func periodNumber(of transactionId: String) -> Int? {
        orderedPeriodKeys().firstIndex { $0.transactionId == transactionId }.map { $0 + 1 }
    }

    /// The period type of the latest period that started before `transaction`'s (by
    /// `periodOrder`), if any.
    func periodType(before transaction: JWSTransactionDecodedPayload) -> PeriodType? {
        let bound = Self.periodOrder(transaction)
        return orderedPeriodKeys().last { $0.order < bound }?.periodType
    }

    /// What orders a period (`periodOrder`), and what the helpers read of it, whole or summarized.
    struct PeriodKey {
        var order: (Int64, Int64, String)
        var transactionId: String?
        var purchaseDate: Int64?
        var periodType: PeriodType
    }

    /// One key per known period: the one kept whole, then the summarized ones.
    func periodKeys() -> [PeriodKey] {
        var keys: [PeriodKey] = []
        keys.reserveCapacity(transactions.count + (earlierPeriods?.count ?? 0))
        for transaction in transactions.values {
            keys.append(
                PeriodKey(
                    order: Self.periodOrder(transaction), transactionId: transaction.transactionId,
                    purchaseDate: transaction.purchaseDate, periodType: Self.periodType(of: transaction)))
        }
        for period in (earlierPeriods ?? [:]).values {
            keys.append(
                PeriodKey(
                    order: (period.purchaseDate ?? 0, period.expiresDate ?? 0, period.transactionId ?? ""),
                    transactionId: period.transactionId, purchaseDate: period.purchaseDate, periodType: period.periodType))
        }
        return keys
    }

    /// The keys in the order the periods started.
    func orderedPeriodKeys() -> [PeriodKey] {
        periodKeys().sorted { $0.order < $1.order }
    }

    // MARK: - Derivations

    /// RevenueCat's period type from Apple's offer fields.
    ///
    /// A free-trial discount is a trial whatever the offer type; other introductory offers are
    /// intro; promotional offers, offer codes and win-back offers are promotional; no offer is
    /// normal. Old payloads without `offerDiscountType` count a free introductory offer as a trial.
    public static func periodType(of transaction: JWSTransactionDecodedPayload) -> PeriodType {
        if transaction.offerDiscountType == .freeTrial { return .trial }
        switch transaction.offerType {
        case .none: return .normal
        // PROMOTIONAL is RevenueCat's for entitlements it grants, never for a store's offer: an
        // introductory, promotional, offer-code or win-back price is TRIAL when free, else INTRO.
        case .introductory?, .promotional?, .offerCode?, .winBack?, .unknown?:
            return transaction.offerDiscountType == nil && transaction.price == 0 ? .trial : .intro
        }
    }

    static func offer(of transaction: JWSTransactionDecodedPayload) -> Offer? {
        guard transaction.offerType != nil || transaction.offerIdentifier != nil else { return nil }
        return Offer(
            type: transaction.offerType, identifier: transaction.offerIdentifier,
            discountType: transaction.offerDiscountType, period: transaction.offerPeriod)
    }

    static func offer(of renewal: JWSRenewalInfoDecodedPayload) -> Offer? {
        guard renewal.offerType != nil || renewal.offerIdentifier != nil else { return nil }
        return Offer(
            type: renewal.offerType, identifier: renewal.offerIdentifier,
            discountType: renewal.offerDiscountType, period: renewal.offerPeriod)
    }

    /// What orders periods: start, then end, then id (a total order, so the current one is unique).
    static func periodOrder(_ transaction: JWSTransactionDecodedPayload) -> (Int64, Int64, String) {
        (transaction.purchaseDate ?? 0, transaction.expiresDate ?? 0, transaction.transactionId ?? "")
    }

    /// `periodOrder`, then the key the snapshot is kept under: which snapshot `merge` keeps whole.
    static func periodRank(_ transaction: JWSTransactionDecodedPayload, _ key: String) -> (Int64, Int64, String, String) {
        let order = periodOrder(transaction)
        return (order.0, order.1, order.2, key)
    }
}

extension SubscriptionState {
    /// The earlier period `transaction` took over from: the latest one bought before it.
    func period(replacedBy transaction: JWSTransactionDecodedPayload) -> EarlierPeriod? {
        guard let bought = transaction.purchaseDate else { return nil }
        return (earlierPeriods ?? [:]).values
            .filter { ($0.purchaseDate ?? .max) < bought && $0.transactionId != transaction.transactionId }
            .max { ($0.purchaseDate ?? 0, $0.transactionId ?? "") < ($1.purchaseDate ?? 0, $1.transactionId ?? "") }
    }
}
