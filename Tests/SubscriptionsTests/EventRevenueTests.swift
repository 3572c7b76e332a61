import AppStore
import Foundation
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// RevenueCat's revenue fields: tax from the storefront, Apple's commission (30%, 15% after a
/// paid year or in the Small Business Program, taken after tax), and price in US dollars.
@Suite struct EventRevenueTests {
    let day = Fixture.day

    func purchase(
        storefront: String, currency: String = "EUR", original: Int64 = Apple.t0, purchase: Int64 = Apple.t0,
        configuration: LedgerConfiguration = LedgerConfiguration()
    ) -> Event? {
        var transaction = Apple.transaction(Apple.original, purchase: purchase, currency: currency)
        transaction.storefront = storefront
        transaction.originalPurchaseDate = original
        var shop = Harness(ledger: Ledger(configuration: configuration))
        return shop.send(
            Apple.notification(.subscribed, .initialBuy, uuid: "n", signed: purchase, transaction: transaction)
        ).first
    }

    @Test(arguments: [
        // storefront, tax, commission, takehome
        ("DEU", "0.1597", "0.2521", "0.7"),
        ("FRA", "0.1667", "0.25", "0.7"),
        ("USA", "0", "0.3", "0.7"),
        ("JPN", "0.0909", "0.2727", "0.7"),
    ])
    func taxAndCommissionByStorefront(storefront: String, tax: String, commission: String, takehome: String) {
        let event = purchase(storefront: storefront)
        #expect(event?.taxPercentage == Decimal(string: tax))
        #expect(event?.commissionPercentage == Decimal(string: commission))
        #expect(event?.takehomePercentage == Decimal(string: takehome))
    }

    @Test func aStorefrontWithoutARateGivesNoTaxAndTheNominalCommission() {
        let event = purchase(storefront: "BRA")
        #expect(event?.taxPercentage == nil)
        #expect(event?.commissionPercentage == Decimal(string: "0.3"))
    }

    @Test func fifteenPercentAfterAPaidYearAndInTheSmallBusinessProgram() {
        let renewal = purchase(storefront: "USA", original: Apple.t0 - 400 * Apple.day)
        #expect(renewal?.commissionPercentage == Decimal(string: "0.15"))
        #expect(renewal?.takehomePercentage == Decimal(string: "0.85"))
        var small = LedgerConfiguration()
        small.smallBusinessProgram = true
        let member = purchase(storefront: "DEU", configuration: small)
        #expect(member?.commissionPercentage == Decimal(string: "0.126"))
        #expect(member?.takehomePercentage == Decimal(string: "0.85"))
    }

    @Test func priceInDollarsFromTheOperatorsRates() {
        var rates = LedgerConfiguration()
        rates.usdExchangeRates = ["EUR": Decimal(string: "0.9")!]
        #expect(purchase(storefront: "DEU", configuration: rates)?.price == Decimal(string: "11.1"))
        #expect(purchase(storefront: "DEU")?.price == nil)
        #expect(purchase(storefront: "DEU")?.priceInPurchasedCurrency == Decimal(string: "9.99"))
        #expect(purchase(storefront: "USA", currency: "USD")?.price == Decimal(string: "9.99"))
    }

    /// A transaction signed without `price` (older payloads): both prices are null, unknown, as
    /// RevenueCat's are; 0 is a free trial's. The refund of one and its reversal likewise.
    @Test func anUnknownPriceIsNullNotZero() {
        var transaction = Apple.transaction(Apple.original, purchase: Apple.t0)
        transaction.price = nil
        var rates = LedgerConfiguration()
        rates.usdExchangeRates = ["EUR": Decimal(string: "0.9")!]
        var shop = Harness(ledger: Ledger(configuration: rates))
        let bought = shop.send(
            Apple.notification(.subscribed, .initialBuy, uuid: "n", signed: Apple.t0, transaction: transaction))
        #expect(bought.map(\.type) == [.initialPurchase])
        #expect(bought.first?.price == nil && bought.first?.priceInPurchasedCurrency == nil)
        transaction.revocationDate = Apple.t0 + Apple.day
        transaction.revocationReason = .refundedDueToIssue
        transaction.revocationType = .refundFull
        let refund = shop.send(
            Apple.notification(.refund, nil, uuid: "r", signed: Apple.t0 + Apple.day, transaction: transaction))
        #expect(refund.first?.cancelReason == .customerSupport)
        #expect(refund.first?.price == nil && refund.first?.priceInPurchasedCurrency == nil)
        var free = Apple.transaction(Apple.original, purchase: Apple.t0, offer: .introductory, discount: .freeTrial)
        free.storefront = "USA"
        var trial = Harness(ledger: Ledger(configuration: rates))
        let started = trial.send(Apple.notification(.subscribed, .initialBuy, uuid: "t", signed: Apple.t0, transaction: free))
        #expect(started.first?.price == 0 && started.first?.priceInPurchasedCurrency == 0)
    }
}
