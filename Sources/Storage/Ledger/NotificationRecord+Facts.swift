import AppStore
import Subscriptions

extension NotificationRecord {
    /// The reducer's view of the notification: `facts` as the verifier made them, or for a record
    /// read back, made from its row and its decoded snapshots (the raw payload is not read).
    public func verifiedFacts() throws -> VerifiedNotificationFacts {
        if let facts { return facts }
        let transaction = try transaction.map { try LedgerRows.decode(JWSTransactionDecodedPayload.self, $0.json) }
        let renewal = try renewalInfo.map { try LedgerRows.decode(JWSRenewalInfoDecodedPayload.self, $0.json) }
        return VerifiedNotificationFacts(
            notificationUUID: notificationUUID,
            notificationType: NotificationTypeV2(rawValue: notificationType),
            subtype: subtype.map { Subtype(rawValue: $0) },
            signedDateMs: signedDate ?? transaction?.signedDate ?? renewal?.signedDate ?? 0,
            environment: environment.map { AppStoreEnvironment(rawValue: $0) },
            transaction: transaction, renewalInfo: renewal)
    }
}
