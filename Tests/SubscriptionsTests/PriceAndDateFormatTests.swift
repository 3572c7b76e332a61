import AppStore
import Foundation
import JSON
import SubscriptionsFixtures
import Testing
import Threads

@testable import Subscriptions

/// How the subscriber view writes amounts (in the currency's decimals) and dates (ISO 8601 UTC,
/// to the second), over every Int64 a row may hold.
@Suite struct PriceAndDateFormatTests {

    @Test(arguments: [
        (9_990, "USD", JSONValue.number(9.99)), (230_000, "JPY", .integer(230)), (10_000, "USD", .integer(10)),
        (990, "EUR", .number(0.99)), (0, "USD", .integer(0)), (1_500, "KWD", .number(1.5)),
        (1_234, "BHD", .number(1.234)), (99_990, "usd", .number(99.99)), (230_400, "JPY", .integer(230)),
        (230_500, "JPY", .integer(231)), (-9_990, "USD", .number(-9.99)), (1_005, "USD", .number(1.01)),
        (-1_005, "USD", .number(-1.01)), (-230_500, "JPY", .integer(-231)), (-230_499, "JPY", .integer(-230)),
        // The ends of 64 bits, which a row stored before payload numbers were checked may hold:
        // rounding must not overflow on the way.
        (.max, "JPY", .integer(9_223_372_036_854_776)), (.min, "JPY", .integer(-9_223_372_036_854_776)),
        (.max, "USD", .number(9_223_372_036_854_776)), (.max, "BHD", .number(9_223_372_036_854_776)),
    ])
    func priceInTheCurrencyDecimals(milliunits: Int64, currency: String, amount: JSONValue) {
        #expect(PriceAmount.amount(milliunits: milliunits, currency: currency) == amount)
    }

    @Test func pricesSerializeAsShortDecimals() {
        #expect(PriceAmount.json(milliunits: 9_990, currency: "USD").serialized() == #"{"amount":9.99,"currency":"USD"}"#)
        #expect(PriceAmount.json(milliunits: 230_000, currency: "JPY").serialized() == #"{"amount":230,"currency":"JPY"}"#)
        #expect(PriceAmount.json(milliunits: 4_990, currency: "EUR").serialized() == #"{"amount":4.99,"currency":"EUR"}"#)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"), (1_564_162_810_884, "2019-07-26T17:40:10Z"),
        (-1, "1969-12-31T23:59:59Z"), (951_782_400_000, "2000-02-29T00:00:00Z"),
        (951_868_799_999, "2000-02-29T23:59:59Z"), (4_102_444_800_000, "2100-01-01T00:00:00Z"),
        (253_402_300_799_000, "9999-12-31T23:59:59Z"), (-62_135_596_800_000, "0001-01-01T00:00:00Z"),
        // The ends of 64 bits, which a row stored before payload numbers were checked may hold.
        (.min, "-292275055-05-16T16:47:04Z"), (.max, "292278994-08-17T07:12:55Z"),
    ])
    func isoDates(milliseconds: Int64, text: String) {
        #expect(ISO8601UTC.string(fromMilliseconds: milliseconds) == text)
    }

    @Test func isoDatesAgreeWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        var random = SplitMix64(seed: 8601)
        for _ in 0..<2_000 {
            let milliseconds = random.int64(in: -2_000_000_000_000...7_000_000_000_000)
            let date = Date(timeIntervalSince1970: Double(milliseconds.floorDivided(by: 1000)))
            #expect(ISO8601UTC.string(fromMilliseconds: milliseconds) == formatter.string(from: date))
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }
}
