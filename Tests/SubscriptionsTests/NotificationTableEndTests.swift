import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4's table, continued: expiry, price increases, refunds, revocation, extensions.
@Suite struct NotificationTableEndTests {
    static let day = Fixture.day

    static func expired(_ subtype: Subtype?, intent: ExpirationIntent? = nil, signed: Int64 = day(30))
        -> VerifiedNotificationFacts
    {
        Apple.notification(
            .expired, subtype, uuid: "n-expired", signed: signed, transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false, intent: intent))
    }

    static func reason(_ expected: LapseReason) -> @Sendable (Ledger, Ledger, [Event]) -> Void {
        { _, after, _ in
            let state = after.subscriptions[Apple.original]
            #expect(state?.expirationReason == expected)
            #expect(state?.hasAccess(atMs: day(30)) == false)
        }
    }

    static let rows: [TableCase] = [
        TableCase(
            "GRACE_PERIOD_EXPIRED", setup: [Fixture.buy, Fixture.failWithGrace],
            Apple.notification(
                .gracePeriodExpired, uuid: "n-grace-over", signed: day(46), transaction: Fixture.p1,
                renewal: Apple.renewal(retry: true)),
            events: []
        ) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.isInBillingRetry == true)
            #expect(after.subscriptions[Apple.original]?.accessEndsAtMs == day(46))
        },
        // The grace notice missed: GRACE_PERIOD_EXPIRED reports the issue, under the ids it has.
        TableCase(
            "GRACE_PERIOD_EXPIRED alone",
            Apple.notification(
                .gracePeriodExpired, uuid: "n-grace-over", signed: day(46), transaction: Fixture.p1,
                renewal: Apple.renewal(retry: true, grace: day(46))),
            events: [.billingIssue, .cancellation]
        ) { _, after, events in
            #expect(events.first?.gracePeriodExpirationAtMs == day(46))
            #expect(events.last?.cancelReason == .billingError)
            #expect(after.subscriptions[Apple.original]?.accessEndsAtMs == day(46))
        },
        TableCase(
            "EXPIRED VOLUNTARY", setup: [Fixture.buy, Fixture.failWithGrace],
            expired(.voluntary, intent: .customerCancelled, signed: day(31)),
            events: []
        ) { before, after, events in
            reason(.unsubscribe)(before, after, events)
            #expect(after.subscriptions[Apple.original]?.autoRenewEnabled == false)
            #expect(after.subscriptions[Apple.original]?.billingIssue == nil)
        },
        TableCase(
            "EXPIRED BILLING_RETRY", setup: [Fixture.buy, Fixture.failNoGrace], expired(.billingRetry, signed: day(90)),
            events: []
        ) { before, after, events in
            reason(.billingError)(before, after, events)
            #expect(after.subscriptions[Apple.original]?.isInBillingRetry == false)
            #expect(after.subscriptions[Apple.original]?.billingIssueDetectedAtMs == day(30))
        },
        // The billing notice missed: the EXPIRED reports the issue, under the ids it has.
        TableCase(
            "EXPIRED BILLING_RETRY alone", expired(.billingRetry, signed: day(90)), events: [.billingIssue, .cancellation]
        ) { before, after, events in
            reason(.billingError)(before, after, events)
            #expect(events.last?.cancelReason == .billingError)
        },
        // Apple ends a subscription set to renew: RevenueCat reports it cancelled, then expired.
        TableCase(
            "EXPIRED PRICE_INCREASE", setup: [Fixture.buy, Fixture.pricePending], expired(.priceIncrease),
            events: [.cancellation]
        ) { before, after, events in
            reason(.priceIncrease)(before, after, events)
            #expect(events.first?.cancelReason == .priceIncrease)
        },
        TableCase(
            "EXPIRED PRODUCT_NOT_FOR_SALE", expired(.productNotForSale, intent: .productNotAvailable),
            events: [.cancellation]
        ) { before, after, events in
            reason(.unknown)(before, after, events)
            #expect(events.first?.cancelReason == .unknown)
            #expect(events.first?.expirationAtMs == Fixture.p1.expiresDate)
        },
        // Refunded first: access ended at the refund, as the refund's EXPIRATION said.
        TableCase(
            "EXPIRED PRODUCT_NOT_FOR_SALE after a refund", setup: [Fixture.buy, Fixture.refund],
            expired(.productNotForSale, intent: .productNotAvailable), events: [.cancellation]
        ) { _, _, events in
            #expect(events.first?.cancelReason == .unknown)
            #expect(events.first?.expirationAtMs == day(10))
        },
        TableCase("EXPIRED without subtype", expired(nil, intent: .billingError), events: [], check: reason(.billingError)),
        TableCase("PRICE_INCREASE PENDING", Fixture.pricePending, events: []) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.priceIncreaseStatus == .customerHasNotResponded)
            #expect(after.subscriptions[Apple.original]?.expirationReason == .priceIncrease)
        },
        TableCase(
            "PRICE_INCREASE ACCEPTED", setup: [Fixture.buy, Fixture.pricePending],
            Apple.notification(
                .priceIncrease, .accepted, uuid: "n-accept", signed: day(21), transaction: Fixture.p1,
                renewal: Apple.renewal(priceIncrease: .customerConsentedOrWasNotifiedWithoutNeedingConsent)),
            events: []
        ) { _, after, _ in
            let status = after.subscriptions[Apple.original]?.priceIncreaseStatus
            #expect(status == .customerConsentedOrWasNotifiedWithoutNeedingConsent)
        },
        TableCase("REFUND", Fixture.refund, events: [.cancellation]) { _, after, events in
            #expect(events.first?.cancelReason == .customerSupport)
            #expect(events.first?.priceInPurchasedCurrency == -9.99)
            #expect(events.first?.price == -9.99)
            #expect(after.subscriptions[Apple.original]?.refundedAtMs == day(10))
            #expect(after.subscriptions[Apple.original]?.accessEndsAtMs == day(10))
        },
        TableCase(
            "REFUND_REVERSED", setup: [Fixture.buy, Fixture.refund],
            Apple.notification(.refundReversed, uuid: "n-reversed", signed: day(12), transaction: Fixture.p1),
            events: [.refundReversed]
        ) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.refundedAtMs == nil)
            #expect(after.subscriptions[Apple.original]?.hasAccess(atMs: day(12)) == true)
        },
        TableCase(
            "REVOKE",
            setup: [
                Apple.notification(
                    .subscribed, .initialBuy, uuid: "n-family", signed: Apple.t0,
                    transaction: Apple.transaction("1000", purchase: Apple.t0, ownership: .familyShared))
            ],
            Apple.notification(
                .revoke, uuid: "n-revoke", signed: day(10),
                transaction: Apple.transaction(
                    "1000", purchase: Apple.t0, ownership: .familyShared, revokedAt: day(10),
                    revocationType: .familyRevoke)),
            events: []
        ) { _, after, _ in
            #expect(after.subscriptions[Apple.original]?.revokedAtMs == day(10))
            #expect(after.subscriptions[Apple.original]?.accessEndsAtMs == day(10))
        },
        TableCase(
            "RENEWAL_EXTENDED",
            Apple.notification(
                .renewalExtended, uuid: "n-extend", signed: day(20),
                transaction: Apple.transaction("1000", purchase: Apple.t0, expires: day(37))),
            events: [.subscriptionExtended]
        ) { _, after, events in
            #expect(events.first?.expirationAtMs == day(37))
            #expect(after.subscriptions[Apple.original]?.expiresDateMs == day(37))
        },
    ]

    @Test(arguments: rows)
    func row(_ row: TableCase) {
        row.verify()
    }
}
