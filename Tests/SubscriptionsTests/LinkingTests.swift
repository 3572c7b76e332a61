import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4 item 4, the reducer's part: the three ways a purchase becomes a customer's, held
/// history released on link, and transfers.
@Suite struct LinkingTests {
    let day = Fixture.day
    let configuration = LedgerConfiguration(appId: "app1", entitlements: ["pro": [Apple.monthly, Apple.yearly]])

    @Test func postingATransactionLinksAndApplies() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        let events = shop.apply(.transactionPosted(posted(Fixture.p1, at: Apple.t0 + 1), appUserId: "alice"))
        #expect(events.types == [.initialPurchase])
        #expect(events.first?.appUserId == "alice")
        #expect(events.first?.originalAppUserId == "alice")
        #expect(events.first?.aliases == ["alice"])
        #expect(events.first?.appId == "app1")
        #expect(events.first?.entitlementIds == ["pro"])
        #expect(events.first?.sequence == 1)
        #expect(shop.ledger.customers["alice"]?.originalTransactionIds == [Apple.original])
        #expect(shop.ledger.customers["alice"]?.firstSeenMs == Apple.t0)
        #expect(shop.timers.values.map(\.fireAtMs) == [day(30) + Fixture.renewalNoticeWait])
    }

    @Test func appAccountTokenOfAnExistingCustomerClaimsThePurchase() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        shop.apply(.linked(.oneTime(transactionId: "unrelated"), appUserId: "bob"))
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = "bob"
        #expect(shop.send(buy).first?.appUserId == "bob")
        #expect(shop.subscription.journal.ownerAppUserId == "bob")
    }

    /// Both ways a database may write anonymous ids: RevenueDot's, and RevenueCat's form keyed
    /// by the database's secret.
    static let anonymousIdStyles: [AnonymousIds] = [.revenueDot, .revenueCat(key: "0f1e2d3c4b5a69788796a5b4c3d2e1f0")]

    static func tracking(_ style: AnonymousIds) -> LedgerConfiguration {
        var tracking = LedgerConfiguration(trackNewPurchasesFromServerNotifications: true)
        tracking.anonymousIds = style
        return tracking
    }

    @Test(arguments: anonymousIdStyles)
    func trackingOnGivesAnUnclaimedPurchaseToAnAnonymousCustomer(style: AnonymousIds) {
        var shop = Harness(ledger: Ledger(configuration: Self.tracking(style)), owner: nil)
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = "not-a-customer"
        let events = shop.send(buy)
        let anonymous = events.first?.appUserId ?? ""
        switch style {
        case .revenueDot: #expect(anonymous == "$RevenueDotAnonymous:\(Apple.original)")
        case .revenueCat:
            // The form RevenueCat's SDKs match (`IdentityManager`'s `\$RCAnonymousID:([a-z0-9]{32})$`).
            #expect(anonymous.wholeMatch(of: /\$RCAnonymousID:[0-9a-f]{32}/) != nil)
            #expect(!anonymous.contains(Apple.original))
        }
        #expect(shop.ledger.customers[anonymous] != nil && Ledger.isAnonymous(anonymous))
        // The app posts it for carol: the anonymous customer is merged into carol, as RevenueCat
        // aliases an anonymous owner rather than transfer from it. No TRANSFER.
        let moved = shop.apply(.transactionPosted(posted(Fixture.p1, at: day(1)), appUserId: "carol"), atMs: day(1))
        #expect(moved.isEmpty)
        #expect(shop.subscription.journal.ownerAppUserId == "carol")
        #expect(shop.ledger.customers[anonymous] == nil)
        #expect(shop.ledger.customers["carol"]?.aliases == [anonymous, "carol"])
        #expect(shop.ledger.customerId(anonymous) == "carol")
        let later = shop.send(Fixture.disable)
        #expect(later.first?.appUserId == "carol")
        #expect(later.first?.aliases == [anonymous, "carol"])
    }

    /// With tracking on, the purchase's own notice names its customer by token while a later
    /// fact (a renewal-status change) does not: whichever arrives first, the purchase ends with
    /// the token's customer. Arriving second, the notice takes it from the anonymous customer
    /// tracking made, which merges into it (no TRANSFER).
    @Test(arguments: [false, true], anonymousIdStyles)
    func theTokensCustomerGetsThePurchaseInEitherOrder(tokenLast: Bool, style: AnonymousIds) {
        let tracking = Self.tracking(style)
        var shop = Harness(ledger: Ledger(configuration: tracking), owner: nil)
        let token = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        var buy = Fixture.buy
        buy.transaction?.appAccountToken = token
        var disable = Fixture.disable
        disable.transaction?.appAccountToken = nil
        let placeholder = style.id(
            for: .subscription(originalTransactionId: Apple.original), originalTransactionId: Apple.original)
        for facts in tokenLast ? [disable, buy] : [buy, disable] { shop.send(facts) }
        #expect(shop.subscription.journal.ownerAppUserId == token)
        #expect(shop.ledger.customers[token]?.originalTransactionIds == [Apple.original])
        #expect(shop.ledger.customers[placeholder] == nil)
        #expect(shop.ledger.customers[token]?.firstAppUserId == token)
        #expect(!shop.outbox.contains { $0.type == .transfer })
        if tokenLast { #expect(shop.ledger.customerId(placeholder) == token) }
        // A token naming nobody leaves the anonymous customer as it is.
        var stranger = Fixture.buy
        stranger.notificationUUID = "n-stranger"
        stranger.transaction?.appAccountToken = "not-a-customer"
        var other = Harness(ledger: Ledger(configuration: tracking), owner: nil)
        other.send(disable)
        other.send(stranger)
        #expect(other.subscription.journal.ownerAppUserId == placeholder)
    }

    /// A customer the app's SDK made (`$RCAnonymousID:` too) is not one tracking made: a later
    /// token does not take a purchase it posted, in either style.
    @Test(arguments: anonymousIdStyles)
    func anSDKsAnonymousCustomerKeepsWhatItPosted(style: AnonymousIds) {
        var shop = Harness(ledger: Ledger(configuration: Self.tracking(style)), owner: nil)
        let sdk = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
        shop.apply(.linked(.oneTime(transactionId: "unrelated"), appUserId: "bob"))
        shop.apply(.transactionPosted(posted(Fixture.p1, at: day(0)), appUserId: sdk), atMs: day(0))
        var named = Fixture.disable
        named.transaction?.appAccountToken = "bob"
        shop.send(named)
        #expect(shop.subscription.journal.ownerAppUserId == sdk)
    }

    /// The rule a shell loads held events by (`Ledger.mayClaimAPurchase(by:)`) is the rule the
    /// reducer claims by: an input it rules out leaves an unowned purchase unowned, whatever the
    /// input, and it rules out a token that names nobody yet.
    @Test(arguments: [false, true])
    func anUnownedPurchaseIsClaimedOnlyByAnInputTheRuleAllows(tracking: Bool) {
        var named = Fixture.disable
        named.transaction?.appAccountToken = "bob"
        var renewal = Fixture.disable
        renewal.notificationUUID = "renewal-without-token"
        var stranger = Fixture.disable
        stranger.notificationUUID = "renewal-for-a-customer-not-made-yet"
        stranger.transaction?.appAccountToken = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        let cases: [(name: String, input: Ledger.Input, claims: Bool)] = [
            ("a notification naming no customer", .notificationReceived(renewal), tracking),
            ("a notification whose token names bob", .notificationReceived(named), true),
            ("a notification whose token names nobody yet", .notificationReceived(stranger), tracking),
            ("a timer", .timerFired(ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: day(31))), false),
            ("a post", .transactionPosted(posted(Fixture.p1, at: day(1)), appUserId: "carol"), true),
            ("a link", .linked(.subscription(originalTransactionId: Apple.original), appUserId: "carol"), true),
            ("Apple's history, for nobody", .appleHistory(posted(Fixture.p1, at: day(1)), appUserId: nil), tracking),
        ]
        for (name, input, claims) in cases {
            var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
            shop.apply(.linked(.oneTime(transactionId: "unrelated"), appUserId: "bob"))
            shop.send(Fixture.buy)
            #expect(shop.subscription.journal.ownerAppUserId == nil)
            shop.ledger.configuration.trackNewPurchasesFromServerNotifications = tracking
            let mayClaim = shop.ledger.mayClaimAPurchase(by: input)
            shop.apply(input, atMs: day(31))
            let claimed = shop.subscription.journal.ownerAppUserId != nil
            #expect(claimed == claims, "\(name), tracking \(tracking)")
            #expect(!claimed || mayClaim, "\(name), tracking \(tracking)")
        }
    }

    @Test func trackingOffHoldsEventsUntilTheAppLinksThePurchase() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        #expect(shop.send(Fixture.buy).isEmpty)
        #expect(shop.send(Fixture.disable).isEmpty)
        #expect(shop.advance(to: day(30)).isEmpty)
        #expect(shop.subscription.journal.heldEvents.types == [.initialPurchase, .cancellation, .expiration])
        #expect(shop.ledger.customers.isEmpty)
        let released = shop.apply(.transactionPosted(posted(Fixture.p1, at: day(31)), appUserId: "dave"), atMs: day(31))
        #expect(released.types == [.initialPurchase, .cancellation, .expiration])
        #expect(released.map(\.sequence) == [1, 2, 3])
        #expect(released.allSatisfy { $0.appUserId == "dave" && $0.eventTimestampMs == day(31) })
        #expect(shop.subscription.journal.heldEvents.isEmpty)
    }

    @Test func linkingAnOwnedPurchaseToAnotherCustomerTransfersIt() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: "erin")
        shop.send(Fixture.buy)
        let key = PurchaseKey.subscription(originalTransactionId: Apple.original)
        #expect(shop.apply(.linked(key, appUserId: "erin")).isEmpty)
        let first = shop.apply(.linked(key, appUserId: "frank"))
        let back = shop.apply(.linked(key, appUserId: "erin"))
        #expect(first.types == [.transfer])
        #expect(back.types == [.transfer])
        #expect(first.first?.id != back.first?.id)
        #expect(back.first?.sequence == 2)
        #expect(shop.ledger.customers["frank"]?.owns(key) == false)
        #expect(shop.ledger.customers["erin"]?.owns(key) == true)
        #expect(shop.subscription.journal.transferCount == 2)
    }

    @Test func migratedSubscriptionKeepsItsOwner() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: "gina")
        shop.send(Fixture.buy)
        var migrated = Apple.transaction("5000", original: "5000", purchase: day(10))
        migrated.previousOriginalTransactionId = Apple.original
        let migration = Apple.notification(.migration, uuid: "n-migrate", signed: day(10), transaction: migrated)
        #expect(shop.send(migration).isEmpty)
        #expect(shop.ledger.subscriptions["5000"]?.journal.ownerAppUserId == "gina")
        #expect(shop.ledger.customers["gina"]?.originalTransactionIds == [Apple.original, "5000"])
    }
}
