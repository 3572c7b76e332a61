import AppStore
import Foundation
import JSON
import Testing

@testable import Subscriptions

/// The state types write their own JSON (`SortedJSONWritable`); it must be what `Codable` gives
/// through `JSONEncoder` with sorted keys, with every field set and with each one left out.
@Suite struct SortedJSONStateTests {
    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Property names whose value is nil or an empty collection.
    static func unset(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let text = "\(child.value)"
            return text == "nil" || text == "[]" || text == "[:]" ? child.label : nil
        }
    }

    /// Compares both encoders on `full` and on `full` with each member removed (where it decodes).
    static func check<T: Codable>(_ full: T) throws {
        let members = try #require(try JSONValue(parsing: Data(Self.foundation(full).utf8)).objectValue)
        var values = [full]
        for key in members.keys {
            var without = members
            without[key] = nil
            if let value = try? JSONDecoder().decode(T.self, from: Data(JSONValue.object(without).serialized().utf8)) {
                values.append(value)
            }
        }
        for value in values {
            #expect(try JSONValueEncoder().encode(value) == Self.foundation(value))
            try expectSameDecoding(T.self, JSONValue(parsing: Data(Self.foundation(value).utf8)))
        }
        for key in members.keys {
            for wrong in [JSONValue.null, .bool(true), .string("x"), .integer(1 << 40), .array([]), .object([:])] {
                var changed = members
                changed[key] = wrong
                try expectSameDecoding(T.self, .object(changed))
            }
        }
    }

    /// `JSONValueDecoder` (through `JSONValueReadable` where a type has it) and `JSONDecoder`
    /// agree: both fail, or both give the same value.
    static func expectSameDecoding<T: Codable>(_ type: T.Type, _ json: JSONValue) throws {
        let data = Data(json.serialized().utf8)
        let ours = Result { try JSONValueDecoder().decode(T.self, from: data) }
        let foundation = Result { try JSONDecoder().decode(T.self, from: data) }
        switch (ours, foundation) {
        case (.success(let mine), .success(let theirs)):
            #expect(try Self.foundation(mine) == Self.foundation(theirs), "\(json.serialized())")
        case (.failure, .failure): break
        default: Issue.record("decoders disagree on \(json.serialized()): ours \(ours), JSONDecoder \(foundation)")
        }
    }

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
        return state
    }

    @Test func journalsAndFactsMatchCodable() throws {
        #expect(Self.unset(Self.journal).isEmpty)
        #expect(Self.unset(Self.journal.facts[0]).isEmpty)
        try Self.check(Self.journal)
        try Self.check(PurchaseJournal())
        for fact in Self.journal.facts { try Self.check(fact) }
    }

    @Test func subscriptionStatesMatchCodable() throws {
        #expect(Self.unset(Self.state).isEmpty)
        try Self.check(Self.state)
        try Self.check(Self.state.withoutHistory)
        try Self.check(SubscriptionState(originalTransactionId: "bare"))
        #expect(Self.unset(Self.earlier).isEmpty)
        try Self.check(Self.earlier)
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
        try Self.expectSameDecoding(PurchaseFact.self, try JSONValue(parsing: Data(json.utf8)))
    }

    @Test func timersMatchCodable() throws {
        let timer = ExpirationTimer(originalTransactionId: "1000", fireAtMs: -42)
        #expect(Self.unset(timer).isEmpty)
        try Self.check(timer)
        try Self.check(ExpirationTimer(originalTransactionId: "a\"b\\c\u{1}é", fireAtMs: .max))
    }

    @Test func eventsDecodeAsCodableDoes() throws {
        try Self.check(EventJSONTests.full)
        try Self.check(Event(type: .test, id: "t"))
    }

    @Test func purchaseViewsMatchCodable() throws {
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
                priceMilliunits: 4990, currency: "EUR", refundedAtMs: 7),
            EarlierProduct(productId: "a\"é", transactionId: nil, purchaseDateMs: nil, expiresDateMs: nil, periodType: .normal),
        ]
        #expect(Self.unset(view).isEmpty)
        try Self.check(view)
        var purchase = OneTimePurchase(transactionId: "9")
        purchase.transaction = Apple.transaction("9", purchase: 0)
        let oneTime = try #require(purchase.view)
        try Self.check(oneTime)
    }
}
