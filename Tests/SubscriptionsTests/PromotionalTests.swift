import AppStore
import Foundation
import SubscriptionsFixtures
import Testing
import Threads

@testable import Subscriptions

/// Promotional entitlements as RevenueCat gives them: granted, shown, taken back, expired.
@Suite struct PromotionalTests {
    let day = Fixture.day

    func grant(_ id: String = "a1", end: Int64) -> PromotionalGrant {
        PromotionalGrant(id: id, entitlementId: "pro", productId: "rc_promo_pro_monthly", startMs: Apple.t0, endMs: end)
    }

    @Test func grantShowsExpiresAndEmitsRevenueCatsEvents() throws {
        var shop = Harness(ledger: Ledger(configuration: LedgerConfiguration(appId: "demo", entitlements: ["pro": []])))
        let granted = shop.apply(.customerAction(.promotionalGranted(appUserId: "user", grant(end: day(31)))))
        #expect(granted.types == [.nonRenewingPurchase])
        let event = try #require(granted.first)
        #expect(event.store == "PROMOTIONAL")
        #expect(event.periodType == .promotional)
        #expect(event.environment == .production)
        #expect(event.productId == "rc_promo_pro_monthly")
        #expect(event.entitlementIds == ["pro"])
        #expect(event.expirationAtMs == day(31))
        #expect(event.appUserId == "user")
        // Shown as a subscription of store promotional, granting its entitlement.
        let info = SubscriberInfo.json(for: "user", in: shop.ledger, at: Date(milliseconds: day(1)))["subscriber"]
        #expect(info?["entitlements"]?["pro"]?["product_identifier"] == .string("rc_promo_pro_monthly"))
        #expect(info?["entitlements"]?["pro"]?["expires_date"] == .string(ISO8601UTC.string(fromMilliseconds: day(31))))
        let promo = info?["subscriptions"]?["rc_promo_pro_monthly"]
        #expect(promo?["store"] == .string("promotional"))
        #expect(promo?["is_sandbox"] == .bool(false))
        #expect(promo?["store_transaction_id"] == .string("a1"))
        // The App Store manages nothing of a grant: no management URL, the customer's or its own.
        #expect(info?["management_url"] == .null)
        #expect(promo?["management_url"] == .null)
        #expect(promo?.objectValue?.keys.contains("management_url") == true)
        // The scheduler ends it with an EXPIRATION, once.
        #expect(shop.advance(to: day(30)).isEmpty)
        let expired = shop.advance(to: day(31))
        #expect(expired.types == [.expiration])
        #expect(expired.first?.periodType == .promotional)
        #expect(expired.first?.expirationReason == .developerInitiated)
        #expect(shop.advance(to: day(40)).isEmpty)
        #expect(shop.apply(.timerFired(grant(end: day(31)).timer(customer: "user"))).isEmpty)
    }

    @Test func revokeEndsEveryRunningGrantOfTheEntitlement() {
        var shop = Harness(ledger: Ledger(configuration: LedgerConfiguration(entitlements: ["pro": []])))
        shop.apply(.customerAction(.promotionalGranted(appUserId: "user", grant("a1", end: day(31)))))
        shop.apply(.customerAction(.promotionalGranted(appUserId: "user", grant("a2", end: day(60)))))
        let revoked = shop.apply(.customerAction(.promotionalsRevoked(appUserId: "user", entitlementId: "pro")), atMs: day(2))
        // Each grant is cancelled and expires now: a consumer that removes access on EXPIRATION,
        // as RevenueCat advises, removes it. DEVELOPER_INITIATED is RevenueCat's one promotional reason.
        #expect(revoked.types == [.cancellation, .expiration, .cancellation, .expiration])
        #expect(revoked.allSatisfy { $0.expirationAtMs == day(2) && $0.store == "PROMOTIONAL" })
        #expect(revoked.map(\.cancelReason) == [.developerInitiated, nil, .developerInitiated, nil])
        #expect(revoked.map(\.expirationReason) == [nil, .developerInitiated, nil, .developerInitiated])
        // Nothing more: the grants' timers find them ended.
        #expect(shop.advance(to: day(61)).isEmpty)
        let info = SubscriberInfo.json(for: "user", in: shop.ledger, at: Date(milliseconds: day(3)))["subscriber"]
        #expect(info?["entitlements"]?["pro"]?["expires_date"] == .string(ISO8601UTC.string(fromMilliseconds: day(2))))
    }
}
