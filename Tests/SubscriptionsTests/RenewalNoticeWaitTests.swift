import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// A period nothing says lapses (auto-renew on, no billing issue, no EXPIRED) may still renew
/// at its end: Sandbox renews at the expiry, and Apple's notice can come a moment later. Its
/// EXPIRATION waits for that notice, a tenth of the period and at most an hour; a lapse the
/// state already knows of expires at the end.
@Suite struct RenewalNoticeWaitTests {
    let day = Fixture.day
    let wait = Fixture.renewalNoticeWait

    @Test func aRenewalNoticeJustAfterTheEndLeavesNothingToExpire() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + 60_000).isEmpty)
        let renewal = Apple.notification(
            .didRenew, uuid: "n-renew", signed: day(30) + 120_000, transaction: Fixture.p2, renewal: Apple.renewal())
        #expect(shop.send(renewal).types == [.renewal])
        #expect(shop.advance(to: day(31)).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .renewal])
    }

    /// A billing notice just after the end starts the grace period with no EXPIRATION before it:
    /// a consumer never revokes access the grace period gives.
    @Test func aBillingNoticeJustAfterTheEndGivesGraceWithoutAnExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + wait / 2).isEmpty)
        let late = Fixture.failWithGrace.with(uuid: "n-fail-late", signed: day(30) + wait / 2)
        #expect(shop.send(late).types == [.billingIssue, .cancellation])
        #expect(shop.advance(to: day(46) - 1).isEmpty)
        let graceEnd = shop.advance(to: day(46))
        #expect(graceEnd.types == [.expiration])
        #expect(graceEnd.first?.expirationReason == .billingError)
        #expect(shop.outbox.filter { $0.type == .expiration }.count == 1)
    }

    /// Silence past the wait: the EXPIRATION, dated when access ended.
    @Test func silencePastTheWaitExpiresWithTheEndOfAccess() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + wait - 1).isEmpty)
        let expiration = shop.advance(to: day(30) + wait)
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .unknown)
        #expect(expiration.first?.expirationAtMs == day(30))
        #expect(expiration.first?.eventTimestampMs == day(30) + wait)
    }

    /// Auto-renew off: nothing will renew, and the EXPIRATION comes at the end.
    @Test func aKnownLapseExpiresAtTheEnd() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        #expect(shop.timers.values.map(\.fireAtMs) == [day(30)])
        #expect(shop.advance(to: day(30)).types == [.expiration])
    }

    /// A short period (Sandbox's five-minute month) waits a tenth of it, not an hour.
    @Test func aShortPeriodWaitsATenthOfIt() {
        let start = Apple.t0
        let fiveMinutes: Int64 = 300_000
        let buy = Apple.notification(
            .subscribed, .initialBuy, uuid: "n-buy-short", signed: start,
            transaction: Apple.transaction("1000", purchase: start, expires: start + fiveMinutes), renewal: Apple.renewal())
        var shop = Harness()
        shop.send(buy)
        #expect(shop.timers.values.map(\.fireAtMs) == [start + fiveMinutes + 30_000])
        #expect(shop.advance(to: start + fiveMinutes + 29_999).isEmpty)
        #expect(shop.advance(to: start + fiveMinutes + 30_000).types == [.expiration])
    }

    /// Apple's RESUBSCRIBE within the wait proves the lapse: its EXPIRATION comes first, as when
    /// the timer had fired (the wait must not lose it).
    @Test func aResubscriptionWithinTheWaitFollowsTheExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let resubscribe = Apple.notification(
            .subscribed, .resubscribe, uuid: "n-resub", signed: day(30) + wait / 2,
            transaction: Apple.transaction("1009", purchase: day(30) + wait / 2), renewal: Apple.renewal())
        let events = shop.send(resubscribe)
        #expect(events.types == [.expiration, .renewal])
        #expect(events.first?.expirationAtMs == day(30))
        #expect(shop.advance(to: day(31)).isEmpty)
    }

    /// The app posts the resubscription first (its SDK is quicker than Apple's notice): a
    /// purchase of the same product after access ended proves the lapse too; an upgrade the app
    /// posts (another product) does not, as the period may have renewed unseen.
    @Test func aPostedResubscriptionWithinTheWaitFollowsTheExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        var again = Apple.transaction("1009", purchase: day(30) + wait / 2)
        again.transactionReason = .purchase
        again.signedDate = day(30) + wait / 2
        let events = shop.apply(.transactionPosted(again, appUserId: "user"), atMs: day(30) + wait / 2)
        #expect(events.types == [.expiration, .renewal])
        #expect(events.first?.transactionId == "1000")

        var other = Harness()
        other.send(Fixture.buy)
        var upgrade = Apple.transaction("1009", product: Apple.yearly, purchase: day(30) + wait / 2)
        upgrade.transactionReason = .purchase
        upgrade.signedDate = day(30) + wait / 2
        #expect(
            !other.apply(.transactionPosted(upgrade, appUserId: "user"), atMs: day(30) + wait / 2).types.contains(.expiration))
    }

    /// A timer a build without the wait scheduled at the end keeps its time: replaying its
    /// recorded firing makes the EXPIRATION it made then.
    @Test func aTimerScheduledAtTheEndByAnEarlierBuildKeepsItsTime() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let earlier = ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: day(30))
        #expect(shop.apply(.timerFired(earlier), atMs: day(30) - 1).isEmpty)
        #expect(shop.apply(.timerFired(earlier), atMs: day(30)).types == [.expiration])
    }

    /// The EXPIRED's CANCELLATION has an id of its own: a renewal-status notice that an answer of
    /// Apple's followed still gives its CANCELLATION, delivered before or after the EXPIRED.
    @Test func anExpiredsCancellationDoesNotStandForARenewalStatusNotice() {
        func events(disabledFirst: Bool) -> Set<String> {
            var shop = Harness()
            shop.send(Fixture.buy)
            var answer = Fixture.p1
            answer.signedDate = day(8)
            var renewal = Apple.renewal(autoRenew: true)
            renewal.signedDate = day(8)
            let enabled = Apple.notification(
                .didChangeRenewalStatus, .autoRenewEnabled, uuid: "n-enable", signed: day(7), transaction: Fixture.p1,
                renewal: Apple.renewal())
            let expired = Apple.notification(
                .expired, .priceIncrease, uuid: "n-expired", signed: day(30), transaction: Fixture.p1,
                renewal: Apple.renewal(autoRenew: false, intent: .customerDidNotConsentToPriceIncrease))
            shop.send(enabled)
            shop.apply(.appleAnswered(answer, renewalInfo: renewal, appUserId: nil), atMs: day(8))
            shop.send(Fixture.pricePending)
            if disabledFirst { shop.send(Fixture.disable) }
            shop.send(expired)
            if !disabledFirst { shop.send(Fixture.disable) }
            return Set(shop.outbox.filter { $0.type != .expiration }.map(\.id))
        }
        let inOrder = events(disabledFirst: true)
        #expect(inOrder == events(disabledFirst: false))
        #expect(inOrder.count == 4, "INITIAL_PURCHASE, UNCANCELLATION, and two CANCELLATIONs: \(inOrder)")
    }
}
