import AdvancedCommerce
import Testing

@Suite struct CodeListTests {
    @Test func storefrontsAreISO3166Alpha3() {
        #expect(StorefrontCodes.all.count == 250)
        // Kosovo's App Store is XKS, a code ISO leaves to users.
        #expect(StorefrontCodes.all.isSuperset(of: ["USA", "JPN", "GBR", "DEU", "UKR", "TWN", "XKS"]))
        #expect(!StorefrontCodes.all.contains("US"))
    }

    @Test func everyCurrencyApplePricesIsKnown() {
        let appleTwoDecimals: Set<String> = [
            "AED", "AUD", "BGN", "BRL", "CAD", "CHF", "CNY", "CZK", "EGP", "EUR", "GBP", "ILS", "MYR", "NZD", "PEN",
            "PLN", "QAR", "RON", "SAR", "SGD", "TRY", "USD", "ZAR",
        ]
        #expect(CurrencyCodes.all.isSuperset(of: CurrencyDecimals.appleWholeUnits.union(appleTwoDecimals)))
        #expect(appleTwoDecimals.allSatisfy { CurrencyDecimals.places(for: $0) == 2 })
        #expect(CurrencyDecimals.appleWholeUnits.allSatisfy { CurrencyDecimals.places(for: $0) == 0 })
        #expect(!CurrencyCodes.all.contains("XXX"))
        #expect(CurrencyCodes.all.count == 170)
    }
}
