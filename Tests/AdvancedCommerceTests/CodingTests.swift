import AdvancedCommerce
import Foundation
import Testing

@Suite struct CodingTests {
    private func jsonObject(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func roundTripKeepsAppleNames() throws {
        let request = try AppleExamples.decode(
            AppleExamples.modifyUpgradeWithPeriodChange, as: SubscriptionModifyInAppRequest.self)
        let data = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(SubscriptionModifyInAppRequest.self, from: data) == request)
        let object = try jsonObject(request)
        let item = try #require((object["changeItems"] as? [[String: Any]])?.first)
        #expect(Set(item.keys) == ["currentSKU", "SKU", "displayName", "description", "effective", "price", "reason"])
        #expect(object["version"] as? String == "1")
        #expect(object["operation"] as? String == "MODIFY_SUBSCRIPTION")
    }

    @Test func absentOptionalsAreOmitted() throws {
        let request = SubscriptionModifyInAppRequest(
            requestInfo: RequestInfo(requestReferenceId: "e2a88501-25ba-403a-9c46-d7b8eecc56ba"),
            transactionId: "12345", retainBillingCycle: true,
            removeItems: [SubscriptionModifyRemoveItem(sku: "LIVE_SPORTS")])
        let object = try jsonObject(request)
        #expect(
            Set(object.keys) == ["operation", "version", "requestInfo", "transactionId", "retainBillingCycle", "removeItems"])
        #expect(Set((object["requestInfo"] as? [String: Any] ?? [:]).keys) == ["requestReferenceId"])
        #expect((object["removeItems"] as? [[String: Any]])?.first?.keys.sorted() == ["SKU"])
    }

    @Test func everyRequestTypeRoundTrips() throws {
        let oneTime = try AppleExamples.decode(AppleExamples.oneTimeCharge, as: OneTimeChargeCreateRequest.self)
        #expect(try AppleExamples.decode(String(decoding: JSONEncoder().encode(oneTime), as: UTF8.self)) == oneTime)
        let create = try AppleExamples.decode(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
        #expect(try AppleExamples.decode(String(decoding: JSONEncoder().encode(create), as: UTF8.self)) == create)
        let reactivate = try AppleExamples.decode(
            AppleExamples.subscriptionReactivate, as: SubscriptionReactivateInAppRequest.self)
        #expect(
            try AppleExamples.decode(String(decoding: JSONEncoder().encode(reactivate), as: UTF8.self)) == reactivate)
        #expect(try jsonObject(oneTime.item).keys.contains("SKU"))
    }

    @Test func unknownEnumValuesAreKeptAndReported() throws {
        let json = AppleExamples.modifyDowngrade
            .replacingOccurrences(of: "\"DOWNGRADE\"", with: "\"SIDEGRADE\"")
        let request = try AppleExamples.decode(json, as: SubscriptionModifyInAppRequest.self)
        let item = try #require(request.changeItems?.first)
        #expect(item.reason == .unknown("SIDEGRADE"))
        #expect(try jsonObject(item)["reason"] as? String == "SIDEGRADE")
        #expect(
            AdvancedCommerceValidator.validate(request).map(\.name) == ["InvalidChangeReasonError"])
    }

    @Test func decodesNewerEnumValuesEverywhere() throws {
        #expect(Effective(rawValue: "LATER") == .unknown("LATER"))
        #expect(Period(rawValue: "P9M") == .unknown("P9M"))
        #expect(OfferPeriod(rawValue: "P9M") == .nineMonths)
        #expect(OfferReason(rawValue: "WIN_BACK") == .winBack)
        #expect(ChangeReason(rawValue: "APPLY_OFFER") == .applyOffer)
        #expect(InAppOperation(rawValue: "REACTIVATE_SUBSCRIPTION") == .reactivateSubscription)
    }

    /// A member given twice is refused with its path: JSONDecoder would keep one without a word.
    @Test func aMemberGivenTwiceIsAMalformedPayload() throws {
        let twice = #"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","item":{"SKU":"A"},"item":{"SKU":"B"}}"#
        #expect(throws: ValidationError.self) { try InAppRequest(json: Data(twice.utf8)) }
        do {
            _ = try InAppRequest(json: Data(twice.utf8))
        } catch {
            #expect(error.name == "MalformedPayloadError")
            #expect(error.field == "item")
        }
        let nested = #"{"operation":"REACTIVATE_SUBSCRIPTION","version":"1","items":[{"SKU":"A","SKU":"B"}]}"#
        do {
            _ = try InAppRequest(json: Data(nested.utf8))
            Issue.record("a repeated SKU was accepted")
        } catch {
            #expect(error.field == "items[0].SKU")
        }
    }

    /// A price in dollars rather than milliunits (a fraction) is said to be no whole number, not
    /// to be too large for its type.
    @Test func aFractionWhereMilliunitsGoSaysSo() throws {
        let request = #"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","item":{"SKU":"A","price":99.5}}"#
        do {
            _ = try InAppRequest(json: Data(request.utf8))
            Issue.record("a fractional price was accepted")
        } catch {
            #expect(error.field == "item.price")
            #expect(error.message.hasSuffix("This value is refused: Number is not a whole number."), "\(error)")
        }
    }

    /// A member the request has no place for is refused with its path, wherever it is: decoding
    /// would drop it and sign something else (a resubscription as a new subscription). A null
    /// one carries nothing and is let through.
    @Test func aMemberTheRequestHasNoPlaceForIsAMalformedPayload() throws {
        let create = AppleExamples.subscriptionCreate
        let cases = [
            (
                create.replacingOccurrences(of: #""taxCode":"#, with: #""previousTransactionID":"123","taxCode":"#),
                "previousTransactionID"
            ),
            (create.replacingOccurrences(of: #""offer":{"#, with: #""Offer":{"#), "items[1].Offer"),
            (
                create.replacingOccurrences(of: #""requestInfo":{"#, with: #""requestInfo":{"appAccountTokn":"x","#),
                "requestInfo.appAccountTokn"
            ),
            (create.replacingOccurrences(of: #""storefront":"USA""#, with: #""storeFront":"USA""#), "storeFront"),
        ]
        for (json, field) in cases {
            #expect(json != create, "the case \(field) changed nothing")
            do {
                _ = try InAppRequest(json: Data(json.utf8))
                Issue.record("\(field) was accepted")
            } catch {
                #expect(error.name == "MalformedPayloadError")
                #expect(error.field == field)
                #expect(error.message.contains("\(field) is not a member"), "\(error)")
            }
        }
        let oneTime = AppleExamples.oneTimeCharge.replacingOccurrences(of: #""price":4990"#, with: #""price":4990,"offer":{}"#)
        #expect(oneTime != AppleExamples.oneTimeCharge)
        #expect(throws: ValidationError.self) { try InAppRequest(json: Data(oneTime.utf8)) }
        let null = create.replacingOccurrences(of: #""taxCode":"#, with: #""note":null,"taxCode":"#)
        #expect(try InAppRequest(json: Data(null.utf8)) == InAppRequest(json: Data(create.utf8)))
    }

    /// A value of the wrong kind is reported at its member, not as JSON that does not parse.
    @Test func aWrongValueIsReportedWhereItIs() throws {
        let base =
            #"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","currency":"USD","taxCode":"C003-00-1","#
            + #""item":{"SKU":"A","displayName":"A","description":"A","price":PRICE}}"#
        for (price, field) in [("4990.5", "item.price"), ("99999999999999999999", "item.price"), ("\"10\"", "item.price")] {
            do {
                _ = try InAppRequest(json: Data(base.replacingOccurrences(of: "PRICE", with: price).utf8))
                Issue.record("price \(price) was accepted")
            } catch {
                #expect(error.name == "MalformedPayloadError")
                #expect(error.field == field, "price \(price)")
            }
        }
        do {
            _ = try InAppRequest(json: Data(#"{"operation":"REACTIVATE_SUBSCRIPTION","version":"1","items":[null]}"#.utf8))
            Issue.record("a null item was accepted")
        } catch {
            #expect(error.field == "items[0]")
            #expect(error.message.contains("an object"), "\(error)")
        }
        do {
            _ = try InAppRequest(json: Data(#"{"operation":5,"version":"1"}"#.utf8))
            Issue.record("operation 5 was accepted")
        } catch {
            #expect(error.name == "InvalidOperationError")
        }
    }
}
