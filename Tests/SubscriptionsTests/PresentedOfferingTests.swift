import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// `presented_offering_id`: the offering the app says it sold a purchase from, posted with the
/// purchase, on the purchase's events from then on, the held ones released by the post included.
@Suite struct PresentedOfferingTests {
    let day = Fixture.day

    func renewal(at signed: Int64) -> VerifiedNotificationFacts {
        Apple.notification(
            .didRenew, uuid: "n-renew", signed: signed, transaction: Apple.transaction("1001", purchase: day(30)),
            renewal: Apple.renewal())
    }

    @Test func thePostsOfferingIsOnItsEventsAndTheLaterOnes() {
        var shop = Harness(owner: nil)
        let bought = shop.apply(
            .transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice", presentedOfferingId: "spring"))
        #expect(bought.types == [.initialPurchase])
        #expect(bought.first?.presentedOfferingId == "spring")
        // Apple's notice of the same purchase adds nothing; the next ones carry the offering.
        #expect(shop.send(Fixture.buy).isEmpty)
        #expect(shop.send(Fixture.disable).map(\.presentedOfferingId) == ["spring"])
        #expect(shop.send(renewal(at: day(30))).map(\.presentedOfferingId) == ["spring"])
    }

    @Test func aPostWithoutOneMakesEventsWithout() {
        var shop = Harness(owner: nil)
        let bought = shop.apply(.transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice"))
        #expect(bought.first?.presentedOfferingId == nil)
        #expect(shop.subscription.journal.presentedOfferingId == nil)
    }

    /// Apple's notice came first, of a purchase nobody had claimed: its events wait for an owner,
    /// and the post that gives it one gives them its offering too.
    @Test func heldEventsReleasedByThePostCarryItsOffering() {
        var shop = Harness(owner: nil)
        #expect(shop.send(Fixture.buy).isEmpty)
        let released = shop.apply(
            .transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice", presentedOfferingId: "spring"),
            atMs: Apple.t0 + 5)
        #expect(released.types == [.initialPurchase])
        #expect(released.first?.presentedOfferingId == "spring")
        #expect(released.first?.appUserId == "alice")
    }

    /// An event already made for the owner stays as it was made; the later ones carry the offering.
    @Test func anEventMadeBeforeThePostStaysWithout() {
        var shop = Harness(owner: "alice")
        #expect(shop.send(Fixture.buy).map(\.presentedOfferingId) == [nil])
        shop.apply(
            .transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice", presentedOfferingId: "spring"),
            atMs: Apple.t0 + 5)
        #expect(shop.send(Fixture.disable).map(\.presentedOfferingId) == ["spring"])
        #expect(shop.outbox.first?.presentedOfferingId == nil)
    }

    /// A post of a plan change from another offering: the new offering from then on.
    @Test func aLaterPostWithAnotherOfferingReplacesIt() {
        var shop = Harness(owner: nil)
        shop.apply(
            .transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice", presentedOfferingId: "spring"))
        let upgrade = Apple.transaction("1001", product: Apple.yearly, purchase: day(3))
        let changed = shop.apply(
            .transactionPosted(posted(upgrade, at: day(3)), appUserId: "alice", presentedOfferingId: "upsell"),
            atMs: day(3))
        #expect(!changed.isEmpty)
        #expect(changed.allSatisfy { $0.presentedOfferingId == "upsell" })
        // A post without one (the app's next launch) keeps it.
        shop.apply(.transactionPosted(posted(upgrade, at: day(4)), appUserId: "alice"), atMs: day(4))
        #expect(shop.subscription.journal.presentedOfferingId == "upsell")
    }

    /// A post the app's `restoreBehavior` refuses links nothing, and says nothing of the offering.
    @Test func aRefusedPostKeepsNoOffering() {
        var shop = Harness(ledger: Ledger(configuration: LedgerConfiguration(restoreBehavior: .keepWithOriginal)))
        shop.send(Fixture.buy)
        shop.apply(
            .transactionPosted(posted(Fixture.p1, at: day(2)), appUserId: "bob", presentedOfferingId: "spring"),
            atMs: day(2))
        #expect(shop.refusedLinks == ["user"])
        #expect(shop.subscription.journal.presentedOfferingId == nil)
        #expect(shop.send(Fixture.disable).map(\.presentedOfferingId) == [nil])
    }

    /// A TRANSFER has none of the purchase's keys; the new owner's later events carry it.
    @Test func aTransferCarriesNoOffering() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let moved = shop.apply(
            .transactionPosted(posted(Fixture.p1, at: day(2)), appUserId: "bob", presentedOfferingId: "spring"),
            atMs: day(2))
        #expect(moved.types == [.transfer])
        #expect(moved.first?.presentedOfferingId == nil)
        #expect(shop.send(Fixture.disable).map(\.presentedOfferingId) == ["spring"])
    }

    @Test func aOneTimePurchaseCarriesItToo() {
        var shop = Harness(owner: nil)
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, signed: day(2))
        let bought = shop.apply(
            .transactionPosted(lifetime, appUserId: "alice", presentedOfferingId: "lifetime-sale"), atMs: day(2))
        #expect(bought.types == [.nonRenewingPurchase])
        #expect(bought.first?.presentedOfferingId == "lifetime-sale")
        #expect(shop.ledger.oneTimePurchases["7000"]?.journal.presentedOfferingId == "lifetime-sale")
    }
}
