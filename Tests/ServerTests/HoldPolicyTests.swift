import AppStore
import Testing

@testable import Server

/// Which validly signed payloads an app's claims refuse are held: notifications about a
/// configured app, and nothing else Apple signs.
@Suite("Hold policy")
struct HoldPolicyTests {
    static let policy = HoldPolicy(bundleIds: ["com.example.app", "com.example.pro"], appAppleIds: [1234])

    static func notification(
        type: NotificationTypeV2? = .didRenew, uuid: String? = "u-1", bundleId: String? = "com.example.app",
        appAppleId: Int64? = 1234, summary: Bool = false
    ) -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            notificationType: type, notificationUUID: uuid,
            data: summary ? nil : NotificationData(appAppleId: appAppleId, bundleId: bundleId, environment: .sandbox),
            summary: summary ? NotificationSummary(environment: .sandbox, appAppleId: appAppleId, bundleId: bundleId) : nil,
            version: "2.0")
    }

    @Test(arguments: [
        // A configured app's, whatever the environment or URL it came by: held.
        (notification(), true),
        (notification(bundleId: "com.example.pro", appAppleId: nil), true),
        (notification(summary: true), true),
        // Its bundle ID mistyped in the configuration beside the right app Apple ID: held.
        (notification(bundleId: "com.example.ap"), true),
        // Another developer's app: refused.
        (notification(bundleId: "com.other", appAppleId: 999), false),
        (notification(bundleId: "com.other", appAppleId: nil), false),
        (notification(bundleId: nil, appAppleId: nil), false),
        // Not a notification (a transaction or renewal info decodes as an empty one): refused.
        (notification(type: nil, uuid: nil, bundleId: nil, appAppleId: nil), false),
        (notification(type: nil), false),
        (notification(uuid: nil), false),
        (notification(uuid: ""), false),
    ])
    func holdsOnlyNotificationsAboutAConfiguredApp(payload: ResponseBodyV2DecodedPayload, held: Bool) {
        let refusal = Self.policy.refusal(of: payload)
        #expect((refusal == nil) == held, "\(refusal ?? "held")")
        #expect(refusal?.hasPrefix("not held: ") ?? true)
    }
}
