import AppStore
import Crypto
import Foundation
import Storage
import Subscriptions

extension NotificationRecord {
    /// The storage row for a verified notification, with its decoded snapshots. `storedAs` is the
    /// id of a row already stored (verified again to apply it): kept as it is, whatever this
    /// build would name the payload.
    package init(
        verified: VerifiedNotification, appId: String, signedPayload: String, receivedAt: Int64,
        state: NotificationState, stateReason: String?, storedAs storedId: String? = nil
    ) {
        let payload = verified.notification.payload
        let identity = payload.appIdentity
        let transaction = verified.transaction?.payload
        let renewal = verified.renewalInfo?.payload
        self.init(
            notificationUUID: storedId
                ?? Self.uuid(
                    of: payload, signedPayload: signedPayload, signedByAppStore: verified.notification.isSignedByAppStore),
            appId: appId,
            notificationType: payload.notificationType?.rawValue ?? "",
            subtype: payload.subtype?.rawValue,
            environment: identity.environment?.rawValue,
            bundleId: identity.bundleId,
            signedDate: payload.signedDate,
            originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
            transactionId: transaction?.transactionId,
            receivedAt: receivedAt,
            state: state,
            stateReason: stateReason,
            signedPayload: signedPayload,
            transaction: verified.transaction.flatMap { verified in
                verified.payload.transactionId.map { id in
                    TransactionSnapshot(
                        transactionId: id, originalTransactionId: verified.payload.originalTransactionId,
                        productId: verified.payload.productId, environment: verified.payload.environment?.rawValue,
                        signedDate: verified.payload.signedDate, json: String(decoding: verified.json, as: UTF8.self))
                }
            },
            renewalInfo: verified.renewalInfo.map { verified in
                RenewalSnapshot(
                    originalTransactionId: verified.payload.originalTransactionId, productId: verified.payload.productId,
                    environment: verified.payload.environment?.rawValue, signedDate: verified.payload.signedDate,
                    json: String(decoding: verified.json, as: UTF8.self))
            })
        facts = VerifiedNotificationFacts(
            notificationUUID: notificationUUID, payload: payload, transaction: transaction, renewalInfo: renewal)
    }

    /// Apple's `notificationUUID`, in lower case as Apple sends it (the same UUID in upper case is
    /// the same notification); a payload without one (never seen from Apple) gets a stable id
    /// from its bytes, so a retry of it is still recognised as the same notification.
    ///
    /// A notification the App Store did not sign (Xcode, LocalTesting, accepted by configuration)
    /// has its id under its environment (`xcode:…`): anyone can write one, and with the UUID of
    /// a real notification it would otherwise be stored first and make the real one a duplicate.
    package static func uuid(of payload: ResponseBodyV2DecodedPayload, signedPayload: String, signedByAppStore: Bool = true)
        -> String
    {
        let id =
            if let uuid = payload.notificationUUID, !uuid.isEmpty { uuid.lowercased() } else {
                "sha256:" + Digest.hex(Digest.sha256(Array(signedPayload.utf8)))
            }
        return signedByAppStore ? id : unsignedId(id, environment: payload.claimedEnvironment)
    }

    /// The id an unsigned notification of `environment` whose own id is `id` is stored under.
    package static func unsignedId(_ id: String, environment: AppStoreEnvironment?) -> String {
        (environment?.rawValue.lowercased() ?? "unsigned") + ":" + id
    }
}
