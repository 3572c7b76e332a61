import AppStore

/// Access, lapses and their reasons, computed from the current period and the registers.
extension SubscriptionState {
    /// The billing issue of the current period, if any (a renewal ends the streak).
    public var currentBillingIssue: BillingIssue? {
        guard let issue = billingIssue, issue.transactionId == transactionId else { return nil }
        return issue
    }

    /// When the current billing issue was detected (`billing_issues_detected_at`).
    public var billingIssueDetectedAtMs: Int64? { currentBillingIssue?.detectedAtMs }
    /// Whether Apple is still retrying to bill the current period.
    public var isInBillingRetry: Bool { currentBillingIssue?.isInBillingRetry ?? false }
    /// The grace period's end while one runs for the current period.
    public var gracePeriodExpiresDateMs: Int64? { currentBillingIssue?.gracePeriodExpiresDateMs }
    /// The refund of the current period, if it was refunded.
    public var currentRefund: Revocation? { transactionId.flatMap { refunds[$0] } }
    /// When the current period was refunded (`refunded_at`).
    public var refundedAtMs: Int64? { currentRefund?.atMs }
    /// Apple's reason for refunding the current period.
    public var refundReason: RevocationReason? { currentRefund?.reason }
    /// When Family Sharing access to the current period was revoked.
    public var revokedAtMs: Int64? {
        guard let revocation, revocation.transactionId == transactionId else { return nil }
        return revocation.atMs
    }
    /// The price-increase status reported during the current period.
    public var priceIncreaseStatus: PriceIncreaseStatus? {
        guard let priceIncrease, priceIncrease.transactionId == transactionId else { return nil }
        return priceIncrease.status
    }

    /// When access ends, grace period included; nil while no period with an expiry is known.
    ///
    /// A paid period always runs to its `expiresDate`. A grace period extends it, up to Apple's
    /// `gracePeriodExpiresDate`, cut short by `GRACE_PERIOD_EXPIRED` or `EXPIRED`. A refund or a
    /// Family Sharing revocation of the current period ends access at its `revocationDate`.
    public var accessEndsAtMs: Int64? {
        guard let current = currentTransaction, let transactionId = current.transactionId,
            let expires = current.expiresDate
        else { return nil }
        var end = expires
        if let graceEnd = currentBillingIssue?.graceEndMs(expired: expiredNotice) { end = max(end, graceEnd) }
        if let refund = refunds[transactionId] { end = min(end, refund.atMs) }
        if let revokedAtMs { end = min(end, revokedAtMs) }
        return end
    }

    /// The end of access a grace period of the current period gives (RevenueCat's
    /// `grace_period_expires_date`); nil when Apple granted none.
    ///
    /// Apple's `gracePeriodExpiresDate` as cut short by `GRACE_PERIOD_EXPIRED`, `EXPIRED`, a refund or
    /// a revocation: `accessEndsAtMs`, so a client reading the later of `expires_date` and this
    /// date sees access end exactly when `hasAccess` says it does.
    public var gracePeriodAccessEndsAtMs: Int64? {
        gracePeriodExpiresDateMs == nil ? nil : accessEndsAtMs
    }

    /// RevenueCat's `grace_period_expires_date` of the current product: the current period's grace
    /// end (`gracePeriodAccessEndsAtMs`), else where the product's last grace period that is over
    /// ended; nil when it never had one.
    public var lastGracePeriodAccessEndsAtMs: Int64? {
        gracePeriodAccessEndsAtMs ?? endedGracePeriodEndMs(ofProduct: productId)
    }

    /// Where the last grace period of `product` that is over ended: one a later period ended
    /// (`endedGracePeriods`), or that of a streak still recorded for an earlier period (a
    /// renewal notice missed, so no period start ended it), which the current period ended.
    public func endedGracePeriodEndMs(ofProduct product: String?) -> Int64? {
        if let issue = billingIssue, issue.transactionId != transactionId,
            let ended = endedGrace(of: issue, endedAtMs: purchaseDateMs ?? .max), ended.productId == product
        {
            return ended.endMs
        }
        return endedGracePeriods?[product ?? ""]
    }

    /// Where `issue`'s grace period ends as `accessEndsAtMs` cuts it: Apple's end, cut by
    /// `GRACE_PERIOD_EXPIRED`, an `EXPIRED`, a refund or a revocation of its period; nil without one.
    func graceEnd(of issue: BillingIssue) -> Int64? {
        guard var end = issue.graceEndMs(expired: expiredNotice) else { return nil }
        if let refund = refunds[issue.transactionId] { end = min(end, refund.atMs) }
        if let revocation, revocation.transactionId == issue.transactionId { end = min(end, revocation.atMs) }
        return end
    }

    /// `issue`'s grace period as a later period (or a voluntary expiry) ended it at `endedAtMs`:
    /// never after that, so no grace end is shown ahead once none runs; with the product of the
    /// period that failed to renew. Nil without a grace period.
    func endedGrace(of issue: BillingIssue, endedAtMs: Int64) -> (productId: String?, endMs: Int64)? {
        guard let end = graceEnd(of: issue) else { return nil }
        let product = transactions[issue.transactionId]?.productId ?? earlierPeriods?[issue.transactionId]?.productId
        return (product, min(end, endedAtMs))
    }

    /// Whether the subscription gives access at `nowMs`.
    public func hasAccess(atMs nowMs: Int64) -> Bool {
        accessEndsAtMs.map { nowMs < $0 } ?? false
    }

    /// Names the lapse that follows the current period: its `transactionId`, plus the last fact
    /// that restored access to that same period, if any.
    ///
    /// A renewal starts a new period and so a new lapse; moving the end of the same lapse (a late
    /// `EXPIRED`, `GRACE_PERIOD_EXPIRED`, a refund) keeps the key, so one lapse gets one
    /// `EXPIRATION`. A `REFUND_REVERSED` or `RENEWAL_EXTENDED` gives access back, and the end
    /// that follows is a new lapse.
    public var lapseKey: String? {
        guard let transactionId else { return nil }
        return accessRestorations[transactionId].map { "\(transactionId)+\($0)" } ?? transactionId
    }

    /// The id the `EXPIRATION` of the current lapse has (or will have).
    public var expirationEventId: String? {
        lapseKey.map { EventID.make(cause: "\(originalTransactionId)/EXPIRATION/\($0)") }
    }

    /// The timer to feed back in: when the current lapse's `EXPIRATION` is due, while it is not
    /// yet recorded.
    public var pendingTimer: ExpirationTimer? {
        guard let due = expirationDueAtMs, let id = expirationEventId, !journal.hasEmitted(id) else { return nil }
        return ExpirationTimer(originalTransactionId: originalTransactionId, fireAtMs: due)
    }

    /// When the `EXPIRATION` of the current lapse is due: the end of access, or, for a period
    /// Apple is expected to renew (nothing says it lapses), `renewalNoticeWaitMs` after it.
    var expirationDueAtMs: Int64? {
        accessEndsAtMs.map { $0 + renewalNoticeWaitMs }
    }

    /// The longest an `EXPIRATION` waits for the notice of a renewal due at the end of access:
    /// RevenueCat's, which without a notice learns of an expiry about an hour late.
    public static let longestRenewalNoticeWaitMs: Int64 = 3_600_000

    /// How long past the end of access the `EXPIRATION` of a period nothing says lapses waits
    /// for Apple's renewal (`DID_RENEW`) or billing notice (`DID_FAIL_TO_RENEW`), which can
    /// arrive just after the expiry (Sandbox renews at it, and a retried delivery comes later):
    /// a tenth of the period, at most an hour, so a renewal a moment late is not first reported
    /// as an expiry, nor a grace period as a lapse. Zero once the lapse is known: auto-renew
    /// off, Apple's `EXPIRED`, a billing issue, a refund or a revocation.
    var renewalNoticeWaitMs: Int64 {
        guard !lapseIsKnown, let current = currentTransaction, let start = current.purchaseDate,
            let expires = current.expiresDate, expires > start
        else { return 0 }
        return min(Self.longestRenewalNoticeWaitMs, (expires - start) / 10)
    }

    /// The timer rule: the `EXPIRATION` of the current lapse, once it is due by `nowMs` (access,
    /// grace included, ended, and the wait for a renewal notice over), unless that lapse
    /// already has one.
    ///
    /// Access ending is read from the state, not from the timer, so a stale or repeated timer,
    /// an `EXPIRED` Apple sends later, or one that never comes all give exactly one `EXPIRATION`
    /// per lapse; and a renewal that arrived before the timer leaves nothing to expire.
    ///
    /// `scheduledAtMs` is the firing timer's time: one a build without the wait scheduled at the
    /// end of access keeps that time, so `replay` of its firing makes the EXPIRATION it made.
    /// `lapseProven`: Apple's `RESUBSCRIBE` after access ended proves the lapse, wait or not.
    mutating func expire(atMs nowMs: Int64, scheduledAtMs: Int64? = nil, lapseProven: Bool = false) -> Event? {
        guard let end = accessEndsAtMs else { return nil }
        var due = lapseProven ? end : end + renewalNoticeWaitMs
        if let scheduledAtMs { due = min(due, max(end, scheduledAtMs)) }
        guard nowMs >= due, let expiration = expirationEvent(), journal.recordEmission(expiration.id) else { return nil }
        return expiration
    }

    /// The timer rule, run before `fact` is folded, when the fact says a lapse ended and starts a
    /// period that begins after the current one's access ended: a resubscription (Apple's
    /// `RESUBSCRIBE`, or a purchase the app posted) or a renewal after a billing retry
    /// (`BILLING_RECOVERY`) that arrives before the timer fired still follows the `EXPIRATION`
    /// of the lapse it closes.
    ///
    /// The state must say the current period lapsed (`lapseIsKnown`), not only that its end has
    /// passed: a period whose renewal has not arrived yet looks ended too (an upgrade the app
    /// posts then starts after it). An ordinary renewal never does, nor a late renewal that
    /// continues its period. A fact that says itself a lapse came before it (`provesALapse`)
    /// within the wait for a renewal notice closes the lapse too: the timer, not yet due, could
    /// not. Only for a fact folded after every other: one that lands earlier in the history
    /// changes the lapse it would close, and the timer reads the lapse at its own time.
    mutating func expire(before fact: PurchaseFact) -> Event? {
        guard let transaction = fact.transaction, Self.endsALapse(fact), let start = transaction.purchaseDate,
            transaction.transactionId != transactionId, let end = accessEndsAtMs, end < start,
            journal.insertionIndex(of: fact) == journal.facts.count
        else { return nil }
        // Past the wait the timer was due first: what it read then stands (`lapseIsKnown`).
        let resubscribedWithinTheWait = Self.provesALapse(fact, current: currentTransaction) && start < end + renewalNoticeWaitMs
        guard lapseIsKnown || resubscribedWithinTheWait else { return nil }
        return expire(atMs: start, lapseProven: resubscribedWithinTheWait)
    }

    /// Whether the state says the current period does not renew: Apple's `EXPIRED` of it,
    /// auto-renew off, a billing issue, a refund or a revocation of it.
    var lapseIsKnown: Bool {
        expiredNotice?.transactionId == transactionId || autoRenewEnabled == false || currentBillingIssue != nil
            || currentRefund != nil || revokedAtMs != nil
    }

    /// Whether `fact` says itself that a lapse came before it: Apple's `RESUBSCRIBE`, or a
    /// purchase (the app's post, Apple's answer) of the current period's own product, which
    /// only a resubscription starts (an upgrade changes the product; a renewal is no purchase).
    private static func provesALapse(_ fact: PurchaseFact, current: JWSTransactionDecodedPayload?) -> Bool {
        switch fact.source {
        case .notification(let type, let subtype): type == .subscribed && subtype == .resubscribe
        case .transactionPosted, .appleAPI:
            fact.transaction?.transactionReason == .purchase && fact.transaction?.productId != nil
                && fact.transaction?.productId == current?.productId
        }
    }

    /// Whether `fact` starts a period only a lapse comes before: a resubscription or a recovery.
    private static func endsALapse(_ fact: PurchaseFact) -> Bool {
        switch fact.source {
        case .notification(let type, let subtype):
            (type == .subscribed && subtype == .resubscribe) || (type == .didRenew && subtype == .billingRecovery)
        case .transactionPosted, .appleAPI:
            fact.transaction?.transactionReason == .purchase
        }
    }

    /// The `expiration_reason` an `EXPIRATION` of the current lapse carries.
    ///
    /// In order: a refund of the period (CUSTOMER_SUPPORT); a Family Sharing revocation
    /// (UNKNOWN: the member did nothing, and Apple does not say why); an `EXPIRED` subtype or Apple's
    /// expiration intent (VOLUNTARY → UNSUBSCRIBE, BILLING_RETRY → BILLING_ERROR, PRICE_INCREASE,
    /// PRODUCT_NOT_FOR_SALE → UNKNOWN), with no `EXPIRED` the intent of renewal info signed once
    /// the period ended (an answer of Apple's, to an import say); a billing issue (BILLING_ERROR);
    /// auto-renew off (UNSUBSCRIBE); a price increase still awaiting consent (PRICE_INCREASE);
    /// else UNKNOWN.
    public var expirationReason: LapseReason {
        if currentRefund != nil { return .customerSupport }
        if revokedAtMs != nil { return .unknown }
        if let notice = expiredNotice, notice.transactionId == transactionId, let reason = Self.reason(of: notice) {
            return reason
        }
        if let renewal = renewalInfo, let signed = renewal.signedDate, let expires = expiresDateMs, signed >= expires,
            let reason = Self.reason(of: renewal.expirationIntent)
        {
            return reason
        }
        if currentBillingIssue != nil { return .billingError }
        if autoRenewEnabled == false { return .unsubscribe }
        if priceIncreaseStatus == .customerHasNotResponded { return .priceIncrease }
        return .unknown
    }

    /// The reason the current period will not renew, once something cancelled it; nil otherwise.
    public var cancelReason: LapseReason? {
        if currentRefund != nil { return .customerSupport }
        if currentBillingIssue != nil { return .billingError }
        if let notice = expiredNotice, notice.transactionId == transactionId { return expirationReason }
        if autoRenewEnabled == false { return .unsubscribe }
        return nil
    }

    static func reason(of notice: ExpiredNotice) -> LapseReason? {
        switch notice.subtype {
        case .voluntary?: return .unsubscribe
        case .billingRetry?: return .billingError
        case .priceIncrease?: return .priceIncrease
        case .productNotForSale?: return .unknown
        default: return reason(of: notice.expirationIntent)
        }
    }

    /// The reason Apple's expiration intent gives; nil for none.
    static func reason(of intent: ExpirationIntent?) -> LapseReason? {
        switch intent {
        case .customerCancelled?: return .unsubscribe
        case .billingError?: return .billingError
        case .customerDidNotConsentToPriceIncrease?: return .priceIncrease
        case .productNotAvailable?, .other?, .unknown?: return .unknown
        case nil: return nil
        }
    }
}
