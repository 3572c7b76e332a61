import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// `RENEWAL_EXTENDED` moves the end of the current period; every one names a new lapse
/// (`SubscriptionState.lapseKey`). These pin down what that gives the timer rule: one EXPIRATION
/// per time access ends, whether the extension came before the end (the lapse it replaced never
/// had one) or after it (access came back, so its second end is a lapse of its own).
@Suite struct RenewalExtendedLapseTests {
    let day = Fixture.day
    /// An EXPIRATION waits this long past the end for a renewal Apple may still report.
    let wait = Fixture.renewalNoticeWait

    private func extended(_ uuid: String, signed: Int64, to expires: Int64) -> VerifiedNotificationFacts {
        Apple.notification(
            .renewalExtended, uuid: uuid, signed: signed,
            transaction: Apple.transaction("1000", purchase: Apple.t0, expires: expires))
    }

    private func expirations(_ shop: Harness) -> [Event] { shop.outbox.filter { $0.type == .expiration } }

    @Test func anExtensionBeforeTheEndLeavesOneExpirationAtTheNewEnd() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(extended("n-extend", signed: day(20), to: day(37))).types == [.subscriptionExtended])
        #expect(shop.advance(to: day(30)).isEmpty, "the old end passes with access still on")
        #expect(shop.subscription.hasAccess(atMs: day(36)))
        #expect(shop.advance(to: day(37) + wait).types == [.expiration])
        #expect(expirations(shop).first?.expirationAtMs == day(37))
        #expect(shop.advance(to: day(90)).isEmpty)
        #expect(expirations(shop).count == 1)
    }

    @Test func twoExtensionsBeforeTheEndStillMakeOneExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(extended("n-extend-1", signed: day(20), to: day(37)))
        shop.send(extended("n-extend-2", signed: day(25), to: day(44)))
        #expect(shop.advance(to: day(37)).isEmpty)
        #expect(shop.advance(to: day(44) + wait).types == [.expiration])
        #expect(shop.advance(to: day(90)).isEmpty)
        #expect(expirations(shop).count == 1)
    }

    /// Apple retries: the same extension twice is one fact, one event, and still one lapse.
    @Test func aRepeatedExtensionChangesNothing() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let notice = extended("n-extend", signed: day(20), to: day(37))
        shop.send(notice)
        let before = shop.ledger
        #expect(shop.send(notice).isEmpty)
        #expect(shop.ledger == before)
        #expect(shop.advance(to: day(90)).types == [.expiration])
    }

    /// Access ended and was recorded; the extension gives it back, and its end is a second lapse
    /// with an EXPIRATION (and event id) of its own.
    @Test func anExtensionAfterTheExpirationGivesAccessBackAndASecondExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + wait).types == [.expiration])
        #expect(!shop.subscription.hasAccess(atMs: day(31)))
        #expect(shop.send(extended("n-extend", signed: day(31), to: day(40))).types == [.subscriptionExtended])
        #expect(shop.subscription.hasAccess(atMs: day(31)))
        #expect(shop.advance(to: day(39)).isEmpty)
        #expect(shop.advance(to: day(40) + wait).types == [.expiration])
        #expect(shop.advance(to: day(90)).isEmpty)
        let ids = expirations(shop).map(\.id)
        #expect(ids.count == 2 && Set(ids).count == 2)
    }

    /// The extension signed before the end but delivered after the timer recorded the end: access
    /// did stop here meanwhile, so its return ends in a second EXPIRATION, never in none.
    @Test func aLateDeliveredExtensionStillEndsInAnExpiration() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.advance(to: day(30) + wait).types == [.expiration])
        shop.apply(.notificationReceived(extended("n-extend", signed: day(29), to: day(40))), atMs: day(31))
        #expect(shop.subscription.hasAccess(atMs: day(32)))
        #expect(shop.advance(to: day(40) + wait).types == [.expiration])
        #expect(Set(expirations(shop).map(\.id)).count == 2)
    }
}
