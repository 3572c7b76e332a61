import AdvancedCommerce
import Testing

/// Prices in milliunits and their currency's decimals, and the offer rules.
@Suite struct PriceRuleTests {
    @Test(
        arguments: [
            ("JPY", 310_950, false), ("JPY", 311_000, true), ("USD", 9990, true), ("USD", 9995, false),
            ("BHD", 9995, false), ("BHD", 9990, true), ("KWD", 1, false), ("HUF", 1500, false), ("INR", 99_000, true),
            ("EUR", 1990, true),
            ("EUR", 1999, false), ("CLF", 1, false), ("CLF", 10, true), ("ISK", 100, false),
        ] as [(String, Int64, Bool)])
    func decimalsFollowTheCurrency(currency: String, milliunits: Int64, allowed: Bool) {
        #expect(CurrencyDecimals.allows(milliunits: milliunits, in: currency) == allowed)
        let request = with(Valid.oneTime) {
            $0.currency = currency
            $0.item?.price = milliunits
        }
        let reported = AdvancedCommerceValidator.validate(request).contains {
            $0.name == "InvalidAmountError" && $0.code == 4000132 && $0.field == "item.price"
        }
        #expect(reported == !allowed)
    }

    static func offer(_ change: (inout Offer) -> Void) -> SubscriptionCreateRequest {
        with(Valid.create) { change(&$0.items![1].offer!) }
    }

    static let offers: [RuleCase] = [
        RuleCase("period missing", offer { $0.period = nil }, "NullOfferPeriodError", 4000092, at: "items[1].offer.period"),
        RuleCase(
            "period unknown", offer { $0.period = .unknown("P5D") }, "InvalidOfferPeriodError", 4000128,
            at: "items[1].offer.period"),
        RuleCase(
            "periodCount missing", offer { $0.periodCount = nil }, "NullPeriodCountError", 4000093,
            at: "items[1].offer.periodCount"),
        RuleCase(
            "periodCount 0", offer { $0.periodCount = 0 }, "PeriodCountNotPositiveError", 4000094,
            at: "items[1].offer.periodCount"),
        RuleCase(
            "periodCount 13", offer { $0.periodCount = 13 }, "InvalidOfferPeriodCountError", 4000129,
            at: "items[1].offer.periodCount"),
        RuleCase("reason missing", offer { $0.reason = nil }, "NullReasonError", 4000095, at: "items[1].offer.reason"),
        RuleCase(
            "reason unknown", offer { $0.reason = .unknown("LOYALTY") }, "InvalidOfferReasonError", 4000126,
            at: "items[1].offer.reason"),
        RuleCase("price missing", offer { $0.price = nil }, "NullPriceError", 4000109, at: "items[1].offer.price"),
        RuleCase("price negative", offer { $0.price = -1 }, "NegativePriceError", 4000086, at: "items[1].offer.price"),
        RuleCase("price 2.995", offer { $0.price = 2995 }, "InvalidAmountError", 4000132, at: "items[1].offer.price"),
        RuleCase("price above item", offer { $0.price = 11_010 }, "InvalidOfferPriceError", 4000152, at: "items[1].offer.price"),
        RuleCase(
            "free trial for 3 periods", offer { $0.price = 0 }, "FreeTrialOfferMustUsePeriodCountOfOneError", 4000223,
            at: "items[1].offer.periodCount"),
    ]

    @Test(arguments: offers)
    func reportsAppleError(_ rule: RuleCase) {
        #expect(rule.isReported, "got \(rule.errors)")
    }

    @Test(arguments: [1, 12] as [Int32])
    func offerBoundsAndFreeTrialAreAccepted(periodCount: Int32) {
        #expect(AdvancedCommerceValidator.validate(Self.offer { $0.periodCount = periodCount }) == [])
        #expect(AdvancedCommerceValidator.validate(Self.offer { $0.price = 11_000 }) == [])
        #expect(AdvancedCommerceValidator.validate(Self.offer { ($0.price, $0.periodCount) = (0, 1) }) == [])
    }
}
