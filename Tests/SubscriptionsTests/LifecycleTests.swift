import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Whole lifecycles with the exact events of issue 5 item 6, timers fed as the scheduler would.
@Suite struct LifecycleTests {
    let day = Fixture.day

    /// The app posts the upgraded transaction before Apple's UPGRADE notification arrives (a
    /// common order: the app posts at once): the PRODUCT_CHANGE still describes the old product
    /// and its period, as RevenueCat's does, and names the new product.
    @Test func anUpgradePostedBeforeItsNotificationDescribesTheOldProduct() {
        var shop = Harness()
        let monthly = Apple.transaction("1000", purchase: Apple.t0, signed: Apple.t0)
        _ = shop.send(Apple.notification(.subscribed, .initialBuy, uuid: "n1", signed: Apple.t0, transaction: monthly))
        let yearly = Apple.transaction("1001", product: Apple.yearly, purchase: day(10), expires: day(375), signed: day(10))
        _ = shop.apply(.transactionPosted(yearly, appUserId: "user"), atMs: day(10))
        let upgrade = shop.send(
            Apple.notification(
                .didChangeRenewalPref, .upgrade, uuid: "n2", signed: day(10) + 60_000, transaction: yearly,
                renewal: Apple.renewal(product: Apple.yearly)))
        let change = upgrade.first { $0.type == .productChange }
        #expect(change?.productId == Apple.monthly)
        #expect(change?.newProductId == Apple.yearly)
        #expect(change?.transactionId == "1000")
        #expect(change?.expirationAtMs == monthly.expiresDate)
        #expect(change?.renewalNumber == 1)
    }

    @Test func trialPaidUpgradeDowngradeRevertCancelExpireResubscribe() {
        var shop = Harness()
        let trial = Apple.notification(
            .subscribed, .initialBuy, uuid: "n1", signed: Apple.t0,
            transaction: Apple.transaction(
                "1000", purchase: Apple.t0, expires: day(7), offer: .introductory, discount: .freeTrial),
            renewal: Apple.renewal())
        let purchase = shop.send(trial)
        #expect(purchase.types == [.initialPurchase])
        #expect(purchase.first?.periodType == .trial)
        #expect(purchase.first?.priceInPurchasedCurrency == 0)

        let paid = shop.send(
            Apple.notification(
                .didRenew, uuid: "n2", signed: day(7), transaction: Apple.transaction("1001", purchase: day(7)),
                renewal: Apple.renewal()))
        #expect(paid.types == [.renewal])
        #expect(paid.first?.isTrialConversion == true)
        #expect(paid.first?.periodType == .normal)
        #expect(paid.first?.renewalNumber == 2)
        #expect(shop.advance(to: day(8)).isEmpty)

        let upgrade = shop.send(
            Apple.notification(
                .didChangeRenewalPref, .upgrade, uuid: "n3", signed: day(10),
                transaction: Apple.transaction("1002", product: Apple.yearly, purchase: day(10), expires: day(375)),
                renewal: Apple.renewal(product: Apple.yearly)))
        #expect(upgrade.types == [.productChange, .renewal])
        #expect(upgrade[0].productId == Apple.monthly)
        #expect(upgrade[0].newProductId == Apple.yearly)
        #expect(upgrade[1].productId == Apple.yearly)
        #expect(upgrade[1].isTrialConversion == false)
        #expect(shop.advance(to: day(40)).isEmpty)

        let downgrade = shop.send(
            Apple.notification(
                .didChangeRenewalPref, .downgrade, uuid: "n4", signed: day(50),
                transaction: Apple.transaction("1002", product: Apple.yearly, purchase: day(10), expires: day(375)),
                renewal: Apple.renewal(product: Apple.yearly, next: Apple.basic)))
        #expect(downgrade.types == [.productChange])
        #expect(downgrade.first?.productId == Apple.yearly)
        #expect(downgrade.first?.newProductId == Apple.basic)
        #expect(shop.subscription.productId == Apple.yearly)

        let revert = shop.send(
            Apple.notification(
                .didChangeRenewalPref, uuid: "n5", signed: day(60),
                transaction: Apple.transaction("1002", product: Apple.yearly, purchase: day(10), expires: day(375)),
                renewal: Apple.renewal(product: Apple.yearly)))
        #expect(revert.types == [.productChange])
        #expect(revert.first?.newProductId == Apple.yearly)
        #expect(shop.subscription.scheduledProductId == nil)

        let cancel = shop.send(
            Apple.notification(
                .didChangeRenewalStatus, .autoRenewDisabled, uuid: "n6", signed: day(70),
                transaction: Apple.transaction("1002", product: Apple.yearly, purchase: day(10), expires: day(375)),
                renewal: Apple.renewal(product: Apple.yearly, autoRenew: false)))
        #expect(cancel.types == [.cancellation])
        #expect(cancel.first?.cancelReason == .unsubscribe)
        #expect(shop.advance(to: day(374)).isEmpty)

        let expiration = shop.advance(to: day(375))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .unsubscribe)
        #expect(expiration.first?.productId == Apple.yearly)
        let lateExpired = shop.send(
            Apple.notification(
                .expired, .voluntary, uuid: "n7", signed: day(375) + 60_000,
                transaction: Apple.transaction("1002", product: Apple.yearly, purchase: day(10), expires: day(375)),
                renewal: Apple.renewal(product: Apple.yearly, autoRenew: false, intent: .customerCancelled)))
        #expect(lateExpired.isEmpty)
        #expect(shop.advance(to: day(390)).isEmpty)

        let resubscribe = shop.send(
            Apple.notification(
                .subscribed, .resubscribe, uuid: "n8", signed: day(400),
                transaction: Apple.transaction("1003", product: Apple.yearly, purchase: day(400), expires: day(765)),
                renewal: Apple.renewal(product: Apple.yearly)))
        #expect(resubscribe.types == [.renewal])
        #expect(shop.subscription.hasAccess(atMs: day(401)))
        #expect(shop.outbox.compactMap(\.sequence) == Array(1...Int64(shop.outbox.count)))
        #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count)
    }

    @Test func scheduledDowngradeTakesEffectAtRenewal() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(Fixture.downgrade).first?.newProductId == Apple.basic)
        let renewal = shop.send(
            Apple.notification(
                .didRenew, uuid: "n-renew", signed: day(30),
                transaction: Apple.transaction("1001", product: Apple.basic, purchase: day(30)),
                renewal: Apple.renewal(product: Apple.basic)))
        #expect(renewal.types == [.renewal])
        #expect(renewal.first?.productId == Apple.basic)
        #expect(shop.subscription.productId == Apple.basic)
        #expect(shop.subscription.scheduledProductId == nil)
    }

    @Test func autoRenewDisabledThenExpiredVoluntary() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(Fixture.disable).first?.cancelReason == .unsubscribe)
        #expect(shop.advance(to: day(29)).isEmpty)
        let expired = Apple.notification(
            .expired, .voluntary, uuid: "n-expired", signed: day(30), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false, intent: .customerCancelled))
        #expect(shop.send(expired).isEmpty)
        let expiration = shop.advance(to: day(30))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .unsubscribe)
        #expect(shop.advance(to: day(90)).isEmpty)
        #expect(shop.send(expired).isEmpty)
    }

    @Test func familySharingThenRevoke() {
        var shop = Harness()
        let shared = Apple.transaction("1000", purchase: Apple.t0, ownership: .familyShared)
        let purchase = shop.send(
            Apple.notification(.subscribed, .initialBuy, uuid: "n-family", signed: Apple.t0, transaction: shared))
        #expect(purchase.types == [.initialPurchase])
        #expect(purchase.first?.isFamilyShare == true)
        let revoke = Apple.notification(
            .revoke, uuid: "n-revoke", signed: day(10),
            transaction: Apple.transaction(
                "1000", purchase: Apple.t0, ownership: .familyShared, revokedAt: day(10), revocationType: .familyRevoke))
        #expect(shop.send(revoke).isEmpty)
        let expiration = shop.advance(to: day(10))
        #expect(expiration.types == [.expiration])
        #expect(expiration.first?.expirationReason == .unknown)
        // Access ended when it was revoked, not at the period's end.
        #expect(expiration.first?.expirationAtMs == day(10))
        #expect(shop.advance(to: day(31)).isEmpty)
    }
}
