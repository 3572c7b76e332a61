import AppStore
import JSON

/// A price in Apple's milliunits as a JSON number in the currency's own unit (`9990` USD → `9.99`).
///
/// Apple reports prices in thousandths of the currency unit; RevenueCat's v1 `price.amount` is a
/// number in the unit, with as many decimals as the currency has (ISO 4217 minor units: yen has
/// none, so `230000` JPY → `230`). A whole amount is written as an integer, any other as the
/// shortest decimal that reads back as the same double (`9.99`, not `9.990000000000000213`).
/// https://developer.apple.com/documentation/appstoreserverapi/price
enum PriceAmount {
    /// Currencies with no minor unit (ISO 4217).
    static let zeroDecimalCurrencies: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
        "XOF", "XPF",
    ]
    /// Currencies with three decimals (ISO 4217).
    static let threeDecimalCurrencies: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// How many decimals `currency` has; 2 unless ISO 4217 says otherwise.
    static func decimals(of currency: String) -> Int {
        let code = currency.uppercased()
        if zeroDecimalCurrencies.contains(code) { return 0 }
        if threeDecimalCurrencies.contains(code) { return 3 }
        return 2
    }

    /// `{"amount": …, "currency": …}`.
    static func json(milliunits: Int64, currency: String) -> JSONValue {
        .object(["amount": amount(milliunits: milliunits, currency: currency), "currency": .string(currency)])
    }

    /// The amount in the currency's unit, rounded half away from zero to its decimals.
    static func amount(milliunits: Int64, currency: String) -> JSONValue {
        let decimals = decimals(of: currency)
        let step = power(of: 10, 3 - decimals)
        // Quotient and remainder, never milliunits + half: that overflows near Int64's ends.
        let (quotient, remainder) = milliunits.quotientAndRemainder(dividingBy: step)
        let roundsAway = remainder.magnitude * 2 >= step.magnitude
        let minorUnits = roundsAway ? quotient + (milliunits < 0 ? -1 : 1) : quotient
        let unit = power(of: 10, decimals)
        if minorUnits % unit == 0 { return .integer(minorUnits / unit) }
        // Both operands are exact doubles, and IEEE division rounds correctly: the result is the
        // double nearest the decimal amount, which prints as that decimal.
        return .number(Double(minorUnits) / Double(unit))
    }

    private static func power(of base: Int64, _ exponent: Int) -> Int64 {
        (0..<exponent).reduce(1) { product, _ in product * base }
    }
}
