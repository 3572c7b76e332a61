import Foundation

/// Standard VAT/GST rates by country (ISO 3166-1 alpha-2), for RevenueCat's `tax_percentage`:
/// the share of a price that is tax, `rate / (1 + rate)`, since App Store prices include tax
/// everywhere but in the United States and Canada (where tax is added at checkout, so the
/// share of the price is 0).
///
/// Sources, checked 2026-12-02: the European Commission's "VAT rates applied in the Member
/// States" (taxation-customs.ec.europa.eu, rates of 1 January 2025, with the increases since:
/// Estonia 24% from July 2025, Romania 21% from August 2025); the OECD's "Consumption Tax
/// Trends 2024", table 2.A.1 (standard VAT/GST rates of OECD members and partners); and, for
/// the countries neither lists or that changed since (Russia 22% and Kazakhstan 16% from
/// January 2026), their tax authorities' published standard rate. Brazil taxes these sales
/// through several taxes with no single standard rate: no estimate. Apple's
/// own tax on digital services can differ from the standard rate (reduced rates for e-books,
/// for instance): this is an estimate, as RevenueCat's is. A country not in the table gives no
/// estimate (`tax_percentage` null).
public enum TaxRates {
    /// The standard rate (0.19 for 19%), or nil when the table has none.
    public static func standardRate(country: String) -> Decimal? {
        rates[country.uppercased()].map { Decimal($0) / 1000 }
    }

    /// Where App Store prices do not include tax.
    public static let taxExclusive: Set<String> = ["US", "CA"]

    /// The share of a price that is tax, to four decimals; nil for a country without a rate.
    public static func share(country: String?) -> Decimal? {
        guard let country else { return nil }
        if taxExclusive.contains(country.uppercased()) { return 0 }
        guard let rate = standardRate(country: country) else { return nil }
        return round(rate / (1 + rate), places: 4)
    }

    static func round(_ value: Decimal, places: Int) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, places, .plain)
        return result
    }

    /// Tenths of a percent, by country.
    private static let rates: [String: Int] = [
        // European Union (EC, 1 January 2025).
        "AT": 200, "BE": 210, "BG": 200, "HR": 250, "CY": 190, "CZ": 210, "DK": 250, "EE": 240, "FI": 255, "FR": 200,
        "DE": 190, "GR": 240, "HU": 270, "IE": 230, "IT": 220, "LV": 210, "LT": 210, "LU": 170, "MT": 180, "NL": 210,
        "PL": 230, "PT": 230, "RO": 210, "SK": 230, "SI": 220, "ES": 210, "SE": 250,
        // Rest of Europe (OECD 2024; national authorities).
        "GB": 200, "NO": 250, "CH": 81, "IS": 240, "LI": 81, "TR": 200, "RS": 200, "UA": 200, "AL": 200, "BA": 170,
        "ME": 210, "MK": 180, "MD": 200, "GE": 180, "AM": 200, "AZ": 180, "BY": 200, "RU": 220, "KZ": 160,
        // Asia and Oceania.
        "AU": 100, "NZ": 150, "JP": 100, "KR": 100, "CN": 130, "TW": 50, "SG": 90, "IN": 180, "ID": 110, "MY": 80,
        "TH": 70, "VN": 100, "PH": 120, "PK": 180, "BD": 150, "LK": 180, "KH": 100, "UZ": 120, "MN": 100,
        // Middle East and Africa.
        "IL": 180, "AE": 50, "SA": 150, "BH": 100, "OM": 50, "QA": 0, "KW": 0, "EG": 140, "MA": 200, "TN": 190,
        "ZA": 150, "NG": 75, "KE": 160, "GH": 150, "TZ": 180, "UG": 180,
        // The Americas.
        "MX": 160, "AR": 210, "CL": 190, "CO": 190, "PE": 180, "UY": 220, "EC": 150, "CR": 130, "DO": 180,
        "GT": 120, "PA": 70, "PY": 100, "BO": 130, "SV": 130, "HN": 150, "NI": 150,
        // No VAT or GST on these sales.
        "HK": 0, "MO": 0,
    ]
}
