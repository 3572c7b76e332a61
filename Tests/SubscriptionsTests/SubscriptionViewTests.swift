import AppStore
import Foundation
import JSON
import SubscriptionsFixtures
import Testing
import Threads

@testable import Subscriptions

/// `subscriptions` as RevenueCat keeps it: every product ever bought, each with its own latest
/// period and price; and a subscription that tells the truth after a refund or a revoke.
@Suite struct SubscriptionViewTests {
    let day = Fixture.day

    func render(_ shop: Harness, atMs: Int64) -> JSONValue {
        SubscriberInfo.json(for: "user", in: shop.ledger, at: Date(milliseconds: atMs))
    }

    @Test func basicThenProThenBackToBasicKeepsBothProductsWithTheirPrices() {
        var shop = Harness(
            ledger: Ledger(
                configuration: LedgerConfiguration(entitlements: ["pro": ["pro.monthly"], "basic": ["basic.monthly"]])))
        shop.send(
            Apple.notification(
                .subscribed, .initialBuy, uuid: "n1", signed: Apple.t0,
                transaction: Apple.transaction(Apple.original, product: Apple.basic, purchase: Apple.t0, price: 4990),
                renewal: Apple.renewal(product: Apple.basic)))
        shop.send(
            Apple.notification(
                .didChangeRenewalPref, .upgrade, uuid: "n2", signed: day(10),
                transaction: Apple.transaction("1001", product: Apple.monthly, purchase: day(10), price: 9990),
                renewal: Apple.renewal(product: Apple.monthly)))
        shop.send(
            Apple.notification(
                .didChangeRenewalPref, .downgrade, uuid: "n3", signed: day(20),
                transaction: Apple.transaction("1001", product: Apple.monthly, purchase: day(10), price: 9990),
                renewal: Apple.renewal(product: Apple.monthly, next: Apple.basic)))
        shop.send(
            Apple.notification(
                .didRenew, uuid: "n4", signed: day(40),
                transaction: Apple.transaction("1002", product: Apple.basic, purchase: day(40), price: 4990),
                renewal: Apple.renewal(product: Apple.basic)))
        let subscriptions = render(shop, atMs: day(41))["subscriber"]?["subscriptions"]
        #expect(subscriptions?.objectValue?.keys.sorted() == [Apple.basic, Apple.monthly])
        #expect(subscriptions?[Apple.basic]?["store_transaction_id"] == .string("1002"))
        #expect(subscriptions?[Apple.basic]?["price"] == .object(["amount": .number(4.99), "currency": .string("USD")]))
        #expect(subscriptions?[Apple.monthly]?["store_transaction_id"] == .string("1001"))
        #expect(subscriptions?[Apple.monthly]?["price"] == .object(["amount": .number(9.99), "currency": .string("USD")]))
        #expect(subscriptions?[Apple.monthly]?["expires_date"] == .string(ISO8601UTC.string(fromMilliseconds: day(40))))
    }

    @Test func aRefundedPeriodEndsAtItsRefund() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let refunded = Apple.notification(
            .refund, uuid: "n-refund", signed: day(5),
            transaction: Apple.transaction(Apple.original, purchase: Apple.t0, revokedAt: day(5)))
        shop.send(refunded)
        let monthly = render(shop, atMs: day(6))["subscriber"]?["subscriptions"]?[Apple.monthly]
        #expect(monthly?["refunded_at"] == .string(ISO8601UTC.string(fromMilliseconds: day(5))))
        #expect(monthly?["expires_date"] == .string(ISO8601UTC.string(fromMilliseconds: day(5))))
    }
}
