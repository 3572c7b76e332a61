import AppStore
import Foundation
import Subscriptions

/// Where a stored notification stands in processing.
public enum NotificationState: String, Sendable, CaseIterable {
    /// Stored; not (yet) applied to subscription state.
    case received
    /// Applied to subscription state.
    case applied
    /// Validly signed but matching no configured app or environment; kept to re-apply after a config fix.
    case held
    /// Applying it failed; `stateReason` says why. The raw payload is kept for replay.
    case failed
}

/// One App Store Server Notification as stored: the raw signed payload plus the fields we index on.
///
/// The raw JWS in `signedPayload` is the source of truth and is kept forever; every other field and
/// table can be rebuilt from it. See
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct NotificationRecord: Sendable {
    /// Apple's `notificationUUID`: the identity of the notification, unique in the store.
    public var notificationUUID: String
    /// The configured app it arrived for.
    public var appId: String
    public var notificationType: String
    public var subtype: String?
    public var environment: String?
    public var bundleId: String?
    /// When Apple signed the notification, in milliseconds since 1970.
    public var signedDate: Int64?
    public var originalTransactionId: String?
    /// The transaction the notification carries; equals `transaction?.transactionId` when both are set.
    public var transactionId: String?
    /// When this server received it, in milliseconds since 1970.
    public var receivedAt: Int64
    public var state: NotificationState
    /// Why the notification is in its state (for example why it is held or failed).
    public var stateReason: String?
    /// The raw JWS exactly as Apple sent it.
    public var signedPayload: String
    /// The decoded transaction this notification carried, exactly as it carried it.
    public var transaction: TransactionSnapshot?
    /// The decoded renewal info this notification carried.
    public var renewalInfo: RenewalSnapshot?
    /// The reducer's view of the notification as the verifier decoded it, so the writer does not
    /// decode the snapshots again (`verifiedFacts()`). Not stored, not compared; nil on records
    /// read back.
    public var facts: VerifiedNotificationFacts?

    /// Creates a record; optional fields default to nil and the state to `.received`.
    public init(
        notificationUUID: String,
        appId: String,
        notificationType: String,
        subtype: String? = nil,
        environment: String? = nil,
        bundleId: String? = nil,
        signedDate: Int64? = nil,
        originalTransactionId: String? = nil,
        transactionId: String? = nil,
        receivedAt: Int64,
        state: NotificationState = .received,
        stateReason: String? = nil,
        signedPayload: String,
        transaction: TransactionSnapshot? = nil,
        renewalInfo: RenewalSnapshot? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.appId = appId
        self.notificationType = notificationType
        self.subtype = subtype
        self.environment = environment
        self.bundleId = bundleId
        self.signedDate = signedDate
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.receivedAt = receivedAt
        self.state = state
        self.stateReason = stateReason
        self.signedPayload = signedPayload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }
}

extension NotificationRecord: Equatable {
    /// Equal when every stored field is; `facts` is not stored and not compared.
    public static func == (lhs: NotificationRecord, rhs: NotificationRecord) -> Bool {
        lhs.notificationUUID == rhs.notificationUUID && lhs.appId == rhs.appId
            && lhs.notificationType == rhs.notificationType && lhs.subtype == rhs.subtype
            && lhs.environment == rhs.environment && lhs.bundleId == rhs.bundleId && lhs.signedDate == rhs.signedDate
            && lhs.originalTransactionId == rhs.originalTransactionId && lhs.transactionId == rhs.transactionId
            && lhs.receivedAt == rhs.receivedAt && lhs.state == rhs.state && lhs.stateReason == rhs.stateReason
            && lhs.signedPayload == rhs.signedPayload && lhs.transaction == rhs.transaction
            && lhs.renewalInfo == rhs.renewalInfo
    }
}
