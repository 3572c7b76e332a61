import AppStore
import Foundation
import JSON
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// `grace_period_expires_date` once the grace period is over: RevenueCat keeps the end of the
/// product's last one, null only when it never had one.
extension SubscriberInfoTests {
    /// Apple's DID_RENEW (BILLING_RECOVERY) of the second period, starting on `atDay`.
    func recovery(atDay: Int64) -> VerifiedNotificationFacts {
        Apple.notification(
            .didRenew, .billingRecovery, uuid: "n-recover", signed: day(atDay),
            transaction: Apple.transaction("1001", purchase: day(atDay)), renewal: Apple.renewal(retry: false))
    }

    /// A grace period cut short by GRACE_PERIOD_EXPIRED keeps that end once a later period starts.
    @Test func lastGracePeriodEndIsWhereItWasCut() {
        let cut = Apple.notification(
            .gracePeriodExpired, uuid: "n-grace-over", signed: day(40),
            transaction: Fixture.p1, renewal: Apple.renewal(retry: true))
        let recovered = recovery(atDay: 43)
        let during = render(shop(Fixture.buy, Fixture.failWithGrace, cut), atMs: day(41))["subscriber"]
        #expect(during?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(40)))
        let after = render(shop(Fixture.buy, Fixture.failWithGrace, cut, recovered), atMs: day(44))["subscriber"]
        #expect(after?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(40)))
        #expect(after?["subscriptions"]?["pro.monthly"]?["billing_issues_detected_at"] == .null)
        let never = render(shop(Fixture.buy), atMs: day(5))["subscriber"]
        #expect(never?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == .null)
    }

    /// A refund during the grace period ends it there, and a recovery afterwards moves it no later.
    @Test func aRefundInGraceIsWhereTheGracePeriodEnded() {
        let refunded = Apple.notification(
            .refund, uuid: "n-refund", signed: day(35),
            transaction: Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(35)))
        let recovered = recovery(atDay: 38)
        let during = render(shop(Fixture.buy, Fixture.failWithGrace, refunded), atMs: day(36))["subscriber"]
        #expect(during?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(35)))
        let after = render(shop(Fixture.buy, Fixture.failWithGrace, refunded, recovered), atMs: day(39))["subscriber"]
        #expect(after?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(35)))
    }

    /// A renewal notice missed: a later notice carrying the next period still shows the grace
    /// period the customer had, ended where that period started.
    @Test func aMissedRecoveryStillShowsTheGracePeriodHad() {
        let disabled = Apple.notification(
            .didChangeRenewalStatus, .autoRenewDisabled, uuid: "n-off", signed: day(40),
            transaction: Apple.transaction("1001", purchase: day(33)), renewal: Apple.renewal(autoRenew: false))
        let subscriber = render(shop(Fixture.buy, Fixture.failWithGrace, disabled), atMs: day(41))["subscriber"]
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["store_transaction_id"] == "1001")
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(33)))
    }

    /// The grace period belongs to the product that had it: after an upgrade the earlier
    /// product shows it, and the new one (never in grace) shows null.
    @Test func theGracePeriodStaysWithItsProduct() {
        let recovered = recovery(atDay: 41)
        let yearly = Apple.transaction("1002", product: Apple.yearly, purchase: day(50), expires: day(415))
        let upgrade = Apple.notification(
            .didChangeRenewalPref, .upgrade, uuid: "n-upgrade", signed: day(50), transaction: yearly,
            renewal: Apple.renewal(product: Apple.yearly))
        let subscriber = render(shop(Fixture.buy, Fixture.failWithGrace, recovered, upgrade), atMs: day(51))["subscriber"]
        #expect(subscriber?["subscriptions"]?[Apple.yearly]?["grace_period_expires_date"] == .null)
        #expect(subscriber?["subscriptions"]?[Apple.monthly]?["grace_period_expires_date"] == iso(day(41)))
    }
}
