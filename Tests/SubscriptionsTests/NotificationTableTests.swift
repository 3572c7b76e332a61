import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4's table, one row per notification type and subtype that moves a subscription.
@Suite struct NotificationTableTests {
    static let day = Fixture.day

    static let rows: [TableCase] = [
        TableCase("SUBSCRIBED INITIAL_BUY", setup: [], Fixture.buy, events: [.initialPurchase]) { _, after, events in
            let state = after.subscriptions[Apple.original]
            #expect(state?.productId == Apple.monthly)
            #expect(state?.periodType == .normal)
            #expect(state?.autoRenewEnabled == true)
            #expect(state?.expiresDateMs == day(30))
            #expect(events.first?.renewalNumber == 1)
            #expect(events.first?.priceInPurchasedCurrency == 9.99)
        },
        TableCase(
            "SUBSCRIBED INITIAL_BUY with a free trial", setup: [],
            Apple.notification(
                .subscribed, .initialBuy, uuid: "n-trial", signed: Apple.t0,
                transaction: Apple.transaction("1000", purchase: Apple.t0, offer: .introductory, discount: .freeTrial)),
            events: [.initialPurchase]
        ) { _, after, events in
            #expect(after.subscriptions[Apple.original]?.periodType == .trial)
            #expect(events.first?.periodType == .trial)
            #expect(events.first?.price == 0)
        },
        TableCase(
            "SUBSCRIBED RESUBSCRIBE",
            setup: [
                Fixture.buy, Fixture.disable,
                Apple.notification(.expired, .voluntary, uuid: "n-exp", signed: day(30), transaction: Fixture.p1),
            ],
            Apple.notification(
                .subscribed, .resubscribe, uuid: "n-resub", signed: day(40),
                transaction: Apple.transaction("1005", purchase: day(40)), renewal: Apple.renewal()),
            // The lapse it closes gets its EXPIRATION first, though no timer fired before it.
            events: [.expiration, .renewal]
        ) { _, after, events in
            #expect(events.first?.transactionId == "1000")
            #expect(events.first?.expirationReason == .unsubscribe)
            let state = after.subscriptions[Apple.original]
            #expect(state?.transactionId == "1005")
            #expect(state?.hasAccess(atMs: day(41)) == true)
            #expect(state?.autoRenewEnabled == true)
            #expect(state?.unsubscribeDetectedAtMs == nil)
        },
        TableCase(
            "DID_RENEW",
            Apple.notification(.didRenew, uuid: "n-renew", signed: day(30), transaction: Fixture.p2, renewal: Apple.renewal()),
            events: [.renewal]
        ) { _, after, events in
            #expect(after.subscriptions[Apple.original]?.renewalNumber == 2)
            #expect(events.first?.renewalNumber == 2)
            #expect(events.first?.isTrialConversion == false)
        },
        TableCase(
            "DID_RENEW BILLING_RECOVERY", setup: [Fixture.buy, Fixture.failWithGrace],
            Apple.notification(
                .didRenew, .billingRecovery, uuid: "n-recover", signed: day(33),
                transaction: Apple.transaction("1001", purchase: day(33)), renewal: Apple.renewal(retry: false)),
            events: [.renewal]
        ) { _, after, _ in
            let state = after.subscriptions[Apple.original]
            #expect(state?.billingIssueDetectedAtMs == nil)
            #expect(state?.isInBillingRetry == false)
            #expect(state?.accessEndsAtMs == day(63))
        },
        TableCase(
            "DID_CHANGE_RENEWAL_PREF UPGRADE", Upgrade.notification(.didChangeRenewalPref, offer: nil),
            events: [.productChange, .renewal], check: Upgrade.check),
        TableCase(
            "OFFER_REDEEMED UPGRADE", Upgrade.notification(.offerRedeemed, offer: .promotional),
            events: [.productChange, .renewal], check: Upgrade.check),
        TableCase("DID_CHANGE_RENEWAL_PREF DOWNGRADE", Fixture.downgrade, events: [.productChange]) { _, after, events in
            #expect(events.first?.productId == Apple.monthly)
            #expect(events.first?.newProductId == Apple.basic)
            #expect(after.subscriptions[Apple.original]?.productId == Apple.monthly)
            #expect(after.subscriptions[Apple.original]?.scheduledProductId == Apple.basic)
        },
        TableCase(
            "OFFER_REDEEMED DOWNGRADE",
            Apple.notification(
                .offerRedeemed, .downgrade, uuid: "n-offer", signed: day(10), transaction: Fixture.p1,
                renewal: Apple.renewal(next: Apple.basic)),
            events: [.productChange]
        ) { _, after, events in
            #expect(events.first?.newProductId == Apple.basic)
            #expect(after.subscriptions[Apple.original]?.scheduledProductId == Apple.basic)
        },
        TableCase(
            "DID_CHANGE_RENEWAL_PREF without subtype", setup: [Fixture.buy, Fixture.downgrade],
            Apple.notification(
                .didChangeRenewalPref, uuid: "n-revert", signed: day(12), transaction: Fixture.p1,
                renewal: Apple.renewal()),
            events: [.productChange]
        ) { _, after, events in
            #expect(events.first?.newProductId == Apple.monthly)
            #expect(after.subscriptions[Apple.original]?.scheduledProductId == nil)
        },
        TableCase(
            "OFFER_REDEEMED without subtype",
            Apple.notification(
                .offerRedeemed, uuid: "n-offer", signed: day(10), transaction: Fixture.p1,
                renewal: {
                    var renewal = Apple.renewal()
                    renewal.offerType = .offerCode
                    renewal.offerIdentifier = "SPRING"
                    return renewal
                }()),
            events: []
        ) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.redeemedOffer?.identifier == "SPRING")
        },
        TableCase("DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", Fixture.disable, events: [.cancellation]) {
            _, after, events in
            #expect(events.first?.cancelReason == .unsubscribe)
            #expect(after.subscriptions[Apple.original]?.autoRenewEnabled == false)
            #expect(after.subscriptions[Apple.original]?.unsubscribeDetectedAtMs == day(5))
        },
        TableCase(
            "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED", setup: [Fixture.buy, Fixture.disable],
            Apple.notification(
                .didChangeRenewalStatus, .autoRenewEnabled, uuid: "n-enable", signed: day(7), transaction: Fixture.p1,
                renewal: Apple.renewal()),
            events: [.uncancellation]
        ) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.autoRenewEnabled == true)
            #expect(after.subscriptions[Apple.original]?.unsubscribeDetectedAtMs == nil)
        },
        TableCase("DID_FAIL_TO_RENEW GRACE_PERIOD", Fixture.failWithGrace, events: [.billingIssue, .cancellation]) {
            _, after, events in
            #expect(events[0].gracePeriodExpirationAtMs == day(46))
            #expect(events[1].cancelReason == .billingError)
            let state = after.subscriptions[Apple.original]
            #expect(state?.billingIssueDetectedAtMs == day(30))
            #expect(state?.isInBillingRetry == true)
            #expect(state?.accessEndsAtMs == day(46))
        },
        TableCase("DID_FAIL_TO_RENEW", Fixture.failNoGrace, events: [.billingIssue, .cancellation]) { _, after, events in
            #expect(events[0].gracePeriodExpirationAtMs == nil)
            #expect(after.subscriptions[Apple.original]?.accessEndsAtMs == day(30))
        },
    ]

    @Test(arguments: rows)
    func row(_ row: TableCase) {
        row.verify()
    }
}

/// The immediate plan change both `DID_CHANGE_RENEWAL_PREF` and `OFFER_REDEEMED` can make.
enum Upgrade {
    static func notification(_ type: NotificationTypeV2, offer: OfferType?) -> VerifiedNotificationFacts {
        Apple.notification(
            type, .upgrade, uuid: "n-upgrade", signed: Fixture.day(10),
            transaction: Apple.transaction(
                "1001", product: Apple.yearly, purchase: Fixture.day(10), expires: Fixture.day(375), offer: offer),
            renewal: Apple.renewal(product: Apple.yearly))
    }

    static let check: @Sendable (Ledger, Ledger, [Event]) -> Void = { _, after, events in
        #expect(events[0].productId == Apple.monthly)
        #expect(events[0].newProductId == Apple.yearly)
        #expect(events[0].expirationAtMs == Fixture.day(30))
        #expect(events[1].productId == Apple.yearly)
        #expect(after.subscriptions[Apple.original]?.productId == Apple.yearly)
        #expect(after.subscriptions[Apple.original]?.scheduledProductId == nil)
    }
}
