import AppStore

/// The state of one auto-renewable subscription, identified by its `originalTransactionId`.
///
/// Stored properties are the registers the transition table writes (`absorb`); the current
/// period's view (product, dates, period type, price, renewal number…) is computed from the newest
/// snapshot of each transaction (`SubscriptionState+Period.swift`), and access, the lapse and its
/// reason from both (`SubscriptionState+Access.swift`). Everything except `journal` is a pure
/// function of the facts in `journal.facts`: `refolded() == self` always holds.
/// Field semantics follow Apple's notification docs:
/// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
public struct SubscriptionState: Codable, Hashable, Sendable {
    /// The subscription's identity across renewals.
    public let originalTransactionId: String

    // MARK: - Snapshots

    /// The newest snapshot (by the transaction's own `signedDate`) of the latest known period, by
    /// transaction id. States stored before `earlierPeriods` hold every period here, until their
    /// next transaction.
    public package(set) var transactions: [String: JWSTransactionDecodedPayload] = [:]
    /// Every earlier known period, summarized (`EarlierPeriod`), by transaction id; nil for none.
    public package(set) var earlierPeriods: [String: EarlierPeriod]?
    /// The renewal info of the newest fact that carried one.
    public package(set) var renewalInfo: JWSRenewalInfoDecodedPayload?

    // MARK: - Renewal registers

    /// Whether the subscription renews; nil until a fact said so.
    public package(set) var autoRenewEnabled: Bool?
    /// The product that renews next; differs from `productId` while a plan change is scheduled.
    public package(set) var autoRenewProductId: String?
    /// When auto-renew was first seen off in the current run of "off" (RevenueCat's
    /// `unsubscribe_detected_at`); nil while auto-renew is on.
    public package(set) var unsubscribeDetectedAtMs: Int64?
    /// The current failure streak, if a renewal failed; tied to the period that failed to renew.
    public package(set) var billingIssue: BillingIssue?
    /// Per product, where the grace period of its last billing-issue streak that had one and is
    /// over ended (`endedGrace(of:endedAtMs:)`): RevenueCat keeps showing it. Nil for none.
    public package(set) var endedGracePeriods: [String: Int64]?
    /// The last `EXPIRED` notification: its subtype and Apple's expiration intent.
    public package(set) var expiredNotice: ExpiredNotice?
    /// The last price-increase status Apple reported, tied to the period it was reported in.
    public package(set) var priceIncrease: PriceIncrease?
    /// Refunds in force, by `transactionId` (a `REFUND_REVERSED` removes one).
    public package(set) var refunds: [String: Revocation] = [:]
    /// A Family Sharing revocation (`REVOKE`), tied to the period it revoked.
    public package(set) var revocation: Revocation?
    /// Per `transactionId`, the last fact that gave access back to that period after it could
    /// have lapsed (`REFUND_REVERSED`, `RENEWAL_EXTENDED`): it starts a new lapse.
    public package(set) var accessRestorations: [String: String] = [:]
    /// The offer recorded by `OFFER_REDEEMED` without subtype, until the next period starts.
    public package(set) var redeemedOffer: Offer?
    /// The newest `signedDate` among the facts folded in (unknown types excluded).
    public package(set) var newestSignedDateMs: Int64?

    // MARK: - Bookkeeping

    /// History, owner and emitted event ids; not part of the fold.
    public package(set) var journal: PurchaseJournal

    /// A subscription nobody has told anything yet.
    public init(originalTransactionId: String, journal: PurchaseJournal = PurchaseJournal()) {
        self.originalTransactionId = originalTransactionId
        self.journal = journal
    }
}

// MARK: - Register values

extension SubscriptionState {
    /// A renewal that failed for billing reasons, and Apple's retry and grace state for it.
    public struct BillingIssue: Codable, Hashable, Sendable {
        /// The period that failed to renew.
        public var transactionId: String
        /// The first signed date at which the streak was seen.
        public var detectedAtMs: Int64
        /// Whether Apple is still trying to bill.
        public var isInBillingRetry: Bool
        /// Apple's `gracePeriodExpiresDate`; nil when no grace period was granted.
        public var gracePeriodExpiresDateMs: Int64?
        /// When `GRACE_PERIOD_EXPIRED` said the grace period was over.
        public var gracePeriodEndedAtMs: Int64?

        /// Where the grace period ends: Apple's `gracePeriodExpiresDate`, cut short by
        /// `GRACE_PERIOD_EXPIRED` or by `expired` when it is of the same period; nil without one.
        public func graceEndMs(expired: ExpiredNotice?) -> Int64? {
            guard var end = gracePeriodExpiresDateMs else { return nil }
            if let gracePeriodEndedAtMs { end = min(end, gracePeriodEndedAtMs) }
            if let expired, expired.transactionId == transactionId { end = min(end, expired.signedDateMs) }
            return end
        }

        package init(
            transactionId: String, detectedAtMs: Int64, isInBillingRetry: Bool, gracePeriodExpiresDateMs: Int64? = nil,
            gracePeriodEndedAtMs: Int64? = nil
        ) {
            self.transactionId = transactionId
            self.detectedAtMs = detectedAtMs
            self.isInBillingRetry = isInBillingRetry
            self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
            self.gracePeriodEndedAtMs = gracePeriodEndedAtMs
        }
    }

    /// What an `EXPIRED` notification said.
    public struct ExpiredNotice: Codable, Hashable, Sendable {
        public var transactionId: String
        public var subtype: Subtype?
        public var expirationIntent: ExpirationIntent?
        public var signedDateMs: Int64

        package init(transactionId: String, subtype: Subtype?, expirationIntent: ExpirationIntent?, signedDateMs: Int64) {
            self.transactionId = transactionId
            self.subtype = subtype
            self.expirationIntent = expirationIntent
            self.signedDateMs = signedDateMs
        }
    }

    /// A price-increase status and the period it was reported in.
    public struct PriceIncrease: Codable, Hashable, Sendable {
        public var transactionId: String
        public var status: PriceIncreaseStatus

        package init(transactionId: String, status: PriceIncreaseStatus) {
            self.transactionId = transactionId
            self.status = status
        }
    }

    /// An offer: the transaction's, renewal info's, or one redeemed for the next renewal.
    public struct Offer: Codable, Hashable, Sendable {
        public var type: OfferType?
        public var identifier: String?
        public var discountType: OfferDiscountType?
        /// ISO 8601 duration, such as `P1M`.
        public var period: String?

        package init(type: OfferType?, identifier: String?, discountType: OfferDiscountType?, period: String?) {
            self.type = type
            self.identifier = identifier
            self.discountType = discountType
            self.period = period
        }
    }
}
