import AppStore

/// Which validly signed payloads that an app's claims refuse are kept, held, for a configuration
/// fix to apply later, rather than refused (Apple then retries them for three days).
///
/// Only a notification (a `notificationUUID` and a `notificationType`) about one of the
/// configured apps is held: its bundle ID or app Apple ID is one an app is configured with (so a
/// notification of the wrong environment, posted to the wrong app's URL, or for a bundle ID
/// mistyped beside the right app Apple ID). Anything else Apple signed (another developer's
/// notification, a transaction, renewal info) would let anyone holding such a payload store
/// rows without end.
package struct HoldPolicy: Sendable {
    private let bundleIds: Set<String>
    private let appAppleIds: Set<Int64>

    package init(apps: [AppConfig]) {
        self.init(bundleIds: Set(apps.map(\.bundleId)), appAppleIds: Set(apps.compactMap(\.appAppleId)))
    }

    package init(bundleIds: Set<String>, appAppleIds: Set<Int64>) {
        self.bundleIds = bundleIds
        self.appAppleIds = appAppleIds
    }

    /// Nil when `payload` is held; otherwise why it is not.
    package func refusal(of payload: ResponseBodyV2DecodedPayload) -> String? {
        guard payload.notificationType != nil, payload.notificationUUID?.isEmpty == false else {
            return "not held: no notificationType or notificationUUID, so not a notification"
        }
        let identity = payload.appIdentity
        if let bundleId = identity.bundleId, bundleIds.contains(bundleId) { return nil }
        if let appAppleId = identity.appAppleId, appAppleIds.contains(appAppleId) { return nil }
        return "not held: its bundleId and appAppleId are no configured app's"
    }
}
