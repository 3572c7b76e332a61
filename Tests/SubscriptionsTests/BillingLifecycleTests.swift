import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Billing failures, refunds and price increases over time, with the scheduler's timers.
@Suite struct BillingLifecycleTests {
    let day = Fixture.day

    @Test func billingFailureInGraceThenRecovery() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let failure = shop.send(Fixture.failWithGrace)
        #expect(failure.types == [.billingIssue, .cancellation])
        #expect(failure[0].gracePeriodExpirationAtMs == day(46))
        #expect(failure[1].cancelReason == .billingError)
        #expect(shop.advance(to: day(40)).isEmpty)
        #expect(shop.subscription.hasAccess(atMs: day(40)))
        let recovery = shop.send(
            Apple.notification(
                .didRenew, .billingRecovery, uuid: "n-recover", signed: day(40),
                transaction: Apple.transaction("1001", purchase: day(40)), renewal: Apple.renewal(retry: false)))
        #expect(recovery.types == [.renewal])
        #expect(shop.advance(to: day(47)).isEmpty)
        #expect(shop.advance(to: day(69)).isEmpty)
        #expect(shop.subscription.billingIssueDetectedAtMs == nil)
    }

    /// A GRACE_PERIOD notice whose renewal info leaves `gracePeriodExpiresDate` out (seen in
    /// Production): the customer keeps access through the shortest grace Apple offers (3 days
    /// after the period's end), as the notice says to, not none; GRACE_PERIOD_EXPIRED or a
    /// recovery still decides it as usual.
    @Test func aGraceNoticeWithoutItsEndStillGrantsTheShortestGrace() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let undated = Apple.notification(
            .didFailToRenew, .gracePeriod, uuid: "n-fail", signed: day(30), transaction: Fixture.p1,
            renewal: Apple.renewal(retry: true))
        let failure = shop.send(undated)
        #expect(failure.types == [.billingIssue, .cancellation])
        let expires = Fixture.p1.expiresDate ?? 0
        #expect(failure[0].gracePeriodExpirationAtMs == expires + 3 * Apple.day)
        #expect(shop.advance(to: expires + Apple.day).isEmpty)
        #expect(shop.subscription.hasAccess(atMs: expires + Apple.day))
        let end = shop.advance(to: expires + 3 * Apple.day)
        #expect(end.types == [.expiration])
        #expect(end.first?.expirationReason == .billingError)
    }

    @Test func billingFailureGraceOverThenExpiredBillingRetry() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(Fixture.failWithGrace).types == [.billingIssue, .cancellation])
        #expect(shop.advance(to: day(46) - 1).isEmpty)
        let expiration = shop.advance(to: day(46))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .billingError)
        let graceOver = Apple.notification(
            .gracePeriodExpired, uuid: "n-grace-over", signed: day(46) + 60_000, transaction: Fixture.p1,
            renewal: Apple.renewal(retry: true))
        #expect(shop.send(graceOver).isEmpty)
        #expect(shop.advance(to: day(60)).isEmpty)
        let retryOver = Apple.notification(
            .expired, .billingRetry, uuid: "n-expired", signed: day(90), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false, retry: false, intent: .billingError))
        #expect(shop.send(retryOver).isEmpty)
        #expect(shop.advance(to: day(100)).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .billingIssue, .cancellation, .expiration])
    }

    @Test func billingFailureWithoutGraceExpiresAtOnce() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.failNoGrace)
        let expiration = shop.advance(to: day(30) + 1_000)
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .billingError)
    }

    @Test func secondFailureInOneStreakReportsNothingNew() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.failNoGrace)
        let again = Apple.notification(
            .didFailToRenew, uuid: "n-fail-again", signed: day(31), transaction: Fixture.p1,
            renewal: Apple.renewal(retry: true))
        #expect(shop.send(again).isEmpty)
        #expect(shop.subscription.billingIssueDetectedAtMs == day(30))
    }

    @Test func refundThenRefundReversed() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let refund = shop.send(Fixture.refund)
        #expect(refund.types == [.cancellation])
        #expect(refund.first?.cancelReason == .customerSupport)
        #expect(refund.first?.priceInPurchasedCurrency == -9.99)
        let refundedAtMs = Fixture.refund.transaction?.revocationDate
        #expect(refundedAtMs != nil && refundedAtMs != Fixture.p1.expiresDate)
        // Both say access ended when the period was refunded, as RevenueCat's refund events do.
        #expect(refund.first?.expirationAtMs == refundedAtMs)
        let expiration = shop.advance(to: day(10))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .customerSupport)
        #expect(expiration.first?.expirationAtMs == refundedAtMs)
        let reversed = shop.send(
            Apple.notification(.refundReversed, uuid: "n-reversed", signed: day(12), transaction: Fixture.p1))
        #expect(reversed.types == [.refundReversed])
        #expect(reversed.first?.priceInPurchasedCurrency == 9.99)
        #expect(shop.subscription.hasAccess(atMs: day(12)))
        #expect(shop.send(Fixture.disable.with(uuid: "n-disable-later", signed: day(15))).types == [.cancellation])
        let end = shop.advance(to: day(30))
        #expect(end.types == [.expiration])
        #expect(end.first?.expirationReason == .unsubscribe)
        #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count)
    }

    /// Apple's billing notice can come after the period's end and the wait for it (a retry after
    /// downtime): the EXPIRATION stands, the grace the notice grants gives access back, and
    /// its end is another lapse with its own EXPIRATION (BILLING_ERROR), though Apple sends nothing more.
    @Test func billingNoticeAfterTheExpirationGivesGraceAndItsOwnExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30)).isEmpty)
        let lapse = shop.advance(to: day(30) + Fixture.renewalNoticeWait)
        #expect(lapse.types == [.expiration])
        let late = Fixture.failWithGrace.with(uuid: "n-fail-late", signed: day(30) + 2 * Fixture.renewalNoticeWait)
        #expect(shop.send(late).types == [.billingIssue, .cancellation])
        #expect(shop.subscription.hasAccess(atMs: day(31)))
        #expect(shop.advance(to: day(45)).isEmpty)
        let graceEnd = shop.advance(to: day(46))
        #expect(graceEnd.types == [.expiration])
        #expect(graceEnd.first?.expirationReason == .billingError)
        #expect(shop.advance(to: day(60)).isEmpty)
        #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count)
    }

    /// A refund reversed once the period is over gives nothing back: no second EXPIRATION.
    @Test func refundReversedAfterThePeriodEndedExpiresNothingAgain() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.refund)
        #expect(shop.advance(to: day(10)).types == [.expiration])
        let reversed = shop.send(
            Apple.notification(.refundReversed, uuid: "n-reversed", signed: day(35), transaction: Fixture.p1))
        #expect(reversed.types == [.refundReversed])
        #expect(!shop.subscription.hasAccess(atMs: day(35)))
        #expect(shop.advance(to: day(36)).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .cancellation, .expiration, .refundReversed])
    }

    @Test func priceIncreaseIgnoredThenExpiredAfterTheTimer() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(Fixture.pricePending).isEmpty)
        // The customer may still consent at the end: the EXPIRATION waits for Apple's word.
        #expect(shop.advance(to: day(30)).isEmpty)
        let expiration = shop.advance(to: day(30) + Fixture.renewalNoticeWait)
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .priceIncrease)
        let expired = Apple.notification(
            .expired, .priceIncrease, uuid: "n-expired", signed: day(30) + Fixture.renewalNoticeWait + 60_000,
            transaction: Fixture.p1, renewal: Apple.renewal(autoRenew: false, intent: .customerDidNotConsentToPriceIncrease))
        // Apple's word, late, still reports the customer cancelled, as RevenueCat does.
        let cancellation = shop.send(expired)
        #expect(cancellation.types == [.cancellation])
        #expect(cancellation.first?.cancelReason == .priceIncrease)
        #expect(shop.advance(to: day(31)).isEmpty)
    }

    @Test func priceIncreaseIgnoredThenExpiredBeforeTheTimer() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.pricePending)
        let expired = Apple.notification(
            .expired, .priceIncrease, uuid: "n-expired", signed: day(30), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false, intent: .customerDidNotConsentToPriceIncrease))
        let cancellation = shop.send(expired)
        #expect(cancellation.types == [.cancellation])
        #expect(cancellation.first?.cancelReason == .priceIncrease)
        // The lapse is known: no wait.
        let expiration = shop.advance(to: day(30))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .priceIncrease)
    }
}

extension VerifiedNotificationFacts {
    /// The same notification under another UUID and date, as a new one Apple might send.
    func with(uuid: String, signed: Int64) -> VerifiedNotificationFacts {
        var copy = self
        copy.notificationUUID = uuid
        copy.signedDateMs = signed
        copy.transaction?.signedDate = signed
        copy.renewalInfo?.signedDate = signed
        return copy
    }
}
