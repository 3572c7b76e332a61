import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4 item 5, the pure part: which configured entitlements a customer's purchases grant.
@Suite struct EntitlementTests {
    let day = Fixture.day
    let configuration = LedgerConfiguration(
        entitlements: ["pro": [Apple.monthly, Apple.yearly], "lifetime": ["forever"], "unused": ["nothing"]])

    func shop() -> Harness {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        shop.send(Fixture.buy)
        return shop
    }

    @Test func activeWhileThePeriodRunsAndListedAfter() {
        let shop = shop()
        let active = shop.ledger.entitlements(of: "user", atMs: day(10))
        #expect(active.map(\.entitlementId) == ["pro"])
        #expect(active.first?.isActive == true)
        #expect(active.first?.expiresDateMs == day(30))
        #expect(active.first?.productId == Apple.monthly)
        #expect(shop.ledger.entitlements(of: "user", atMs: day(30)).first?.isActive == false)
        #expect(shop.ledger.entitlements(of: "nobody", atMs: day(10)).isEmpty)
    }

    @Test func gracePeriodKeepsAccess() {
        var shop = shop()
        shop.send(Fixture.failWithGrace)
        let entitlement = shop.ledger.entitlements(of: "user", atMs: day(40)).first
        #expect(entitlement?.isActive == true)
        #expect(entitlement?.gracePeriodExpiresDateMs == day(46))
        #expect(shop.ledger.entitlements(of: "user", atMs: day(46)).first?.isActive == false)
    }

    @Test func refundEndsAccess() {
        var shop = shop()
        shop.send(Fixture.refund)
        #expect(shop.ledger.entitlements(of: "user", atMs: day(11)).first?.isActive == false)
    }

    @Test func oneTimePurchaseIsLifetimeUntilRefunded() {
        var shop = shop()
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, token: "user")
        shop.send(Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime))
        let granted = shop.ledger.entitlements(of: "user", atMs: day(500))
        #expect(granted.map(\.entitlementId) == ["lifetime", "pro"])
        #expect(granted.first?.isActive == true)
        #expect(granted.first?.expiresDateMs == nil)
        var refunded = lifetime
        refunded.revocationDate = day(600)
        shop.send(Apple.notification(.refund, uuid: "n-life-refund", signed: day(600), transaction: refunded))
        #expect(shop.ledger.entitlements(of: "user", atMs: day(601)).first?.isActive == false)
        #expect(shop.ledger.oneTimePurchases["7000"]?.refundedAtMs == day(600))
    }
}
