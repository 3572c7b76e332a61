import AppStore

/// The event table: which events a subscription fact causes.
///
/// Every event is a function of its fact and the states just before and after it in fold
/// order, with an id from its cause (see `EventID`). Owner, sequence, entitlements and the
/// timestamp are added by the ledger.
extension SubscriptionState {
    func events(for fact: PurchaseFact, before: SubscriptionState, after: SubscriptionState) -> [Event] {
        // Only a fact that turns auto-renew where it lands can split a change's run.
        let turns = before.autoRenewEnabled != after.autoRenewEnabled
        return ownEvents(for: fact, before: before, after: after) + (turns ? autoRenewReportsOfSplitRuns(around: fact) : [])
    }

    /// The events `fact` itself causes (`events` adds the reports another fact owes once this
    /// one arrived).
    func ownEvents(for fact: PurchaseFact, before: SubscriptionState, after: SubscriptionState) -> [Event] {
        guard let transaction = fact.transaction else { return [] }
        guard case .notification(let type, let subtype) = fact.source else {
            let period = periodEvent(transaction, first: transaction.transactionId == originalTransactionId, before, after)
            let autoRenew = fact.source == .appleAPI ? autoRenewEvents(fact, transaction, before, after) : []
            return [period] + autoRenew + [reportedRefund(fact, transaction, after)].compactMap { $0 }
        }
        let cause = "notification/\(fact.id)"
        switch (type, subtype) {
        case (.subscribed, .initialBuy?):
            return [periodEvent(transaction, first: true, before, after)]
        case (.subscribed, .resubscribe?), (.didRenew, nil), (.didRenew, .billingRecovery?):
            return [periodEvent(transaction, first: false, before, after)]
        case (.didChangeRenewalPref, .upgrade?), (.offerRedeemed, .upgrade?):
            var change = Event(.productChange, cause: "\(cause)/PRODUCT_CHANGE", transaction: transaction)
            if let previous = before.currentTransaction, previous.transactionId != transaction.transactionId {
                change.describe(previous)
                change.renewalNumber = previous.transactionId.flatMap(after.periodNumber(of:))
            } else if let replaced = before.period(replacedBy: transaction) {
                // The new transaction came first (the app posted it): the old product is the
                // period it replaced, as RevenueCat's PRODUCT_CHANGE describes.
                change.describe(replaced, of: transaction)
                change.renewalNumber = replaced.transactionId.flatMap(after.periodNumber(of:))
            }
            change.newProductId = transaction.productId
            return [change, periodEvent(transaction, first: false, before, after)]
        case (.didChangeRenewalPref, .downgrade?), (.offerRedeemed, .downgrade?):
            var change = event(.productChange, cause: "\(cause)/PRODUCT_CHANGE", transaction, after)
            change.newProductId = fact.renewalInfo?.autoRenewProductId ?? after.autoRenewProductId
            return [change]
        case (.didChangeRenewalPref, nil):
            var change = event(.productChange, cause: "\(cause)/PRODUCT_CHANGE", transaction, after)
            change.newProductId = transaction.productId
            return [change]
        case (.didChangeRenewalStatus, _) where autoRenewChangeReported(around: fact, byNotifications: false):
            return []
        case (.didChangeRenewalStatus, .autoRenewDisabled?):
            var cancellation = event(.cancellation, cause: "\(cause)/CANCELLATION", transaction, after)
            cancellation.cancelReason = .unsubscribe
            return [cancellation]
        case (.didChangeRenewalStatus, .autoRenewEnabled?):
            return [event(.uncancellation, cause: "\(cause)/UNCANCELLATION", transaction, after)]
        case (.didFailToRenew, nil), (.didFailToRenew, .gracePeriod?):
            return billingIssueEvents(transaction, fact: fact, after)
        case (.gracePeriodExpired, nil):
            // The pair its DID_FAIL_TO_RENEW gave, under the same ids: a missed notice is still
            // reported, a delivered one not twice (as EXPIRED BILLING_RETRY does).
            return billingIssueEvents(transaction, fact: fact, after)
        case (.refund, nil):
            guard Self.refundsLatestPeriod(fact, transaction) else { return [] }
            // Reported once: the app or Apple's API may have shown the refunded transaction first.
            if let id = transaction.transactionId, let at = transaction.revocationDate,
                journal.hasReportedRefund(of: id, at: at)
            {
                return []
            }
            var cancellation = event(.cancellation, cause: "\(cause)/CANCELLATION", transaction, after)
            // Access ended when the period was taken back, as RevenueCat's refund events say.
            cancellation.expirationAtMs = Self.accessEnd(of: transaction, takenBackAt: transaction.revocationDate)
            cancellation.setRefund(of: transaction)
            return [cancellation]
        case (.refundReversed, nil):
            var reversed = event(.refundReversed, cause: "\(cause)/REFUND_REVERSED", transaction, after)
            reversed.setPrice(milliunits: transaction.price)
            return [reversed]
        case (.renewalExtended, nil):
            return [event(.subscriptionExtended, cause: "\(cause)/SUBSCRIPTION_EXTENDED", transaction, after)]
        case (.expired, _):
            return expiryCancellation(transaction, fact: fact, subtype: subtype, after)
        default:
            return []
        }
    }

    /// The `EXPIRATION` of the current lapse, described by the current period; a refunded or
    /// revoked period ends when it was taken back.
    func expirationEvent() -> Event? {
        guard let lapseKey else { return nil }
        var expiration = event(.expiration, cause: "\(originalTransactionId)/EXPIRATION/\(lapseKey)", currentTransaction, self)
        expiration.expirationReason = expirationReason
        if let current = currentTransaction {
            let takenBack = [refundedAtMs, revokedAtMs].compactMap { $0 }.min()
            expiration.expirationAtMs = Self.accessEnd(of: current, takenBackAt: takenBack)
        }
        return expiration
    }

    /// The refund CANCELLATION of a refunded transaction the app posted or Apple's API answered
    /// with, when its REFUND notification has not given it (nor will: that one then skips it).
    /// Its id is the transaction's refund, where the notification's is the notification's: the
    /// one refund has one CANCELLATION either way, under the id of whichever report came first.
    private func reportedRefund(
        _ fact: PurchaseFact, _ transaction: JWSTransactionDecodedPayload, _ after: SubscriptionState
    ) -> Event? {
        // The refund must still be in force once every fact is folded (a reversal since undoes it).
        guard let id = transaction.transactionId, let at = transaction.revocationDate, refunds[id]?.atMs == at,
            !Revocation.isFamilySharing(transaction), Self.refundsLatestPeriod(fact, transaction),
            !journal.hasRefundNotification(about: id)
        else { return nil }
        var cancellation = event(.cancellation, cause: PurchaseJournal.reportedRefundCause(id, at), transaction, after)
        cancellation.setRefund(of: transaction)
        cancellation.expirationAtMs = Self.accessEnd(of: transaction, takenBackAt: at)
        return cancellation
    }

    /// RevenueCat sends a refund's CANCELLATION only when "the latest subscription period" was
    /// refunded. Told from the notification alone, so that delivery order cannot change it: the
    /// period was still running when refunded, or it is the one Apple's renewal info, signed
    /// with the refund, names as the most recent (`renewalDate` is its expiry).
    static func refundsLatestPeriod(_ fact: PurchaseFact, _ transaction: JWSTransactionDecodedPayload) -> Bool {
        guard let expires = transaction.expiresDate else { return true }
        if (transaction.revocationDate ?? fact.signedDateMs) < expires { return true }
        guard let latestExpiry = fact.renewalInfo?.renewalDate else { return false }
        return expires >= latestExpiry
    }

    /// A period's end of access: its expiry, or when it was taken back if that came first.
    static func accessEnd(of transaction: JWSTransactionDecodedPayload, takenBackAt: Int64?) -> Int64? {
        guard let takenBackAt else { return transaction.expiresDate }
        return min(takenBackAt, transaction.expiresDate ?? takenBackAt)
    }

    // MARK: - Auto-renew seen through the App Store Server API

    /// `CANCELLATION` (unsubscribe) or `UNCANCELLATION` when Apple's answer turned auto-renew off
    /// or on, as the renewal-status notification Apple sent for it (and that never arrived) would,
    /// unless a fact of the same change reported it (`autoRenewChangeReported`).
    ///
    /// An answer signed once its period had ended, auto-renew off, saw a voluntary lapse: the
    /// EXPIRED `VOLUNTARY` Apple signed at that end folds before it and, reporting no change
    /// itself, leaves the answer only restating; so the answer reports none either, and which of
    /// the two arrives first decides nothing. (The change's own notice still reports it, or an
    /// answer signed before the end.)
    private func autoRenewEvents(
        _ fact: PurchaseFact, _ transaction: JWSTransactionDecodedPayload, _ before: SubscriptionState,
        _ after: SubscriptionState
    ) -> [Event] {
        guard let enabled = after.autoRenewEnabled, let was = before.autoRenewEnabled, enabled != was,
            after.transactionId != nil, enabled || !Self.sawLapseEnd(fact, transaction),
            !autoRenewChangeReported(around: fact, byNotifications: true)
        else { return [] }
        let cause = answerAutoRenewCause(fact, enabled: enabled)
        if enabled {
            // Turned on by a new period (a resubscription, an upgrade): its RENEWAL is the report,
            // as the notice of that period gives no UNCANCELLATION either.
            guard after.transactionId == before.transactionId else { return [] }
            return [event(.uncancellation, cause: cause, after.currentTransaction ?? transaction, after)]
        }
        var cancellation = event(.cancellation, cause: cause, after.currentTransaction ?? transaction, after)
        cancellation.cancelReason = .unsubscribe
        return [cancellation]
    }

    /// Whether `fact` was signed at or after the end of the period `transaction` describes.
    private static func sawLapseEnd(_ fact: PurchaseFact, _ transaction: JWSTransactionDecodedPayload) -> Bool {
        guard let expires = transaction.expiresDate else { return false }
        return expires <= fact.signedDateMs
    }

    // MARK: - Builders

    /// `INITIAL_PURCHASE` or `RENEWAL` for a period: one per period, whoever reports it first.
    private func periodEvent(
        _ transaction: JWSTransactionDecodedPayload, first: Bool, _ before: SubscriptionState, _ after: SubscriptionState
    ) -> Event {
        let period = transaction.transactionId ?? ""
        var purchase = event(
            first ? .initialPurchase : .renewal, cause: "\(originalTransactionId)/PERIOD/\(period)", transaction, after)
        purchase.setPrice(milliunits: transaction.price)
        if !first {
            let previous = after.periodType(before: transaction)
            purchase.isTrialConversion = previous.map { $0 == .trial && purchase.periodType != .trial } ?? false
        }
        return purchase
    }

    /// `BILLING_ISSUE` and `CANCELLATION(BILLING_ERROR)`: one pair per failure streak.
    private func billingIssueEvents(
        _ transaction: JWSTransactionDecodedPayload, fact: PurchaseFact, _ after: SubscriptionState
    ) -> [Event] {
        let streak = "\(originalTransactionId)/BILLING_ISSUE/\(transaction.transactionId ?? "")"
        var issue = event(.billingIssue, cause: streak, transaction, after)
        if fact.source == .notification(type: .didFailToRenew, subtype: .gracePeriod) {
            issue.gracePeriodExpirationAtMs = Self.gracePeriodEnd(of: fact)
        } else if fact.source == .notification(type: .gracePeriodExpired, subtype: nil) {
            // Over when Apple said so, as the state takes it (`gracePeriodEndedAtMs`).
            issue.gracePeriodExpirationAtMs = fact.signedDateMs
        }
        var cancellation = event(
            .cancellation, cause: "\(originalTransactionId)/CANCELLATION/BILLING_ERROR/\(transaction.transactionId ?? "")",
            transaction, after)
        cancellation.cancelReason = .billingError
        return [issue, cancellation]
    }

    /// What an `EXPIRED` reports of the period it ends, for the reasons no other notification
    /// reports: Apple ended a subscription set to renew because a price increase went
    /// unanswered or the product is no longer for sale. RevenueCat reports such a customer
    /// cancelled, then expired (its customer history: "cancelled due to not agreeing to a price
    /// increase", "due to unknown reasons"), and the notice sets `unsubscribe_detected_at`.
    /// `BILLING_RETRY` gives the billing issue's pair, under the ids `DID_FAIL_TO_RENEW` gives
    /// them, so a missed billing notice is still reported and a delivered one is not twice.
    /// `VOLUNTARY` follows the renewal-status notice that reported it. Every id is a function
    /// of the notice, so delivery order decides none; the CANCELLATION's is its own, apart
    /// from the one an answer of Apple's turning auto-renew off has (`autoRenewChangeReported`
    /// lets that one stand for a renewal-status notice).
    private func expiryCancellation(
        _ transaction: JWSTransactionDecodedPayload, fact: PurchaseFact, subtype: Subtype?, _ after: SubscriptionState
    ) -> [Event] {
        let reason: LapseReason
        switch subtype {
        case .billingRetry?: return billingIssueEvents(transaction, fact: fact, after)
        case .priceIncrease?: reason = .priceIncrease
        case .productNotForSale?: reason = .unknown
        default: return []
        }
        guard let period = transaction.transactionId else { return [] }
        var cancellation = event(
            .cancellation, cause: "\(originalTransactionId)/CANCELLATION/EXPIRED/\(period)", transaction, after)
        cancellation.cancelReason = reason
        // A period refunded before Apple ended it: access ended at the refund, as its EXPIRATION says.
        let takenBack = [transaction.revocationDate, after.refunds[period]?.atMs].compactMap { $0 }.min()
        cancellation.expirationAtMs = Self.accessEnd(of: transaction, takenBackAt: takenBack)
        return [cancellation]
    }

    /// An event about `transaction`, numbered by its place among `state`'s periods.
    private func event(
        _ type: EventType, cause: String, _ transaction: JWSTransactionDecodedPayload?, _ state: SubscriptionState
    ) -> Event {
        var result = Event(type, cause: cause, transaction: transaction)
        result.renewalNumber = transaction?.transactionId.flatMap(state.periodNumber(of:))
        result.originalTransactionId = result.originalTransactionId ?? originalTransactionId
        return result
    }
}
