import Foundation
import JSON
import Testing

@testable import AppStore

@Suite("JSONValueEncoder")
struct JSONValueEncoderTests {
    struct Mixed: Codable, Equatable {
        var text: String
        var small: UInt8
        var unsigned: UInt32
        var big: UInt64
        var signed: Int16
        var ratio: Float
        var double: Double
        var flag: Bool
        var missing: String?
        var list: [Int]
        var nested: [String: [String]]
        var deep: [Mixed]
    }

    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func matchesJSONEncoderWithSortedKeys() throws {
        let inner = Mixed(
            text: "é \"q\" /", small: 7, unsigned: 4_000_000_000, big: 18_000_000_000_000_000_000, signed: -3, ratio: 0.5,
            double: 9.99, flag: true, missing: nil, list: [3, 1, 2], nested: ["b": ["x"], "a": []], deep: [])
        var outer = inner
        outer.deep = [inner, inner]
        let ours = try JSONValueEncoder().encode(outer)
        #expect(try JSONDecoder().decode(Mixed.self, from: Data(ours.utf8)) == outer)
        #expect(!ours.contains("missing"))
    }

    struct Priced: Codable, Equatable {
        var price: Decimal
        var refund: Decimal?
        var whole: Decimal
    }

    /// `Decimal` is a number in JSON (as `JSONEncoder` writes it), not its keyed internal layout,
    /// and it comes back exactly, without binary rounding noise.
    @Test func encodesDecimalsAsNumbers() throws {
        let value = Priced(price: Decimal(string: "9.99")!, refund: Decimal(string: "-1.234")!, whole: 100)
        let text = try JSONValueEncoder().encode(value)
        #expect(text == #"{"price":9.99,"refund":-1.234,"whole":100}"#)
        #expect(text == (try Self.foundation(value)))
        #expect(try JSONValueDecoder().decode(Priced.self, from: Data(text.utf8)) == value)
        #expect(try JSONDecoder().decode(Priced.self, from: Data(text.utf8)) == value)
    }

    /// Fractions skip their text (`Scalars.fraction`); the double must be the one the text gives,
    /// for prices and for awkward significands, exponents and signs alike, and whatever is not a
    /// fraction within its bounds must take the text path.
    @Test func writesFractionsAsTheirTextWould() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Decimal] = ["9.99", "-1.234", "0.5", "0.001", "10.00", "-0.10", "1e-22", "123456789.123456789"]
            .map { Decimal(string: $0)! }
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            let significand = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            let exponent = Int.random(in: -26...4, using: &generator)
            let sign = Bool.random(using: &generator) ? "-" : ""
            samples.append(Decimal(string: "\(sign)\(significand)e\(exponent)")!)
        }
        var fractions = 0
        for value in samples {
            let text = Scalars.decimalByText(value)
            #expect(Scalars.decimal(value) == text, "\(value)")
            guard let fraction = Scalars.fraction(value) else { continue }
            fractions += 1
            #expect(JSONValue.number(fraction) == text, "\(value)")
            #expect(fraction == Double(value.description), "\(value)")
        }
        #expect(fractions > 5_000)
        #expect(Scalars.fraction(Decimal(string: "12.50")!) == 12.5)
        #expect(Scalars.fraction(Decimal(string: "12.00")!) == nil)
        #expect(Scalars.fraction(Decimal(7)) == nil)
        #expect(Scalars.fraction(Decimal.nan) == nil)
    }

    @Test func encodesAppleModelsExactlyAsJSONEncoderDoes() throws {
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(Fixture.transaction.utf8))
        #expect(try JSONValueEncoder().encode(transaction) == Self.foundation(transaction))
        let renewal = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: Data(Fixture.renewalInfo.utf8))
        #expect(try JSONValueEncoder().encode(renewal) == Self.foundation(renewal))
    }
}

/// Apple's transaction and renewal info write themselves (`writeSortedJSON`); every field, left
/// out or not, must come out as `Codable` through `JSONEncoder` writes it.
@Suite("JSONValueEncoder fast paths for Apple models")
struct SortedJSONModelTests {
    /// Each fixture sets every field, so each member's writing is compared.
    static func fields<T>(_ value: T) -> [String: Bool] {
        var set: [String: Bool] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            set[label] = "\(child.value)" != "nil"
        }
        return set
    }

    /// `JSONValueDecoder` (through `JSONValueReadable`) and `JSONDecoder` agree: both fail, or both
    /// give the same value.
    static func expectSameDecoding<T: Codable & Equatable>(_ type: T.Type, _ json: JSONValue) throws {
        let data = Data(json.serialized().utf8)
        let ours = Result { try JSONValueDecoder().decode(T.self, from: data) }
        let foundation = Result { try JSONDecoder().decode(T.self, from: data) }
        switch (ours, foundation) {
        case (.success(let mine), .success(let theirs)): #expect(mine == theirs, "\(json.serialized())")
        case (.failure, .failure): break
        default: Issue.record("decoders disagree on \(json.serialized()): ours \(ours), JSONDecoder \(foundation)")
        }
    }

    static func check<T: Codable & Equatable>(_ type: T.Type, fixture: String) throws {
        let object = try #require(try JSONValue(parsing: Data(fixture.utf8)).objectValue)
        var variants: [JSONValue] = [.object(object)]
        for key in object.keys {
            var without = object
            without[key] = nil
            variants.append(.object(without))
        }
        for key in object.keys {
            for wrong in [JSONValue.null, .bool(true), .string("x"), .integer(1 << 40), .number(1.5), .array([]), .object([:])] {
                var changed = object
                changed[key] = wrong
                try Self.expectSameDecoding(T.self, .object(changed))
            }
        }
        for variant in variants {
            try Self.expectSameDecoding(T.self, variant)
            let value = try JSONDecoder().decode(T.self, from: Data(variant.serialized().utf8))
            #expect(try JSONValueEncoder().encode(value) == JSONValueEncoderTests.foundation(value))
            #expect(
                try JSONValueEncoder().encodeValue(value)
                    == JSONValue(parsing: Data(JSONValueEncoderTests.foundation(value).utf8)))
        }
    }

    @Test func transactionMatchesCodableWithAndWithoutEachField() throws {
        let full = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(Fixture.transaction.utf8))
        #expect(Self.fields(full).values.allSatisfy { $0 }, "the fixture leaves a field out: \(Self.fields(full))")
        try Self.check(JWSTransactionDecodedPayload.self, fixture: Fixture.transaction)
    }

    @Test func renewalInfoMatchesCodableWithAndWithoutEachField() throws {
        let full = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: Data(Fixture.renewalInfo.utf8))
        #expect(Self.fields(full).values.allSatisfy { $0 }, "the fixture leaves a field out: \(Self.fields(full))")
        try Self.check(JWSRenewalInfoDecodedPayload.self, fixture: Fixture.renewalInfo)
    }

    /// A notification with every member set: the fixture's, and each kind of payload besides `data`.
    static func fullNotification() throws -> JSONValue {
        func object(_ fixture: String) throws -> [String: JSONValue] {
            try #require(try JSONValue(parsing: Data(fixture.utf8)).objectValue)
        }
        var full = try object(Fixture.notification)
        full["subtype"] = .string("SUMMARY")
        full["summary"] = try object(Fixture.summaryNotification)["summary"]
        full["externalPurchaseToken"] = try object(Fixture.tokenNotification)["externalPurchaseToken"]
        full["appData"] = .object([
            "appAppleId": .integer(41234), "bundleId": .string("com.example"), "environment": .string("Sandbox"),
            "signedAppTransactionInfo": .string("signed_app_transaction_info_value"),
        ])
        return .object(full)
    }

    @Test func notificationMatchesCodableWithAndWithoutEachField() throws {
        let full = try Self.fullNotification()
        let decoded = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(full.serialized().utf8))
        #expect(Self.fields(decoded).values.allSatisfy { $0 }, "the fixture leaves a field out: \(Self.fields(decoded))")
        try Self.check(ResponseBodyV2DecodedPayload.self, fixture: full.serialized())
        let data = try #require(full["data"])
        let decodedData = try JSONDecoder().decode(NotificationData.self, from: Data(data.serialized().utf8))
        #expect(Self.fields(decodedData).values.allSatisfy { $0 }, "the fixture leaves a field out: \(Self.fields(decodedData))")
        try Self.check(NotificationData.self, fixture: data.serialized())
    }

    /// A reader's errors name the type and member, since they carry no enclosing coding path.
    @Test func readerErrorsNameTheTypeAndMember() throws {
        do {
            _ = try JSONValueDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(#"{"price":"x"}"#.utf8))
            Issue.record("a string price decoded")
        } catch {
            #expect("\(error)".contains("JWSTransactionDecodedPayload.price"), "\(error)")
        }
    }

    struct Holder: Codable {
        var transactions: [String: JWSTransactionDecodedPayload]
        var renewal: JWSRenewalInfoDecodedPayload?
        var list: [JWSTransactionDecodedPayload?]
    }

    @Test func unknownValuesAndNestingMatchCodable() throws {
        let transaction = JWSTransactionDecodedPayload(
            transactionId: "1", quantity: -2, type: ProductType(rawValue: "Future \"Type\""), offerType: OfferType(rawValue: 99),
            environment: AppStoreEnvironment(rawValue: "Elsewhere é"))
        let renewal = JWSRenewalInfoDecodedPayload(
            autoRenewStatus: AutoRenewStatus(rawValue: 7), eligibleWinBackOfferIds: [],
            renewalBillingPlanType: BillingPlanType(rawValue: "NEW"))
        let holder = Holder(
            transactions: ["b": transaction, "a": JWSTransactionDecodedPayload()], renewal: renewal, list: [nil, transaction])
        let ours = try JSONValueEncoder().encode(holder)
        #expect(ours == (try JSONValueEncoderTests.foundation(holder)))
        #expect(ours.contains(#""type":"Future \"Type\"""#))
        #expect(ours.contains(#""a":{}"#))
    }
}

@Suite("JSONValueDecoder with every number width")
struct JSONValueDecoderWidthTests {
    @Test func roundTripsThroughOurEncoderAndDecoder() throws {
        let inner = JSONValueEncoderTests.Mixed(
            text: "t", small: 255, unsigned: 4_000_000_000, big: 9_000_000_000_000_000_000, signed: -32768, ratio: 1.5,
            double: -0.25, flag: false, missing: "here", list: [1], nested: ["k": ["v"]], deep: [])
        var outer = inner
        outer.deep = [inner]
        let text = try JSONValueEncoder().encode(outer)
        #expect(try JSONValueDecoder().decode(JSONValueEncoderTests.Mixed.self, from: Data(text.utf8)) == outer)
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(UInt8.self, from: Data("256".utf8))
        }
    }
}
