import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Customers as RevenueCat models them: ids and aliases, merges without TRANSFER, the restore
/// behaviour between identified customers, deletion, and customers named by a UUID token.
@Suite struct IdentityTests {
    let day = Fixture.day

    func shop(_ restore: RestoreBehavior = .transfer, tracking: Bool = false) -> Harness {
        Harness(
            ledger: Ledger(
                configuration: LedgerConfiguration(
                    trackNewPurchasesFromServerNotifications: tracking, restoreBehavior: restore)))
    }

    @Test(arguments: [
        (RestoreBehavior.transfer, "bob", [EventType.transfer]),
        (.keepWithOriginal, "user", []),
        // The purchase gives its owner access now: it stays.
        (.transferIfNoActive, "user", []),
    ])
    func restoreBehaviourDecidesBetweenIdentifiedCustomers(restore: RestoreBehavior, owner: String, events: [EventType]) {
        var shop = shop(restore)
        shop.send(Fixture.buy)
        let moved = shop.apply(.transactionPosted(posted(Fixture.p1, at: day(2)), appUserId: "bob"), atMs: day(2))
        #expect(moved.types == events)
        #expect(shop.subscription.journal.ownerAppUserId == owner)
        // A refusal is the reducer's to say: the API answers it without reading the owner again.
        #expect(shop.refusedLinks == (owner == "bob" ? [] : [owner]))
        // The owner's own post (a renewal, another launch of the app) is no refusal.
        let own = shop.apply(
            .transactionPosted(posted(Apple.transaction("1001", purchase: day(30)), at: day(31)), appUserId: owner),
            atMs: day(31))
        #expect(!own.types.contains(.transfer))
        #expect(shop.refusedLinks == (owner == "bob" ? [] : [owner]))
        #expect(shop.subscription.journal.ownerAppUserId == owner)
    }

    @Test func transferIfNoActiveMovesALapsedPurchase() {
        var shop = shop(.transferIfNoActive)
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        shop.advance(to: day(31))
        let moved = shop.apply(.transactionPosted(posted(Fixture.p1, at: day(32)), appUserId: "bob"), atMs: day(32))
        #expect(moved.types == [.transfer])
        #expect(shop.subscription.journal.ownerAppUserId == "bob")
        #expect(shop.refusedLinks.isEmpty)
    }

    /// RevenueCat: one-time purchases do not prevent transfers. A lifetime unlock the owner
    /// still has moves to whoever posts it under `transferIfNoActive`; `keepWithOriginal` keeps it.
    @Test(arguments: [(RestoreBehavior.transferIfNoActive, "bob"), (.keepWithOriginal, "user")])
    func aOneTimePurchaseIsNoActiveSubscription(restore: RestoreBehavior, owner: String) {
        var shop = shop(restore)
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, token: "user")
        shop.send(Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime))
        #expect(shop.ledger.oneTimePurchases["7000"]?.journal.ownerAppUserId == "user")
        let moved = shop.apply(.transactionPosted(posted(lifetime, at: day(3)), appUserId: "bob"), atMs: day(3))
        #expect(moved.types == (owner == "bob" ? [.transfer] : []))
        #expect(shop.ledger.oneTimePurchases["7000"]?.journal.ownerAppUserId == owner)
    }

    /// RevenueCat moves an Apple account's purchases together: under `transferIfNoActive`, the
    /// owner's active subscription keeps their lifetime unlock with them too, until it lapses.
    @Test func anActiveSubscriptionKeepsTheOwnersOneTimePurchase() {
        var shop = shop(.transferIfNoActive)
        let monthly = Apple.transaction("1000", purchase: day(1), token: "user")
        shop.send(Apple.notification(.subscribed, .initialBuy, uuid: "n-sub", signed: day(1), transaction: monthly))
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, token: "user")
        shop.send(Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime))
        let kept = shop.apply(.transactionPosted(posted(lifetime, at: day(3)), appUserId: "bob"), atMs: day(3))
        #expect(!kept.types.contains(.transfer))
        #expect(shop.refusedLinks == ["user"])
        #expect(shop.ledger.oneTimePurchases["7000"]?.journal.ownerAppUserId == "user")
        let moved = shop.apply(.transactionPosted(posted(lifetime, at: day(40)), appUserId: "bob"), atMs: day(40))
        #expect(moved.types.contains(.transfer))
        #expect(shop.ledger.oneTimePurchases["7000"]?.journal.ownerAppUserId == "bob")
    }

    /// The owner's subscriptions are read for a link only where they can decide it: another
    /// identified customer taking a one-time purchase under `transferIfNoActive`; never for the
    /// owner's own post, nor for a slice read to learn the owner (which names nobody).
    @Test func theOwnersSubscriptionsAreReadOnlyWhereTheyDecide() {
        let lifetime = Apple.transaction("7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable)
        let ledger = shop(.transferIfNoActive).ledger
        #expect(ledger.needsSubscriptions(of: "user", toLink: .transactionPosted(lifetime, appUserId: "bob")))
        #expect(!ledger.needsSubscriptions(of: "user", toLink: .transactionPosted(lifetime, appUserId: "user")))
        #expect(!ledger.needsSubscriptions(of: "user", toLink: .transactionPosted(lifetime, appUserId: "")))
        #expect(!ledger.needsSubscriptions(of: "user", toLink: .transactionPosted(Fixture.p1, appUserId: "bob")))
        #expect(!shop(.transfer).ledger.needsSubscriptions(of: "user", toLink: .transactionPosted(lifetime, appUserId: "bob")))
    }

    /// The stored period has lapsed (its renewal's notification was missed), but the posted
    /// renewal shows access: `transferIfNoActive` keeps it with its owner.
    @Test func transferIfNoActiveTrustsThePostedTransactionsAccess() {
        var shop = shop(.transferIfNoActive)
        shop.send(Fixture.buy)
        shop.advance(to: day(31))
        let renewal = posted(Apple.transaction("1001", purchase: day(30)), at: day(32))
        let moved = shop.apply(.transactionPosted(renewal, appUserId: "bob"), atMs: day(32))
        #expect(!moved.types.contains(.transfer))
        #expect(shop.subscription.journal.ownerAppUserId == "user")
        #expect(shop.refusedLinks == ["user"])
    }

    /// A resubscription after the stored period lapsed is the poster's purchase, not the owner's
    /// access: `transferIfNoActive` gives it to the poster, as the SDK's restore-eligibility
    /// answer (asked with the account's lapsed transaction) promised.
    @Test func transferIfNoActiveGivesAResubscriptionToItsBuyer() {
        var shop = shop(.transferIfNoActive)
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        shop.advance(to: day(40))
        var resubscribed = posted(Apple.transaction("1001", purchase: day(40)), at: day(40))
        resubscribed.transactionReason = .purchase
        let moved = shop.apply(.transactionPosted(resubscribed, appUserId: "bob"), atMs: day(40))
        #expect(moved.types.contains(.transfer))
        #expect(shop.subscription.journal.ownerAppUserId == "bob")
        #expect(shop.refusedLinks.isEmpty)
    }

    /// RevenueCat's `logIn` table: whether logging in from `from` to `to` merges the two, after
    /// the customers `known` were seen (`alias` joined to the first of them first).
    @Test(arguments: [
        // Anonymous to a new id.
        ("$RCAnonymousID:a", "ann", [String](), nil as String?, true),
        // Anonymous to a known id with no anonymous id of its own.
        ("$RCAnonymousID:a", "ann", ["ann"], nil, true),
        // Anonymous to a known id that has one (a second device).
        ("$RCAnonymousID:a", "ann", ["ann"], "$RCAnonymousID:b", false),
        // Identified to anything.
        ("bob", "ann", ["bob"], nil, false),
        ("bob", "ann", ["bob", "ann"], nil, false),
        // An anonymous id already merged into an identified customer is that customer.
        ("$RCAnonymousID:a", "ann", ["bob"], "$RCAnonymousID:a", false),
    ])
    func logInMergesAsRevenueCatsTableSays(from: String, to: String, known: [String], alias: String?, merges: Bool) {
        var shop = shop()
        for id in known { shop.apply(.customerAction(.seen(appUserId: id)), atMs: day(1)) }
        if let alias, let first = known.first {
            shop.apply(.customerAction(.aliased(appUserId: alias, newAppUserId: first)), atMs: day(1))
        }
        shop.apply(.customerAction(.seen(appUserId: from)), atMs: day(1))
        shop.apply(.customerAction(.loggedIn(appUserId: from, newAppUserId: to)), atMs: day(2))
        #expect((shop.ledger.customerId(from) == shop.ledger.customerId(to)) == merges)
        #expect(shop.ledger.customers[shop.ledger.customerId(to)] != nil)
    }

    @Test func aUUIDTokenNamesANewCustomerInLowerCase() {
        var shop = Harness(
            ledger: Ledger(configuration: LedgerConfiguration(trackNewPurchasesFromServerNotifications: true)), owner: nil)
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        let events = shop.send(buy)
        #expect(events.first?.appUserId == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(shop.subscription.journal.ownerAppUserId == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(Ledger.tokenCustomerIds("3F2504E0-4F89-11D3-9A0C-0305E82C3301").count == 2)
        #expect(Ledger.isUUID("not-a-uuid") == false)
    }

    /// The app's post and Apple's notice race. The notice first makes the customer its UUID token
    /// names; the post for another id then takes the purchase in every restore mode, as it does
    /// arriving first: a customer only tracking made, holding nothing else, is not one
    /// `restoreBehavior` keeps purchases with. One the app made itself is.
    @Test(arguments: [RestoreBehavior.transfer, .keepWithOriginal, .transferIfNoActive], [false, true])
    func thePostersPurchaseInEitherOrderOverATokensCustomer(restore: RestoreBehavior, madeByApp: Bool) {
        let token = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = token
        var post = posted(Fixture.p1, at: day(0) + 1)
        post.appAccountToken = token
        var owners: [String?] = []
        for postFirst in [true, false] {
            var shop = Harness(
                ledger: Ledger(
                    configuration: LedgerConfiguration(trackNewPurchasesFromServerNotifications: true, restoreBehavior: restore)),
                owner: nil)
            if madeByApp { shop.apply(.customerAction(.seen(appUserId: token)), atMs: day(0)) }
            if postFirst { shop.apply(.transactionPosted(post, appUserId: "u1"), atMs: day(0) + 1) }
            shop.send(buy)
            if !postFirst { shop.apply(.transactionPosted(post, appUserId: "u1"), atMs: day(0) + 2) }
            owners.append(shop.subscription.journal.ownerAppUserId)
            // Tracking's customer for the token is left with nothing: gone, in either order.
            if !madeByApp { #expect(shop.ledger.customers[token] == nil, "post first: \(postFirst)") }
        }
        #expect(owners[0] == "u1")
        // A customer the app made before the notice is the owner restoreBehavior protects.
        let kept = madeByApp && restore != .transfer
        #expect(owners[1] == (kept ? token : "u1"))
    }

    /// Once the app acts as the token's customer (a post, a GET's `seen`, attributes, ...), it is
    /// the app's, and restoreBehavior keeps its purchases from others.
    @Test(arguments: [
        Ledger.Input.transactionPosted(Fixture.p1, appUserId: "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
        .customerAction(.seen(appUserId: "3f2504e0-4f89-11d3-9a0c-0305e82c3301")),
        .customerAction(.attributesSet(appUserId: "3f2504e0-4f89-11d3-9a0c-0305e82c3301", [:])),
    ])
    func aTokensCustomerTheAppActedAsKeepsItsPurchase(acting: Ledger.Input) {
        let token = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        var shop = Harness(
            ledger: Ledger(
                configuration: LedgerConfiguration(
                    trackNewPurchasesFromServerNotifications: true, restoreBehavior: .keepWithOriginal)),
            owner: nil)
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = token
        shop.send(buy)
        #expect(shop.ledger.customers[token]?.madeByTracking == true)
        shop.apply(acting, atMs: day(1))
        #expect(shop.ledger.customers[token]?.madeByTracking == nil)
        shop.apply(.transactionPosted(posted(Fixture.p1, at: day(2)), appUserId: "mallory"), atMs: day(2))
        #expect(shop.subscription.journal.ownerAppUserId == token)
        #expect(shop.refusedLinks == [token])
    }

    @Test func aTokenNamingAnAliasGoesToItsCustomer() {
        var shop = Harness(ledger: Ledger(), owner: nil)
        shop.apply(.customerAction(.seen(appUserId: "bob")))
        shop.apply(.customerAction(.aliased(appUserId: "bob", newAppUserId: "bob@example.com")))
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = "bob@example.com"
        #expect(shop.send(buy).first?.appUserId == "bob")
    }

    @Test func aliasMergesWithWhatItOwnsAndAnAnonymousIdJoinsTheIdentifiedOne() {
        var shop = Harness(owner: "$RCAnonymousID:abc")
        shop.send(Fixture.buy)
        // Asked about an anonymous id with an identified new id: the identified one keeps it all.
        #expect(shop.apply(.customerAction(.aliased(appUserId: "$RCAnonymousID:abc", newAppUserId: "dana"))).isEmpty)
        #expect(shop.subscription.journal.ownerAppUserId == "dana")
        #expect(shop.ledger.customers["dana"]?.aliases == ["$RCAnonymousID:abc", "dana"])
        #expect(shop.ledger.customers["dana"]?.originalTransactionIds == [Apple.original])
        #expect(shop.ledger.customers["$RCAnonymousID:abc"] == nil)
        // The anonymous id came first: RevenueCat's original_app_user_id.
        #expect(shop.ledger.customers["dana"]?.firstAppUserId == "$RCAnonymousID:abc")
        #expect(shop.send(Fixture.disable).first?.originalAppUserId == "$RCAnonymousID:abc")
        // Between identified ids, the new one joins the customer asked about.
        shop.apply(.customerAction(.seen(appUserId: "erin")))
        shop.apply(.customerAction(.aliased(appUserId: "dana", newAppUserId: "erin")))
        #expect(shop.ledger.customers["dana"]?.aliases == ["$RCAnonymousID:abc", "dana", "erin"])
        #expect(shop.ledger.customerId("erin") == "dana")
        // Seeing an alias creates nothing.
        shop.apply(.customerAction(.seen(appUserId: "erin")))
        #expect(shop.ledger.customers["erin"] == nil)
    }

    /// Two customers made one go on counting from the higher of their counts, by log-in or alias:
    /// no `sequence` comes twice for the customer they now are.
    @Test(arguments: [false, true])
    func aMergeGoesOnFromTheHigherSequence(byAlias: Bool) {
        var shop = Harness(owner: "$RCAnonymousID:abc")
        #expect(shop.send(Fixture.buy).map(\.sequence) == [1])
        shop.apply(.customerAction(.seen(appUserId: "walt")))
        let join: CustomerAction =
            byAlias
            ? .aliased(appUserId: "walt", newAppUserId: "$RCAnonymousID:abc")
            : .loggedIn(appUserId: "$RCAnonymousID:abc", newAppUserId: "walt")
        shop.apply(.customerAction(join))
        #expect(shop.ledger.customerId("$RCAnonymousID:abc") == "walt")
        let after = shop.send(Fixture.disable)
        #expect(after.map(\.appUserId) == ["walt"])
        #expect(after.map(\.sequence) == [2])
    }

    @Test func deletionErasesTheCustomerAndUnlinksItsPurchases() {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.apply(.customerAction(.aliased(appUserId: "user", newAppUserId: "user@example.com")))
        shop.apply(.customerAction(.deleted(appUserId: "user@example.com")))
        #expect(shop.ledger.customers["user"] == nil)
        #expect(shop.ledger.customerId("user@example.com") == "user@example.com")
        #expect(shop.subscription.journal.ownerAppUserId == nil)
        // Its next events wait for a link, as for any purchase nobody owns.
        #expect(shop.send(Fixture.disable).isEmpty)
        #expect(
            shop.apply(.linked(.subscription(originalTransactionId: Apple.original), appUserId: "fay")).types == [.cancellation])
    }
}
