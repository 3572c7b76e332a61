import AppStore

/// The transition table: how one fact changes a subscription's registers.
///
/// Facts arrive here in fold order (oldest `signedDate` first), so each case can write what its
/// notification says without checking dates; a newer fact folded later overwrites it.
extension SubscriptionState: FactFolding {
    func unfolded() -> SubscriptionState {
        SubscriptionState(originalTransactionId: originalTransactionId, journal: journal)
    }

    mutating func absorb(_ fact: PurchaseFact) {
        guard case .notification(let type, let subtype) = fact.source else {
            if fact.source == .appleAPI { absorbAppleAnswer(fact) } else { absorbPosted(fact) }
            return
        }
        let signedDate = fact.signedDateMs
        let reported = fact.transactionId
        let (periodBefore, endBefore) = (transactionId, accessEndsAtMs)
        // Access that had ended and runs again after this fact (grace granted by a billing notice
        // that came after the period's end, a refund reversed while the period runs) is a new
        // lapse, with an EXPIRATION of its own when it ends.
        defer { if transactionId == periodBefore { restoreAccess(reported, endedBy: endBefore, fact) } }
        switch (type, subtype) {
        case (.subscribed, .initialBuy?), (.subscribed, .resubscribe?),
            (.didRenew, nil), (.didRenew, .billingRecovery?),
            (.didChangeRenewalPref, .upgrade?), (.offerRedeemed, .upgrade?):
            startPeriod(fact)
        case (.didChangeRenewalPref, .downgrade?), (.offerRedeemed, .downgrade?):
            note(fact)
            if let next = fact.renewalInfo?.autoRenewProductId { autoRenewProductId = next }
            if type == .offerRedeemed { redeemedOffer = fact.renewalInfo.flatMap(Self.offer(of:)) }
        case (.didChangeRenewalPref, nil):
            note(fact)
            autoRenewProductId = fact.transaction?.productId ?? productId
        case (.offerRedeemed, nil):
            note(fact)
            redeemedOffer = fact.renewalInfo.flatMap(Self.offer(of:)) ?? fact.transaction.flatMap(Self.offer(of:))
        case (.didChangeRenewalStatus, .autoRenewDisabled?):
            note(fact)
            setAutoRenew(false, at: signedDate)
        case (.didChangeRenewalStatus, .autoRenewEnabled?):
            note(fact)
            setAutoRenew(true, at: signedDate)
        case (.didFailToRenew, nil), (.didFailToRenew, .gracePeriod?):
            note(fact)
            let grace = subtype == .gracePeriod ? Self.gracePeriodEnd(of: fact) : nil
            markBillingIssue(reported, at: signedDate, inRetry: fact.renewalInfo?.isInBillingRetryPeriod ?? true)
            billingIssue?.gracePeriodExpiresDateMs = grace
        case (.gracePeriodExpired, nil):
            note(fact)
            markBillingIssue(reported, at: signedDate, inRetry: true)
            billingIssue?.gracePeriodEndedAtMs = signedDate
        case (.expired, nil), (.expired, .voluntary?), (.expired, .billingRetry?),
            (.expired, .priceIncrease?), (.expired, .productNotForSale?):
            note(fact)
            absorbExpired(fact, subtype: subtype)
        case (.priceIncrease, .pending?), (.priceIncrease, .accepted?):
            note(fact)
            if let reported {
                let status: PriceIncreaseStatus =
                    subtype == .pending ? .customerHasNotResponded : .customerConsentedOrWasNotifiedWithoutNeedingConsent
                priceIncrease = PriceIncrease(transactionId: reported, status: status)
            }
        case (.refund, nil):
            note(fact)
            if let refund = Revocation(in: fact) { refunds[refund.transactionId] = refund }
        case (.refundReversed, nil):
            note(fact)
            if let reported { refunds[reported] = nil }
        case (.revoke, nil):
            note(fact)
            revocation = Revocation(in: fact)
        case (.renewalExtended, nil):
            note(fact)
            // Always a new lapse, not only when access had ended by the fact's signedDate: an
            // extension signed before the end but delivered after the timer recorded it gave
            // access back here, and that access must end in an EXPIRATION of its own. Before
            // the end, the lapse it replaces never had one (RenewalExtendedLapseTests).
            if let reported { accessRestorations[reported] = fact.id }
        case (.metadataUpdate, nil), (.migration, nil), (.priceChange, nil):
            note(fact)
        case (.refundDeclined, nil), (.consumptionRequest, nil), (.renewalExtension, .summary?),
            (.renewalExtension, .failure?), (.test, nil), (.oneTimeCharge, nil), (.rescindConsent, nil),
            (.externalPurchaseToken, .unreported?), (.externalPurchaseToken, .created?),
            (.externalPurchaseToken, .activeTokenReminder?):
            stamp(signedDate)
        default:
            return
        }
    }

    // MARK: - Cases

    /// Starts a new lapse (`lapseKey`) when `fact` gave back access to the current period that
    /// had ended: it ended by `endBefore`, at or before the fact was signed, and now runs past it.
    /// A fact that only moves the end of access that never stopped, or gives back a period that is
    /// over anyway (a refund reversed after the period's end), keeps the lapse and its one EXPIRATION.
    private mutating func restoreAccess(_ reported: String?, endedBy endBefore: Int64?, _ fact: PurchaseFact) {
        guard let current = transactionId, reported == current, let endBefore, endBefore <= fact.signedDateMs,
            let endAfter = accessEndsAtMs, endAfter > fact.signedDateMs
        else { return }
        accessRestorations[current] = fact.id
    }

    /// A posted transaction adds its snapshot; if it starts a later period, that period begins.
    private mutating func absorbPosted(_ fact: PurchaseFact) {
        let previous = transactionId
        stamp(fact.signedDateMs)
        merge(fact)
        if transactionId != previous, transactionId == fact.transactionId { endStreaks(for: fact) }
        takeRevocation(from: fact)
    }

    /// What Apple answered of the subscription when asked: its latest transaction and renewal
    /// info, as a notification carrying them would leave the registers.
    private mutating func absorbAppleAnswer(_ fact: PurchaseFact) {
        let previous = transactionId
        note(fact)
        if transactionId != previous, transactionId == fact.transactionId { endStreaks(for: fact) }
        takeRevocation(from: fact)
    }

    /// A transaction Apple signed with a `revocationDate` (posted by the app, or in an answer of
    /// Apple's) says what its REFUND or REVOKE notification says: access to that period ended
    /// then. A refund already known is kept as it was recorded; the one Family Sharing
    /// revocation slot is taken only when empty or for the current period.
    ///
    /// Signed without one, as the newest snapshot of a transaction recorded refunded, it says
    /// what REFUND_REVERSED says: facts fold in signed-date order, so Apple signed it after the
    /// refund, and the refund was reversed. An older copy (a device's cache) changes nothing.
    private mutating func takeRevocation(from fact: PurchaseFact) {
        guard let transaction = fact.transaction else { return }
        guard transaction.revocationDate != nil, let taken = Revocation(in: fact) else {
            if let id = transaction.transactionId, refunds[id] != nil, transaction.revocationDate == nil,
                !Revocation.isFamilySharing(transaction), newestSnapshotSignedDate(of: id) == fact.transactionSignedDateMs
            {
                refunds[id] = nil
            }
            return
        }
        if Revocation.isFamilySharing(transaction) {
            if revocation == nil || taken.transactionId == transactionId { revocation = taken }
        } else if refunds[taken.transactionId] == nil {
            refunds[taken.transactionId] = taken
        }
    }

    /// A purchase, renewal, resubscription or upgrade: a new period on the transaction's product.
    ///
    /// Without renewal info, a period that just started implies auto-renew on and no plan change.
    private mutating func startPeriod(_ fact: PurchaseFact) {
        note(fact)
        if fact.renewalInfo?.autoRenewStatus == nil { setAutoRenew(true, at: fact.signedDateMs) }
        if fact.renewalInfo?.autoRenewProductId == nil, let product = fact.transaction?.productId {
            autoRenewProductId = product
        }
        endStreaks(for: fact)
    }

    /// A new period ends the previous one's billing issue and any redeemed offer.
    private mutating func endStreaks(for fact: PurchaseFact) {
        if billingIssue?.transactionId != fact.transactionId { endBillingIssue(at: fact.signedDateMs) }
        redeemedOffer = nil
    }

    private mutating func absorbExpired(_ fact: PurchaseFact, subtype: Subtype?) {
        guard let transactionId = fact.transactionId else { return }
        expiredNotice = ExpiredNotice(
            transactionId: transactionId, subtype: subtype,
            expirationIntent: fact.renewalInfo?.expirationIntent, signedDateMs: fact.signedDateMs)
        switch subtype {
        case .voluntary?:
            setAutoRenew(false, at: atMostPeriodEnd(fact.signedDateMs))
            endBillingIssue(at: fact.signedDateMs)
        case .billingRetry?:
            // Billing retry ended in an EXPIRED: the issue began at the period's end at the latest.
            markBillingIssue(transactionId, at: atMostPeriodEnd(fact.signedDateMs), inRetry: false)
        default:
            break
        }
    }

    // MARK: - Register writes

    /// The common part of every known notification: its snapshots and its date.
    private mutating func note(_ fact: PurchaseFact) {
        stamp(fact.signedDateMs)
        merge(fact)
        guard let renewal = fact.renewalInfo else { return }
        renewalInfo = renewal
        // Told after the period ended (an answer of Apple's, asked by an import; an EXPIRED): what
        // it tells began by the period's end. A notification during the period (a cancel in
        // billing retry too) is the moment Apple told it.
        let told = fact.tellsAfterTheFact ? atMostPeriodEnd(fact.signedDateMs) : fact.signedDateMs
        switch renewal.autoRenewStatus {
        case .on?: setAutoRenew(true, at: fact.signedDateMs)
        case .off?: setAutoRenew(false, at: told)
        case .unknown?, nil: break
        }
        if let next = renewal.autoRenewProductId { autoRenewProductId = next }
        // Renewal info describes the subscription as of the fact, whichever (possibly older)
        // transaction the fact carries: tie what it says to the period current at that point.
        let current = transactionId
        if let status = renewal.priceIncreaseStatus, let current {
            priceIncrease = PriceIncrease(transactionId: current, status: status)
        }
        if renewal.isInBillingRetryPeriod == true {
            markBillingIssue(current, at: told, inRetry: true)
            if let grace = renewal.gracePeriodExpiresDate { billingIssue?.gracePeriodExpiresDateMs = grace }
        } else if let inRetry = renewal.isInBillingRetryPeriod, billingIssue?.transactionId == current {
            billingIssue?.isInBillingRetry = inRetry
        }
    }

    /// Keeps the newest snapshot of the fact's transaction, by the transaction's own signed date,
    /// whole if its period is the latest, else summarized (`EarlierPeriod`).
    private mutating func merge(_ fact: PurchaseFact) {
        guard let transaction = fact.transaction, let id = transaction.transactionId else { return }
        let known = transactions[id].map { $0.signedDate ?? 0 } ?? earlierPeriods?[id].map { $0.signedDate ?? 0 }
        if let known, known > fact.transactionSignedDateMs { return }
        var snapshot = transaction
        snapshot.signedDate = fact.transactionSignedDateMs
        earlierPeriods?[id] = nil
        transactions[id] = snapshot
        summarizeEarlierPeriods()
    }

    /// Keeps only the latest period's snapshot whole (by `periodOrder`, then id) and summarizes
    /// the others.
    private mutating func summarizeEarlierPeriods() {
        var earlier = earlierPeriods ?? [:]
        if transactions.count > 1 {
            let latest = latestKeptWhole
            for (id, snapshot) in transactions where id != latest?.key { earlier[id] = EarlierPeriod(snapshot) }
            transactions = latest.map { [$0.key: $0.value] } ?? [:]
        }
        earlierPeriods = earlier.isEmpty ? nil : earlier
    }

    /// The shortest grace period Apple offers (3 days), for a `GRACE_PERIOD` notice whose
    /// renewal info leaves `gracePeriodExpiresDate` out (seen in Production): Apple's notice
    /// says to keep serving through the grace, whose end is then known only to be no earlier.
    static let shortestGracePeriodMs: Int64 = 3 * 86_400_000

    /// Where a `DID_FAIL_TO_RENEW` (`GRACE_PERIOD`) grace ends: Apple's `gracePeriodExpiresDate`,
    /// else the failing period's expiry plus the shortest grace Apple offers.
    static func gracePeriodEnd(of fact: PurchaseFact) -> Int64? {
        fact.renewalInfo?.gracePeriodExpiresDate ?? fact.transaction?.expiresDate.map { $0 + shortestGracePeriodMs }
    }

    /// The signed date of the newest snapshot kept of transaction `id`.
    private func newestSnapshotSignedDate(of id: String) -> Int64? {
        transactions[id].map { $0.signedDate } ?? earlierPeriods?[id]?.signedDate
    }

    private mutating func stamp(_ signedDate: Int64) {
        newestSignedDateMs = max(newestSignedDateMs ?? signedDate, signedDate)
    }

    /// Auto-renew off is detected at `signedDate` (when it was told, or by when it happened).
    private mutating func setAutoRenew(_ enabled: Bool, at signedDate: Int64) {
        if enabled {
            unsubscribeDetectedAtMs = nil
        } else if autoRenewEnabled != false || unsubscribeDetectedAtMs == nil {
            unsubscribeDetectedAtMs = signedDate
        }
        autoRenewEnabled = enabled
    }

    /// `ms`, or the current period's end when that came first.
    private func atMostPeriodEnd(_ ms: Int64) -> Int64 { min(ms, expiresDateMs ?? ms) }

    /// Starts a streak for `transactionId`, or keeps the one already running for it.
    private mutating func markBillingIssue(_ transactionId: String?, at signedDate: Int64, inRetry: Bool) {
        guard let transactionId else { return }
        if billingIssue?.transactionId == transactionId {
            billingIssue?.isInBillingRetry = inRetry
        } else {
            endBillingIssue(at: signedDate)
            billingIssue = BillingIssue(transactionId: transactionId, detectedAtMs: signedDate, isInBillingRetry: inRetry)
        }
    }

    /// Ends the billing issue, keeping where its grace period ended (`endedGracePeriods`): at
    /// the start of the current period when that is a later one, else at `endMs`.
    private mutating func endBillingIssue(at endMs: Int64) {
        guard let issue = billingIssue else { return }
        let endedAt = issue.transactionId != transactionId ? purchaseDateMs ?? endMs : endMs
        if let ended = endedGrace(of: issue, endedAtMs: endedAt) {
            endedGracePeriods = (endedGracePeriods ?? [:]).merging([ended.productId ?? "": ended.endMs]) { $1 }
        }
        billingIssue = nil
    }
}
