import AppStore
import Foundation
import JSON
import Storage
import Subscriptions
import SubscriptionsFixtures
import Testing

/// The store writes and reads its state documents member by member (`SortedJSONWritable`,
/// `JSONValueReadable`, `init(stored:)`); each must be what `Codable` gives through
/// `JSONEncoder` with sorted keys, with every field set and with each one left out.
@Suite struct StoredDocumentTests {
    static var journal: PurchaseJournal {
        var journal = PurchaseJournal(ownerAppUserId: "user é")
        journal.facts = [
            PurchaseFact(
                id: "n1", source: .notification(type: .didChangeRenewalStatus, subtype: .autoRenewDisabled), signedDateMs: 5,
                transaction: Apple.transaction("1", purchase: 0), renewalInfo: Apple.renewal()),
            PurchaseFact(
                id: "n2", source: .notification(type: NotificationTypeV2(rawValue: "FUTURE"), subtype: nil), signedDateMs: 6,
                transaction: nil, renewalInfo: nil),
            PurchaseFact(posted: Apple.transaction("2", purchase: 1)),
        ]
        journal.emittedEventIds = ["a", "b"]
        var event = Event(type: .renewal, id: "e", eventTimestampMs: 7)
        event.price = Decimal(string: "4.99")
        journal.heldEvents = [event, Event(type: .cancellation, id: "f")]
        journal.storedHeldEventCount = 3
        journal.transferCount = 2
        journal.presentedOfferingId = "spring"
        return journal
    }

    /// A summarized period with every field set.
    static var earlier: EarlierPeriod {
        EarlierPeriod(Apple.transaction("0", purchase: -1, offer: .introductory, signed: -1))
    }

    static var state: SubscriptionState {
        var state = SubscriptionState(originalTransactionId: Apple.original, journal: journal)
        state.transactions = ["1": Apple.transaction("1", purchase: 0), "2": Apple.transaction("2", purchase: 1)]
        state.earlierPeriods = ["0": earlier, "é": EarlierPeriod(Apple.transaction("é", purchase: -2, discount: .freeTrial))]
        state.renewalInfo = Apple.renewal(
            priceIncrease: .customerConsentedOrWasNotifiedWithoutNeedingConsent, intent: .billingError)
        state.autoRenewEnabled = false
        state.autoRenewProductId = "pro.yearly"
        state.unsubscribeDetectedAtMs = 10
        state.billingIssue = .init(
            transactionId: "2", detectedAtMs: 11, isInBillingRetry: true, gracePeriodExpiresDateMs: 12, gracePeriodEndedAtMs: 13)
        state.expiredNotice = .init(
            transactionId: "2", subtype: .voluntary, expirationIntent: .customerCancelled, signedDateMs: 14)
        state.priceIncrease = .init(transactionId: "2", status: .customerConsentedOrWasNotifiedWithoutNeedingConsent)
        state.refunds = [
            "1": Revocation(transactionId: "1", atMs: 15, reason: .refundedDueToIssue, type: .refundProrated, percentage: 5)
        ]
        state.revocation = Revocation(transactionId: "2", atMs: 16)
        state.accessRestorations = ["é": "1", "e": "2", "Z": "3"]
        state.redeemedOffer = .init(type: .promotional, identifier: "spring", discountType: .payUpFront, period: "P1M")
        state.newestSignedDateMs = 17
        state.endedGracePeriods = ["pro.monthly": 9, "": 8]
        return state
    }

    @Test func journalsAndFactsMatchCodable() throws {
        #expect(CodableParity.unset(Self.journal).isEmpty)
        #expect(CodableParity.unset(Self.journal.facts[0]).isEmpty)
        try CodableParity.check(Self.journal)
        try CodableParity.check(PurchaseJournal())
        for fact in Self.journal.facts { try CodableParity.check(fact) }
    }

    @Test func subscriptionStatesMatchCodable() throws {
        #expect(CodableParity.unset(Self.state).isEmpty)
        try CodableParity.check(Self.state)
        try CodableParity.check(Self.state.withoutHistory)
        try CodableParity.check(SubscriptionState(originalTransactionId: "bare"))
        #expect(CodableParity.unset(Self.earlier).isEmpty)
        try CodableParity.check(Self.earlier)
    }

    /// Synthesized enum decoding ignores members that name no case.
    @Test(arguments: [
        #"{"id":"n","signedDateMs":1,"source":{"notification":{"type":"DID_RENEW"},"note":1}}"#,
        #"{"id":"n","signedDateMs":1,"source":{"transactionPosted":{},"note":1}}"#,
        #"{"id":"n","signedDateMs":1,"source":{"note":{}}}"#,
        #"{"id":"n","signedDateMs":1,"source":{"notification":{"type":"DID_RENEW"},"transactionPosted":{}}}"#,
        #"{"id":"n","signedDateMs":1,"source":{"transactionPosted":1}}"#,
        #"{"id":"n","signedDateMs":1,"source":[]}"#,
    ])
    func factSourcesDecodeAsCodableDoes(json: String) throws {
        try CodableParity.expectSameDecoding(PurchaseFact.self, try JSONValue(parsing: Data(json.utf8)))
    }

    @Test func timersMatchCodable() throws {
        let timer = ExpirationTimer(originalTransactionId: "1000", fireAtMs: -42)
        #expect(CodableParity.unset(timer).isEmpty)
        try CodableParity.check(timer)
        try CodableParity.check(ExpirationTimer(originalTransactionId: "a\"b\\c\u{1}é", fireAtMs: .max))
    }

    /// A subscription's view with every field set.
    static var fullView: PurchaseView {
        var view = Self.state.view
        view.advancedCommerce = .object(["b": .integer(1), "a": .array([.string("x"), .null])])
        view.refundedAtMs = 18
        view.unsubscribeDetectedAtMs = 19
        view.billingIssueDetectedAtMs = 20
        view.gracePeriodAccessEndsAtMs = 21
        view.accessEndsAtMs = 22
        view.store = "promotional"
        view.earlierProducts = [
            EarlierProduct(
                productId: "b", transactionId: "7", purchaseDateMs: 5, expiresDateMs: 6, periodType: .trial,
                priceMilliunits: 4990, currency: "EUR", refundedAtMs: 7, gracePeriodEndedMs: 4),
            EarlierProduct(productId: "a\"é", transactionId: nil, purchaseDateMs: nil, expiresDateMs: nil, periodType: .normal),
        ]
        return view
    }

    @Test func purchaseViewsMatchCodable() throws {
        let view = Self.fullView
        #expect(CodableParity.unset(view).isEmpty)
        try CodableParity.check(view)
        var purchase = OneTimePurchase(transactionId: "9")
        purchase.transaction = Apple.transaction("9", purchase: 0)
        let oneTime = try #require(purchase.view)
        try CodableParity.check(oneTime)
    }

    /// A customer with every identity field set: merged, attributes, app transaction, grants.
    static var customer: CustomerState {
        var customer = CustomerState(appUserId: "user é", firstSeenMs: Apple.t0)
        customer.aliases = ["$RCAnonymousID:x", "user é"]
        customer.originalAppUserId = "$RCAnonymousID:x"
        customer.originalTransactionIds = [Apple.original, "2000"]
        customer.oneTimeTransactionIds = ["7000"]
        customer.lastSequence = 42
        customer.originalApplicationVersion = "1.0"
        customer.originalPurchaseDateMs = Apple.t0
        customer.madeByTracking = true
        customer.offeringOverride = "sale"
        var revoked = PromotionalGrant(id: "g2", entitlementId: "pro", productId: "rc_promo_pro_monthly", startMs: 3, endMs: 9)
        revoked.revokedAtMs = 4
        revoked.expired = true
        customer.promotionalGrants = [
            PromotionalGrant(id: "g", entitlementId: "pro", productId: "rc_promo_pro_daily", startMs: 1, endMs: 2), revoked,
        ]
        customer.attributes = [
            "$email": SubscriberAttribute(value: "u@example.com", updatedAtMs: 3),
            "$displayName": SubscriberAttribute(value: nil, updatedAtMs: 4),
        ]
        return customer
    }

    /// The store's readers of stored views and customers (`init(stored:)`, which `GET
    /// /v1/subscribers` uses) agree with `Codable` on every field, and refuse what `Codable`
    /// did not write.
    @Test func storedViewsAndCustomersReadAsCodableDoes() throws {
        #expect(CodableParity.unset(Self.customer).isEmpty)
        for customer in [Self.customer, CustomerState(appUserId: "bare", firstSeenMs: Apple.t0 + 1)] {
            let json = try JSONValue(parsing: Data(try JSONValueEncoder().encode(customer).utf8))
            #expect(try CustomerState(stored: json) == customer)
        }
        let t = Apple.t0
        let dated = PurchaseView(
            kind: .subscription, id: Apple.original, productId: Apple.yearly, environment: .production,
            ownershipType: .familyShared, transactionId: "1002", purchaseDateMs: t + 2, originalPurchaseDateMs: t,
            expiresDateMs: t + 3, accessEndsAtMs: t + 4, gracePeriodAccessEndsAtMs: t + 5, periodType: .intro,
            unsubscribeDetectedAtMs: t + 6, billingIssueDetectedAtMs: t + 7, refundedAtMs: t + 8, priceMilliunits: 49_990,
            currency: "EUR", advancedCommerce: .object(["b": .integer(1), "a": .array([.string("x"), .null])]),
            earlierProducts: [
                EarlierProduct(
                    productId: "b", transactionId: "7", purchaseDateMs: t - 2, expiresDateMs: t - 1, periodType: .trial,
                    priceMilliunits: 4990, currency: "EUR", refundedAtMs: t - 1, gracePeriodEndedMs: t - 3),
                EarlierProduct(
                    productId: "a\"é", transactionId: nil, purchaseDateMs: nil, expiresDateMs: nil, periodType: .normal),
            ], store: "promotional", lastGracePeriodAccessEndsAtMs: t + 9)
        #expect(CodableParity.unset(dated).isEmpty)
        var views = [dated, SubscriptionState(originalTransactionId: "bare").view] + dated.withEarlierProducts
        var purchase = OneTimePurchase(transactionId: "9")
        purchase.transaction = Apple.transaction("9", purchase: t, type: .nonConsumable)
        views.append(try #require(purchase.view))
        for view in views {
            let stored = try JSONValue(parsing: Data(try JSONValueEncoder().encode(view).utf8))
            #expect(try PurchaseView(stored: stored) == view)
            #expect(try JSONValueDecoder().decode(PurchaseView.self, from: Data(stored.serialized().utf8)) == view)
        }
        #expect(throws: StoredViewError.self) { try PurchaseView(stored: .object(["kind": .string("subscription")])) }
        #expect(throws: StoredViewError.self) {
            try PurchaseView(
                stored: .object(["kind": .string("subscription"), "id": .string("1"), "expiresDateMs": .string("soon")]))
        }
        #expect(throws: StoredViewError.self) {
            try CustomerState(stored: .object(["appUserId": .string("u"), "firstSeenMs": .integer(1)]))
        }
    }
}
