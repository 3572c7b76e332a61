import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// A refunded or revoked transaction the app posts (StoreKit's `Transaction.all` lists them) or
/// Apple's API answers with says what its REFUND or REVOKE notification says: it grants nothing
/// from its `revocationDate` on, and its refund is one CANCELLATION, whichever report comes first.
@Suite struct RevokedTransactionReportTests {
    let day = Fixture.day
    let configuration = LedgerConfiguration(
        appId: "app1", entitlements: ["pro": [Apple.monthly, Apple.yearly], "lifetime": ["forever"]])

    func signed(_ transaction: JWSTransactionDecodedPayload, at date: Int64) -> JWSTransactionDecodedPayload {
        var copy = transaction
        copy.signedDate = date
        return copy
    }

    var refundedPeriod: JWSTransactionDecodedPayload {
        signed(Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(5)), at: day(6))
    }

    @Test(arguments: ["post", "apple"])
    func aRefundedPeriodReportedFirstGrantsNothingAndIsCancelledOnce(by reporter: String) {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        let input: Ledger.Input =
            reporter == "post"
            ? .transactionPosted(refundedPeriod, appUserId: "alice")
            : .appleAnswered(refundedPeriod, renewalInfo: nil, appUserId: "alice")
        let reported = shop.apply(input, atMs: day(6))
        #expect(reported.types == [.initialPurchase, .cancellation])
        #expect(reported.last?.cancelReason == .customerSupport)
        #expect(reported.last?.priceInPurchasedCurrency == -9.99)
        #expect(reported.last?.expirationAtMs == day(5))
        #expect(shop.subscription.refundedAtMs == day(5))
        #expect(shop.ledger.entitlements(of: "alice", atMs: day(6)).first?.isActive == false)
        // The scheduler records the lapse; Apple's REFUND notification adds nothing.
        #expect(shop.advance(to: day(6)).map(\.expirationReason) == [.customerSupport])
        let notice = Apple.notification(.refund, uuid: "n-refund", signed: day(6), transaction: refundedPeriod)
        #expect(shop.apply(.notificationReceived(notice), atMs: day(7)).isEmpty)
    }

    /// Apple's REFUND first, the app's post of the refunded transaction after: still one CANCELLATION.
    @Test func aRefundNotifiedFirstIsNotCancelledAgainByThePost() {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        shop.send(Fixture.buy)
        let notice = Apple.notification(.refund, uuid: "n-refund", signed: day(6), transaction: refundedPeriod)
        #expect(shop.send(notice).types == [.cancellation])
        #expect(shop.apply(.transactionPosted(refundedPeriod, appUserId: "user"), atMs: day(7)).isEmpty)
        #expect(shop.subscription.refundedAtMs == day(5))
    }

    /// Apple's REFUND_REVERSED missed, the transaction signed again without `revocationDate`
    /// (posted by the app, or Apple's answer to reconcile) says the refund was reversed: access
    /// comes back, in either delivery order. A copy signed before the refund changes nothing.
    @Test(arguments: [false, true])
    func aCopySignedAfterTheRefundWithoutItReversesIt(postFirst: Bool) {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        shop.send(Fixture.buy)
        let notice = Apple.notification(.refund, uuid: "n-refund", signed: day(6), transaction: refundedPeriod)
        let reinstated = signed(Apple.transaction("1000", purchase: Apple.t0), at: day(8))
        if postFirst {
            _ = shop.apply(.transactionPosted(reinstated, appUserId: "user"), atMs: day(8))
            _ = shop.send(notice)
        } else {
            _ = shop.send(notice)
            #expect(shop.subscription.refundedAtMs == day(5))
            _ = shop.apply(.transactionPosted(reinstated, appUserId: "user"), atMs: day(8))
        }
        #expect(shop.subscription.refundedAtMs == nil)
        #expect(shop.ledger.entitlements(of: "user", atMs: day(8)).first?.isActive == true)

        var stale = Harness(ledger: Ledger(configuration: configuration))
        stale.send(Fixture.buy)
        _ = stale.send(notice)
        _ = stale.apply(.transactionPosted(signed(Apple.transaction("1000", purchase: Apple.t0), at: day(4)), appUserId: "user"))
        #expect(stale.subscription.refundedAtMs == day(5))
    }

    /// The lifetime purchase 7000, bought on day 2, refunded at `revokedAt` if given.
    func lifetime(revokedAt: Int64? = nil, signedAt: Int64) -> JWSTransactionDecodedPayload {
        signed(
            Apple.transaction(
                "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, revokedAt: revokedAt),
            at: signedAt)
    }

    @Test func aOneTimePurchaseSignedAgainWithoutItsRefundIsReinstated() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        _ = shop.apply(.transactionPosted(lifetime(revokedAt: day(3), signedAt: day(4)), appUserId: "bob"), atMs: day(4))
        #expect(shop.ledger.oneTimePurchases["7000"]?.refundedAtMs == day(3))
        _ = shop.apply(.transactionPosted(lifetime(signedAt: day(2)), appUserId: "bob"), atMs: day(5))
        #expect(shop.ledger.oneTimePurchases["7000"]?.refundedAtMs == day(3))
        _ = shop.apply(.transactionPosted(lifetime(signedAt: day(9)), appUserId: "bob"), atMs: day(9))
        #expect(shop.ledger.oneTimePurchases["7000"]?.refundedAtMs == nil)
        #expect(shop.ledger.entitlements(of: "bob", atMs: day(9)).contains { $0.isActive })
    }

    @Test func aRefundedOneTimePurchasePostedGrantsNothing() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        let lifetime = lifetime(revokedAt: day(3), signedAt: day(4))
        let reported = shop.apply(.transactionPosted(lifetime, appUserId: "bob"), atMs: day(4))
        #expect(reported.types == [.nonRenewingPurchase, .cancellation])
        #expect(shop.ledger.oneTimePurchases["7000"]?.refundedAtMs == day(3))
        #expect(shop.ledger.entitlements(of: "bob", atMs: day(4)).contains { $0.isActive } == false)
        let notice = Apple.notification(.refund, uuid: "n-life-refund", signed: day(4), transaction: lifetime)
        #expect(shop.apply(.notificationReceived(notice), atMs: day(5)).isEmpty)
    }

    /// A family member's one-time purchase posted revoked: its access's EXPIRATION comes with
    /// it, and the REVOKE notification after it gives no second one.
    @Test func aFamilyRevokedOneTimePurchasePostedExpiresOnce() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        let shared = signed(
            Apple.transaction(
                "7100", original: "7100", product: "forever", purchase: day(2), ownership: .familyShared,
                type: .nonConsumable, revokedAt: day(5), revocationType: .familyRevoke),
            at: day(6))
        let reported = shop.apply(.transactionPosted(shared, appUserId: "carol"), atMs: day(6))
        #expect(reported.types == [.nonRenewingPurchase, .expiration])
        #expect(reported.last?.expirationAtMs == day(5))
        #expect(shop.ledger.oneTimePurchases["7100"]?.refundedAtMs == nil)
        let notice = Apple.notification(.revoke, uuid: "n-forever-revoked", signed: day(5), transaction: shared)
        #expect(shop.apply(.notificationReceived(notice), atMs: day(7)).isEmpty)
    }

    /// A Family Sharing revocation reported by the transaction ends access, with no refund.
    @Test func aFamilyRevocationPostedEndsAccessWithoutARefund() {
        var shop = Harness(ledger: Ledger(configuration: configuration), owner: nil)
        let shared = signed(
            Apple.transaction(
                "1000", purchase: Apple.t0, ownership: .familyShared, revokedAt: day(5), revocationType: .familyRevoke),
            at: day(6))
        let reported = shop.apply(.transactionPosted(shared, appUserId: "carol"), atMs: day(6))
        #expect(reported.types == [.initialPurchase])
        #expect(shop.subscription.revokedAtMs == day(5))
        #expect(shop.subscription.refundedAtMs == nil)
        #expect(shop.ledger.entitlements(of: "carol", atMs: day(6)).first?.isActive == false)
    }

    /// A refund reversed (REFUND_REVERSED, signed later) before the app posts the older refunded
    /// copy: folded in order, the refund is no longer in force, so the post gives no CANCELLATION
    /// and takes no access away.
    @Test func aPostOfARefundReversedSinceCancelsNothing() {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        shop.send(Fixture.buy)
        let reversed = Apple.notification(
            .refundReversed, uuid: "n-reversed", signed: day(8),
            transaction: signed(Apple.transaction("1000", purchase: Apple.t0), at: day(8)))
        #expect(shop.send(reversed).types == [.refundReversed])
        #expect(shop.apply(.transactionPosted(refundedPeriod, appUserId: "user"), atMs: day(9)).isEmpty)
        #expect(shop.subscription.refundedAtMs == nil)
        #expect(shop.ledger.entitlements(of: "user", atMs: day(9)).first?.isActive == true)
    }

    /// The one Family Sharing revocation slot keeps the current period's: a revoked copy of an
    /// earlier period posted after does not give the current period its access back.
    @Test func anEarlierPeriodsRevocationDoesNotReplaceTheCurrentOnes() {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        let first = Apple.transaction("1000", purchase: Apple.t0, ownership: .familyShared)
        shop.send(Apple.notification(.subscribed, .initialBuy, uuid: "n-family", signed: Apple.t0, transaction: first))
        let second = Apple.transaction("1001", purchase: day(30), ownership: .familyShared)
        shop.send(Apple.notification(.didRenew, uuid: "n-renew", signed: day(30), transaction: second))
        var revokedSecond = second
        revokedSecond.revocationDate = day(35)
        revokedSecond.revocationType = .familyRevoke
        shop.send(Apple.notification(.revoke, uuid: "n-revoke", signed: day(35), transaction: revokedSecond))
        #expect(shop.subscription.revokedAtMs == day(35))
        // The earlier period's copy, revoked too (no revocationType: a shared copy is never refunded).
        var revokedFirst = first
        revokedFirst.revocationDate = day(36)
        shop.apply(.transactionPosted(signed(revokedFirst, at: day(37)), appUserId: "user"), atMs: day(37))
        #expect(shop.subscription.revokedAtMs == day(35))
        #expect(shop.subscription.refundedAtMs == nil)
        #expect(shop.ledger.entitlements(of: "user", atMs: day(37)).first?.isActive == false)
    }
}
