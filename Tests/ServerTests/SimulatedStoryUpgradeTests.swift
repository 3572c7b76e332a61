import Foundation
import Testing

@testable import Tools

/// A story file 0.1.0 saved reads on, its next step signed after its last one.
@Suite("simulate: stories saved by 0.1.0")
struct SimulatedStoryUpgradeTests {
    /// A subscription as 0.1.0 kept it after `renew` moved its clock an hour ahead of the wall clock.
    static func saved(clockMs: Int64?) -> Data {
        let clock = clockMs.map { "\"clockMs\": \($0)," } ?? ""
        return Data(
            """
            {"originalTransactionId": "2000000000100001", "productId": "pro.monthly", "autoRenewProductId": "pro.monthly",
             "autoRenew": true, "transactionId": "2000000000100002", "purchaseMs": 1800000, "expiresMs": 2700000,
             "originalPurchaseMs": 900000, \(clock) "trial": false, "transactions": 2, "billingIssue": false,
             "priceIncreasePending": false, "familyShared": false, "expired": false,
             "appAccountToken": "b2f1c6d0-0000-4000-8000-000000000001", "environment": "Sandbox",
             "bundleId": "com.example.app"}
            """.utf8)
    }

    @Test func theNextStepIsSignedAfterTheClockAStoryKept() throws {
        let story = try JSONDecoder().decode(SimulatedSubscription.self, from: Self.saved(clockMs: 1_800_000))
        #expect(story.signedAfterMs == 1_800_000)
        #expect(story.transactionId == "2000000000100002")
        #expect(story.renewedByTheStore == nil && story.priceMilliunits == nil)
    }

    @Test func aStoryWithoutAClockIsSignedAtTheWallClock() throws {
        let story = try JSONDecoder().decode(SimulatedSubscription.self, from: Self.saved(clockMs: nil))
        #expect(story.signedAfterMs == 0)
    }

    @Test func theLastSignedDateOutranksTheOldClock() throws {
        var story = try JSONDecoder().decode(SimulatedSubscription.self, from: Self.saved(clockMs: 1_800_000))
        story.lastSignedMs = 1_900_000
        let again = try JSONDecoder().decode(SimulatedSubscription.self, from: try JSONEncoder().encode(story))
        #expect(again.signedAfterMs == 1_900_000)
    }
}
