import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4 item 3: duplicates change nothing; older snapshots never roll state back, yet what
/// only they carry still applies; a fact reported twice makes one event.
@Suite struct OrderingTests {
    let day = Fixture.day
    let renewal = Apple.notification(
        .didRenew, uuid: "n-renew", signed: Fixture.day(30), transaction: Fixture.p2, renewal: Apple.renewal())

    @Test func duplicateNotificationChangesNothing() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        let before = shop.ledger
        var altered = Fixture.disable
        altered.renewalInfo?.autoRenewStatus = .on
        #expect(shop.send(Fixture.disable).isEmpty)
        #expect(shop.send(altered).isEmpty)
        #expect(shop.ledger == before)
        #expect(shop.apply(.timerFired(ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: day(1)))).isEmpty)
    }

    @Test func olderSnapshotDoesNotRollBack() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(renewal)
        let lateCancel = shop.apply(.notificationReceived(Fixture.disable), atMs: day(31))
        #expect(lateCancel.types == [.cancellation])
        let state = shop.subscription
        #expect(state.transactionId == "1001")
        #expect(state.autoRenewEnabled == true)
        #expect(state.unsubscribeDetectedAtMs == nil)
        #expect(state.newestSignedDateMs == day(30))
        #expect(state.journal.facts.map(\.id) == ["n-buy", "n-disable", "n-renew"])
    }

    @Test func lateInitialBuyKeepsTheNewerPeriodAndReportsThePurchaseOnce() {
        var shop = Harness()
        #expect(shop.send(renewal).types == [.renewal])
        #expect(shop.apply(.notificationReceived(Fixture.buy), atMs: day(31)).types == [.initialPurchase])
        #expect(shop.subscription.transactionId == "1001")
        #expect(shop.subscription.renewalNumber == 2)
        #expect(shop.apply(.notificationReceived(Fixture.buy), atMs: day(32)).isEmpty)
    }

    /// RevenueCat sends a refund's CANCELLATION only for the latest period: a period refunded
    /// after it ended gets none, in any delivery order, and the period after it keeps access.
    @Test(arguments: [false, true])
    func refundOfAPeriodThatHadEndedIsNoCancellation(refundFirst: Bool) {
        var shop = Harness()
        shop.send(Fixture.buy)
        let refund = Apple.notification(
            .refund, uuid: "n-refund-ended", signed: day(36),
            transaction: Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(35)))
        let events =
            refundFirst
            ? shop.apply(.notificationReceived(refund), atMs: day(37)) + shop.send(renewal)
            : shop.send(renewal) + shop.apply(.notificationReceived(refund), atMs: day(37))
        #expect(events.types == [.renewal])
        let state = shop.subscription
        #expect(state.refunds["1000"]?.atMs == day(35))
        #expect(state.transactionId == "1001")
        #expect(state.hasAccess(atMs: day(41)))
        #expect(state.refundedAtMs == nil)
    }

    /// A period refunded after it ended is still the latest when Apple's renewal info, signed
    /// with the refund, names its expiry as the most recent (`renewalDate`): auto-renew was off,
    /// the period lapsed, and the refund came later. RevenueCat sends that CANCELLATION; when the
    /// renewal info names a later period, the refunded one was earlier, and there is none.
    @Test(arguments: [false, true])
    func refundAfterTheEndIsACancellationOnlyForTheLatestPeriod(laterPeriodExists: Bool) {
        var shop = Harness()
        shop.send(Fixture.buy)
        var renewal = Apple.renewal(autoRenew: false)
        renewal.renewalDate = laterPeriodExists ? day(60) : day(30)
        let refund = Apple.notification(
            .refund, uuid: "n-refund-late", signed: day(36),
            transaction: Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(35)), renewal: renewal)
        let events = shop.apply(.notificationReceived(refund), atMs: day(37))
        if laterPeriodExists {
            #expect(events.isEmpty)
        } else {
            #expect(events.types == [.cancellation])
            #expect(events.first?.cancelReason == .customerSupport)
            #expect(events.first?.expirationAtMs == day(30))
        }
    }

    @Test(arguments: [Fixture.day(20), Fixture.day(40)])
    func refundOfAnOlderPeriodStillApplies(signed: Int64) {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(renewal)
        let refund = Apple.notification(
            .refund, uuid: "n-refund-old", signed: signed,
            transaction: Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(15)))
        let events = shop.apply(.notificationReceived(refund), atMs: day(41))
        // Refunded while it ran, it was the latest period then: a CANCELLATION, whose
        // expiration_at_ms is when access ended, as RevenueCat's refund events give it.
        #expect(events.types == [.cancellation])
        #expect(events.first?.transactionId == "1000")
        #expect(events.first?.expirationAtMs == day(15))
        let state = shop.subscription
        #expect(state.refunds["1000"]?.atMs == day(15))
        // The refunded period is no longer the latest: its newest snapshot is kept summarized.
        #expect(state.earlierPeriods?["1000"]?.signedDate == signed)
        #expect(state.transactions.keys.sorted() == ["1001"])
        #expect(state.transactionId == "1001")
        #expect(state.hasAccess(atMs: day(41)))
        #expect(state.refundedAtMs == nil)
    }

    @Test func postedTransactionAndNotificationMakeOnePurchaseEvent() {
        var shop = Harness(owner: nil)
        var posted = Fixture.p1
        posted.signedDate = Apple.t0 + 5_000
        let first = shop.apply(.transactionPosted(posted, appUserId: "user"), atMs: Apple.t0 + 5_000)
        #expect(first.types == [.initialPurchase])
        #expect(shop.send(Fixture.buy).isEmpty)
        var renewed = Fixture.p2
        renewed.signedDate = day(30) + 1
        #expect(shop.apply(.transactionPosted(renewed, appUserId: "user"), atMs: day(30) + 1).types == [.renewal])
        #expect(shop.send(renewal).isEmpty)
        #expect(shop.outbox.map(\.sequence) == [1, 2])
    }

    @Test func lateRenewalAfterTheTimerRevivesAndTheNextLapseExpiresAgain() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + Fixture.renewalNoticeWait).types == [.expiration])
        #expect(shop.apply(.notificationReceived(renewal), atMs: day(30) + 7_200_000).types == [.renewal])
        #expect(shop.advance(to: day(60)).isEmpty)
        #expect(shop.advance(to: day(60) + Fixture.renewalNoticeWait).types == [.expiration])
        #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count)
    }

    /// A renewal that continues its period (it starts where access ended) and arrives after the
    /// end, before any timer fired, leaves nothing to expire.
    @Test func lateRenewalBeforeTheTimerExpiresNothing() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.apply(.notificationReceived(renewal), atMs: day(30) + 7_200_000).types == [.renewal])
        #expect(shop.advance(to: day(59)).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .renewal])
    }

    /// A resubscription after the period ended, before the timer fired (the scheduler's tick, or
    /// a backfill after downtime), follows the EXPIRATION of the lapse it closes, once; the timer
    /// of that lapse then finds nothing to do.
    @Test func resubscriptionBeforeTheTimerFollowsTheExpiration() throws {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        let lapsed = try #require(shop.timers.values.first)
        let resubscribe = Apple.notification(
            .subscribed, .resubscribe, uuid: "n-resub", signed: day(40),
            transaction: Apple.transaction("1005", purchase: day(40)), renewal: Apple.renewal())
        let events = shop.send(resubscribe)
        #expect(events.types == [.expiration, .renewal])
        #expect(events.first?.transactionId == "1000")
        #expect(events.first?.expirationReason == .unsubscribe)
        #expect(events.first?.eventTimestampMs == day(40))
        #expect(shop.apply(.timerFired(lapsed), atMs: day(40) + 1).isEmpty)
        #expect(shop.send(resubscribe).isEmpty)
        #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count)
    }

    /// A resubscription whose period starts after the known end, while nothing says that period
    /// lapsed (its renewal, and what followed, have not arrived yet), leaves the lapse to the timer.
    @Test func aResubscriptionPastAnUnexplainedEndWaitsForTheTimer() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let resubscribe = Apple.notification(
            .subscribed, .resubscribe, uuid: "n-resub-70", signed: day(70),
            transaction: Apple.transaction("1009", purchase: day(70)), renewal: Apple.renewal())
        #expect(shop.send(resubscribe).types == [.renewal])
    }

    @Test func earlyOrRepeatedTimersAreHarmless() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let early = ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: day(1))
        #expect(shop.apply(.timerFired(early), atMs: day(1)).isEmpty)
        #expect(shop.timers.values.map(\.fireAtMs) == [day(30) + Fixture.renewalNoticeWait])
        let due = ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: day(30) + Fixture.renewalNoticeWait)
        #expect(shop.apply(.timerFired(due), atMs: day(30)).isEmpty)
        #expect(shop.apply(.timerFired(due), atMs: day(30) + Fixture.renewalNoticeWait).types == [.expiration])
        #expect(shop.apply(.timerFired(due), atMs: day(31)).isEmpty)
        #expect(shop.apply(.timerFired(ExpirationTimer(originalTransactionId: "nobody", fireAtMs: 0))).isEmpty)
    }
}
