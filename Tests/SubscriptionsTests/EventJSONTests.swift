import AppStore
import Foundation
import JSON
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// `Event` writes its own JSON (`SortedJSONWritable`); it must be what `Codable` gives, through
/// `JSONEncoder` with sorted keys, with every field set and with each one left out.
@Suite struct EventJSONTests {
    static var full: Event {
        var event = Event(type: .productChange, id: "9f1c", eventTimestampMs: 1_700_000_000_123)
        event.appId = "app"
        event.appUserId = "user \"one\" é"
        event.originalAppUserId = "user-0"
        event.aliases = ["a", "b\n"]
        event.productId = "pro.monthly"
        event.newProductId = "pro.yearly"
        event.entitlementIds = []
        event.periodType = .trial
        event.purchasedAtMs = 1
        event.expirationAtMs = -2
        event.gracePeriodExpirationAtMs = 3
        event.store = "APP_STORE"
        event.environment = .sandbox
        event.transactionId = "t"
        event.originalTransactionId = "o"
        event.isFamilyShare = true
        event.isTrialConversion = false
        event.cancelReason = .billingError
        event.expirationReason = .unsubscribe
        event.currency = "EUR"
        event.priceInPurchasedCurrency = Decimal(string: "-1.234")
        event.price = Decimal(string: "9.99")
        event.offerCode = "SPRING"
        event.presentedOfferingId = "default"
        event.countryCode = "FR"
        event.renewalNumber = 12
        event.transferredFrom = ["x"]
        event.transferredTo = ["y", "z"]
        event.sequence = 42
        event.taxPercentage = Decimal(string: "0.1597")
        event.commissionPercentage = Decimal(string: "0.2521")
        event.takehomePercentage = Decimal(string: "0.7")
        event.subscriberAttributes = [
            "$email": SubscriberAttribute(value: "a@example.com", updatedAtMs: 7),
            "é\"": SubscriberAttribute(value: "v\n", updatedAtMs: 8), "Z": SubscriberAttribute(value: "z", updatedAtMs: 9),
        ]
        return event
    }

    @Test func everyFieldIsSetInTheFixture() throws {
        let members = try #require(try JSONValue(parsing: Data(CodableParity.foundation(Self.full).utf8)).objectValue)
        #expect(Set(members.keys) == Set(Event.CodingKeys.allCases.map(\.stringValue)))
    }

    @Test func matchesCodableWithAndWithoutEachField() throws {
        let members = try #require(try JSONValue(parsing: Data(CodableParity.foundation(Self.full).utf8)).objectValue)
        var events = [Self.full]
        for key in members.keys {
            var without = members
            without[key] = nil
            // Required fields cannot be left out.
            if let event = try? JSONDecoder().decode(Event.self, from: Data(JSONValue.object(without).serialized().utf8)) {
                events.append(event)
            }
        }
        #expect(events.count == members.count + 1 - 4)  // type, id, event_timestamp_ms and store are required
        for event in events {
            #expect(try JSONValueEncoder().encode(event) == CodableParity.foundation(event))
            #expect(
                try JSONValueEncoder().encode([event, event])
                    == "[\(CodableParity.foundation(event)),\(CodableParity.foundation(event))]")
        }
    }

    /// The hand-written reader and writer agree with `Codable`.
    @Test func eventsDecodeAsCodableDoes() throws {
        try CodableParity.check(Self.full)
        try CodableParity.check(Event(type: .test, id: "t"))
    }
}
