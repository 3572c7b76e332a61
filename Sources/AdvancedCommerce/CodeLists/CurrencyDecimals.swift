/// How many decimal places a price may have in each currency.
///
/// Apple's table (https://developer.apple.com/documentation/advancedcommerceapi/prices) wins where it
/// disagrees with ISO 4217: Apple prices DKK, HKD, HUF, INR, MXN, NOK, SEK, TWD and others in whole units
/// although ISO gives them 2 minor digits. Currencies Apple does not list (it adds currencies) fall
/// back to their ISO 4217 minor unit, at most 2: the App Store prices with zero or two decimal
/// places, and shows no payment sheet for a price with more, so a 3-decimal currency's (BHD,
/// KWD, ...) takes whole cents.
public enum CurrencyDecimals {
    /// Apple: "Currencies with 0 decimals".
    public static let appleWholeUnits: Set<String> = [
        "CLP", "COP", "DKK", "HKD", "HUF", "IDR", "INR", "JPY", "KRW", "KZT", "MXN", "NGN", "NOK", "PHP", "PKR",
        "RUB", "SEK", "THB", "TWD", "TZS", "VND",
    ]

    /// ISO 4217 currencies whose minor unit is not 2 (every other code has 2).
    public static let isoMinorUnitExceptions: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
        "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// The decimal places allowed for a currency in `CurrencyCodes.all`: 0 or 2.
    public static func places(for currency: String) -> Int {
        if appleWholeUnits.contains(currency) { return 0 }
        return min(isoMinorUnitExceptions[currency] ?? 2, 2)
    }

    /// Whether a milliunit amount has no more decimals than the currency allows.
    ///
    /// JPY 310950 (310.95) fails, USD 9990 (9.99) passes, USD 9995 (9.995) fails, BHD 9995 fails.
    public static func allows(milliunits: Int64, in currency: String) -> Bool {
        let places = places(for: currency)
        guard places < 3 else { return true }
        var step: Int64 = 1
        for _ in places..<3 { step *= 10 }
        return milliunits % step == 0
    }
}
