import AppStore

/// A consumable, non-consumable or non-renewing purchase, identified by its `transactionId`.
///
/// Folded from its facts like a subscription (see `FactFolding`): `ONE_TIME_CHARGE` or the app's
/// posted transaction records it, `REFUND` / `REFUND_REVERSED` toggle its refund in signed-date
/// order, `REVOKE` ends a Family Sharing grant.
/// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
public struct OneTimePurchase: Codable, Hashable, Sendable {
    /// The purchase's identity.
    public let transactionId: String
    /// The newest snapshot of the transaction, by its own `signedDate`.
    public package(set) var transaction: JWSTransactionDecodedPayload?
    /// The refund in force, if any.
    public package(set) var refund: Revocation?
    /// The Family Sharing revocation, if any.
    public package(set) var revocation: Revocation?
    /// The newest `signedDate` among the facts folded in.
    public package(set) var newestSignedDateMs: Int64?
    /// History, owner and emitted event ids; not part of the fold.
    public package(set) var journal: PurchaseJournal

    /// A purchase nobody has told anything yet.
    public init(transactionId: String, journal: PurchaseJournal = PurchaseJournal()) {
        self.transactionId = transactionId
        self.journal = journal
    }

    /// The product bought.
    public var productId: String? { transaction?.productId }
    /// Consumable, non-consumable or non-renewing subscription.
    public var productType: ProductType? { transaction?.type }
    /// When it was bought.
    public var purchaseDateMs: Int64? { transaction?.purchaseDate }
    /// Sandbox or Production.
    public var environment: AppStoreEnvironment? { transaction?.environment }
    /// `PURCHASED`, or `FAMILY_SHARED` for a shared non-consumable.
    public var ownershipType: InAppOwnershipType? { transaction?.inAppOwnershipType }
    /// The price in milliunits of `currency`.
    public var priceMilliunits: Int64? { transaction?.price }
    /// ISO 4217.
    public var currency: String? { transaction?.currency }
    /// When it was refunded, if a refund is in force.
    public var refundedAtMs: Int64? { refund?.atMs }

    /// When a refund or Family Sharing revocation ended what the purchase gives; nil while in force.
    public var accessEndsAtMs: Int64? { [refund?.atMs, revocation?.atMs].compactMap { $0 }.min() }

    /// Whether the purchase still gives what it gave at `nowMs`: not refunded or revoked by then.
    public func hasAccess(atMs nowMs: Int64) -> Bool {
        guard transaction != nil else { return false }
        return accessEndsAtMs.map { nowMs < $0 } ?? true
    }
}

// MARK: - Fold and events

extension OneTimePurchase: FactFolding {
    func unfolded() -> OneTimePurchase {
        OneTimePurchase(transactionId: transactionId, journal: journal)
    }

    mutating func absorb(_ fact: PurchaseFact) {
        switch fact.source {
        case .transactionPosted, .appleAPI:
            note(fact)
            // Signed with a revocationDate, the transaction says what its REFUND or REVOKE says;
            // signed without one after the refund (the newest copy: facts fold in signed-date
            // order), what REFUND_REVERSED says.
            if let transaction = fact.transaction, transaction.revocationDate != nil, let taken = Revocation(in: fact) {
                if Revocation.isFamilySharing(transaction) {
                    revocation = revocation ?? taken
                } else {
                    refund = refund ?? taken
                }
            } else if let transaction = fact.transaction, !Revocation.isFamilySharing(transaction),
                self.transaction?.signedDate == fact.transactionSignedDateMs
            {
                refund = nil
            }
        case .notification(.oneTimeCharge, nil):
            note(fact)
        case .notification(.refund, nil):
            note(fact)
            refund = Revocation(in: fact)
        case .notification(.refundReversed, nil):
            note(fact)
            refund = nil
        case .notification(.revoke, nil):
            note(fact)
            revocation = Revocation(in: fact)
        case .notification(.refundDeclined, nil), .notification(.consumptionRequest, nil):
            newestSignedDateMs = max(newestSignedDateMs ?? fact.signedDateMs, fact.signedDateMs)
        default:
            return
        }
    }

    func events(for fact: PurchaseFact, before: OneTimePurchase, after: OneTimePurchase) -> [Event] {
        guard let transaction = fact.transaction else { return [] }
        let cause = "notification/\(fact.id)"
        switch fact.source {
        case .transactionPosted, .appleAPI, .notification(.oneTimeCharge, nil):
            return [purchase(transaction)]
                + [reportedRefund(fact, transaction), revokedAccess(transaction, after)].compactMap { $0 }
        case .notification(.refund, nil):
            // Reported once: the app or Apple's API may have shown the refunded transaction first.
            if let at = transaction.revocationDate, journal.hasReportedRefund(of: transactionId, at: at) { return [] }
            var cancellation = Event(.cancellation, cause: "\(cause)/CANCELLATION", transaction: transaction)
            cancellation.setRefund(of: transaction)
            return [cancellation]
        case .notification(.refundReversed, nil):
            var reversed = Event(.refundReversed, cause: "\(cause)/REFUND_REVERSED", transaction: transaction)
            reversed.setPrice(milliunits: transaction.price)
            return [reversed]
        case .notification(.revoke, nil):
            // The purchase first, when this is the first report of it (its ONE_TIME_CHARGE late,
            // the app's post not made): the consumer's last word on it is that it ended.
            return [purchase(transaction)] + [revokedAccess(transaction, after)].compactMap { $0 }
        default:
            return []
        }
    }

    /// The purchase's NON_RENEWING_PURCHASE: one, whichever report comes first.
    private func purchase(_ transaction: JWSTransactionDecodedPayload) -> Event {
        var purchase = Event(.nonRenewingPurchase, cause: "\(transactionId)/NON_RENEWING_PURCHASE", transaction: transaction)
        purchase.setPrice(milliunits: transaction.price)
        return purchase
    }

    /// The EXPIRATION of a family member's access, which Family Sharing took back (a REVOKE, or
    /// the revoked copy posted or answered first): one, under one id, whichever report comes
    /// first, as a revoked subscription's EXPIRATION. Nothing was cancelled or refunded.
    private func revokedAccess(_ transaction: JWSTransactionDecodedPayload, _ after: OneTimePurchase) -> Event? {
        guard let revoked = after.revocation else { return nil }
        var expiration = Event(.expiration, cause: "\(transactionId)/EXPIRATION/REVOKE", transaction: transaction)
        expiration.expirationReason = .unknown
        expiration.expirationAtMs = revoked.atMs
        return expiration
    }

    /// The refund CANCELLATION of a refunded transaction the app posted or Apple's API answered
    /// with, when its REFUND notification has not given it (nor will: that one then skips it).
    private func reportedRefund(_ fact: PurchaseFact, _ transaction: JWSTransactionDecodedPayload) -> Event? {
        guard fact.source == .transactionPosted || fact.source == .appleAPI, let at = transaction.revocationDate,
            refund?.atMs == at, !Revocation.isFamilySharing(transaction), !journal.hasRefundNotification(about: transactionId)
        else { return nil }
        var cancellation = Event(
            .cancellation, cause: PurchaseJournal.reportedRefundCause(transactionId, at), transaction: transaction)
        cancellation.setRefund(of: transaction)
        return cancellation
    }

    /// Keeps the newest transaction snapshot and the newest date.
    private mutating func note(_ fact: PurchaseFact) {
        newestSignedDateMs = max(newestSignedDateMs ?? fact.signedDateMs, fact.signedDateMs)
        guard let snapshot = fact.transaction else { return }
        if let known = transaction, (known.signedDate ?? 0) > fact.transactionSignedDateMs { return }
        transaction = snapshot
        transaction?.signedDate = fact.transactionSignedDateMs
    }
}
