/// What a shell must load to apply one input to a slice of the ledger instead of all of it.
///
/// `apply` only reads and writes the entries named here, so a shell can build a `Ledger` from
/// those rows, apply the input, and write back the rows it loaded (and any customer created).
/// Storage already refuses a repeated `notificationUUID`; the ledger's own duplicate checks make
/// a second application harmless anyway.
extension Ledger.Input {
    /// The purchase the input is about (load it with its journal); nil for a notification about
    /// none (TEST, RENEWAL_EXTENSION SUMMARY, EXTERNAL_PURCHASE_TOKEN, RESCIND_CONSENT).
    public var purchaseKey: PurchaseKey? {
        switch self {
        case .notificationReceived(let facts):
            Ledger.purchaseKey(of: facts.transaction, renewalInfo: facts.renewalInfo, type: facts.notificationType)
        case .transactionPosted(let transaction, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: nil, type: nil)
        case .appleAnswered(let transaction, let renewalInfo, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: renewalInfo, type: nil)
        case .appleHistory(let transaction, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: nil, type: nil)
        case .linked(let key, _):
            key
        case .timerFired(let timer):
            .subscription(originalTransactionId: timer.originalTransactionId)
        }
    }

    /// Customers to load besides the purchase's current owner: the one the input names, the one
    /// its `appAccountToken` names (if any exists), and the owner of the subscription an Advanced
    /// Commerce migration replaced (`previousOriginalTransactionId`, whose row to load as well).
    public var namedCustomerIds: [String] {
        switch self {
        case .notificationReceived(let facts):
            [facts.transaction?.appAccountToken ?? facts.renewalInfo?.appAccountToken].compactMap { $0 }
        case .transactionPosted(_, let appUserId), .linked(_, let appUserId):
            [appUserId]
        case .appleAnswered(let transaction, let renewalInfo, let appUserId):
            [appUserId, transaction.appAccountToken ?? renewalInfo?.appAccountToken].compactMap { $0 }
        case .appleHistory(let transaction, let appUserId):
            [appUserId, transaction.appAccountToken].compactMap { $0 }
        case .timerFired:
            []
        }
    }

    /// The subscription an Advanced Commerce migration replaced, whose owner the new one keeps.
    public var replacedOriginalTransactionId: String? {
        guard case .notificationReceived(let facts) = self else { return nil }
        return facts.transaction?.previousOriginalTransactionId
    }
}
