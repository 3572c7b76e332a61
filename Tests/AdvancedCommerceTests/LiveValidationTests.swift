import AdvancedCommerce
import Testing

@Suite struct LiveValidationTests {
    static func live(_ items: [String], token: String? = "1.12345.932c6903", active: Bool = true) -> LiveSubscription {
        LiveSubscription(transactionIds: ["12340", "12345"], items: items, consistencyToken: token, isActive: active)
    }

    static func modify(_ json: String) throws -> SubscriptionModifyInAppRequest {
        try AppleExamples.decode(json, as: SubscriptionModifyInAppRequest.self)
    }

    static func codes(
        _ json: String, _ items: [String], used: Set<String> = [], active: Bool = true,
        edit: (inout SubscriptionModifyInAppRequest) -> Void = { _ in }
    ) throws -> [String] {
        var request = try modify(json)
        edit(&request)
        return LiveValidator.validate(request, subscriptions: [live(items, active: active)], usedRequestReferenceIds: used)
            .errors.map { "\($0.name) \($0.code) \($0.field)" }
    }

    /// Apple's four examples against subscriptions they fit.
    @Test(arguments: [
        (AppleExamples.modifyUpgradeWithPeriodChange, ["ANNES_GOLD_TIER_1M"]),
        (AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M"]),
        (AppleExamples.modifyRemoveItem, ["ANNES_GOLD_TIER_1M", "LIVE_SPORTS"]),
        (AppleExamples.modifyDowngrade, ["ANNES_PLATINUM_TIER_1M"]),
    ])
    func appleExamplesFitMatchingSubscriptions(json: String, items: [String]) throws {
        #expect(try Self.codes(json, items) == [])
    }

    @Test func consistencyTokenIsFilledFromTheRenewalInfoWhenLeftOut() throws {
        let request = try Self.modify(AppleExamples.modifyAddItem)
        #expect(request.requestInfo?.consistencyToken == nil)
        let filled = LiveValidator.validate(
            request, subscriptions: [Self.live(["ANNES_GOLD_TIER_1M"])], usedRequestReferenceIds: []
        ).request
        #expect(filled.requestInfo?.consistencyToken == "1.12345.932c6903")
        var given = request
        given.requestInfo?.consistencyToken = "1.12345.932c6903"
        #expect(
            LiveValidator.validate(given, subscriptions: [Self.live(["ANNES_GOLD_TIER_1M"])], usedRequestReferenceIds: [])
                .errors.isEmpty)
    }

    /// A token the caller gives is kept, even one RevenueDot has not seen: it may be newer than
    /// the renewal info RevenueDot has received (Apple still retrying a notification).
    @Test func aCallersConsistencyTokenIsKept() throws {
        var request = try Self.modify(AppleExamples.modifyAddItem)
        request.requestInfo?.consistencyToken = "1.12345.newer"
        let checked = LiveValidator.validate(
            request, subscriptions: [Self.live(["ANNES_GOLD_TIER_1M"])], usedRequestReferenceIds: [])
        #expect(checked.errors.isEmpty)
        #expect(checked.request.requestInfo?.consistencyToken == "1.12345.newer")
    }

    @Test func eachLiveRuleGivesItsCode() throws {
        #expect(
            try Self.codes(AppleExamples.modifyDowngrade, ["LIVE_SPORTS"])
                == ["ChangeItemNotFoundError 4000146 changeItems[0].currentSKU"])
        #expect(
            try Self.codes(AppleExamples.modifyRemoveItem, ["ANNES_GOLD_TIER_1M"])
                == ["RemoveItemNotFoundError 4000145 removeItems[0].SKU"])
        #expect(
            try Self.codes(AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M", "NEWS_CHANNELS"])
                == ["ProductAlreadyExistsError 4000114 addItems[0].SKU"])
        #expect(
            try Self.codes(AppleExamples.modifyRemoveItem, ["LIVE_SPORTS"])
                == ["RemoveAllItemsNotAllowedError 4000168 removeItems"])
        #expect(
            try Self.codes(AppleExamples.modifyUpgradeWithPeriodChange, ["ANNES_GOLD_TIER_1M", "LIVE_SPORTS"])
                == ["MissingUpdatedItemsWithPeriodChangeError 4000140 changeItems"])
        #expect(
            try Self.codes(AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M"], used: ["e2a88501-25ba-403a-9c46-d7b8eecc56ba"])
                == ["RepeatedRequestReferenceIdError 4000097 requestInfo.requestReferenceId"])
        #expect(
            try Self.codes(AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M"], active: false)
                == ["InactiveACASubError 4030015 transactionId"])
        #expect(
            try Self.codes(AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M"]) { $0.transactionId = "99999" }
                == ["TransactionIdNotFoundError 4040010 transactionId"])
        // A missing or empty id is the request's own error (Null/InvalidTransactionIdError), said once.
        for missing in [nil, ""] as [String?] {
            #expect(try Self.codes(AppleExamples.modifyAddItem, ["ANNES_GOLD_TIER_1M"]) { $0.transactionId = missing } == [])
        }
        #expect(
            try Self.codes(AppleExamples.modifyDowngrade, ["ANNES_PLATINUM_TIER_1M", "ANNES_GOLD_TIER_1M"])
                == ["ProductAlreadyExistsError 4000114 changeItems[0].SKU"])
    }

    /// An item's price is changed with Apple's Change Subscription Price, not a modify; an item
    /// whose period runs under an offer cannot change before the period ends.
    @Test func itemsKeepTheirPriceAndOfferWithinTheCycle() throws {
        let live = LiveSubscription(
            transactionIds: ["12345"], items: ["ANNES_PLATINUM_TIER_1M"], consistencyToken: nil, isActive: true,
            currency: "USD", prices: ["ANNES_PLATINUM_TIER_1M": 9_990], offered: ["ANNES_PLATINUM_TIER_1M"])
        func codes(currency: String = "USD", _ edit: (inout SubscriptionModifyChangeItem) -> Void) throws -> [String] {
            var request = try Self.modify(AppleExamples.modifyDowngrade)
            request.currency = currency
            edit(&request.changeItems![0])
            return LiveValidator.validate(request, subscriptions: [live], usedRequestReferenceIds: []).errors.map {
                "\($0.name) \($0.code) \($0.field)"
            }
        }
        #expect(try codes { _ in } == [], "a change at the next bill cycle waits for the offer's period to end")
        #expect(
            try codes { ($0.sku, $0.price) = ("ANNES_PLATINUM_TIER_1M", 4_990) }
                == ["PriceChangeNotSupportedThroughModifyItemsError 4000178 changeItems[0].price"])
        #expect(try codes { ($0.sku, $0.price) = ("ANNES_PLATINUM_TIER_1M", 9_990) } == [])
        // In the customer's new currency (they moved country) the price is not comparable.
        #expect(try codes(currency: "EUR") { ($0.sku, $0.price) = ("ANNES_PLATINUM_TIER_1M", 8_990) } == [])
        // Nor in a new period: the item's yearly price is no change of its monthly one.
        var yearly = try Self.modify(AppleExamples.modifyDowngrade)
        yearly.currency = "USD"
        yearly.periodChange = SubscriptionModifyPeriodChange(effective: .nextBillCycle, period: .oneYear)
        (yearly.changeItems![0].sku, yearly.changeItems![0].price) = ("ANNES_PLATINUM_TIER_1M", 99_990)
        let priced = LiveValidator.validate(yearly, subscriptions: [live], usedRequestReferenceIds: []).errors.map(\.name)
        #expect(!priced.contains("PriceChangeNotSupportedThroughModifyItemsError"), "\(priced)")
        #expect(
            try codes { $0.effective = .immediately }
                == ["OfferPreventsItemMidCycleChangeError 4000177 changeItems[0].currentSKU"])
    }

    /// A create request that resubscribes names a lapsed subscription of the customer, whose
    /// consistency token it carries.
    @Test func aResubscribeNamesALapsedSubscription() throws {
        var request = try AppleExamples.decode(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
        #expect(LiveValidator.validate(request, subscriptions: [], usedRequestReferenceIds: []).errors.isEmpty, "initial")
        let lapsed = LiveSubscription(transactionIds: ["12345"], items: ["A"], consistencyToken: "t", isActive: false)
        #expect(
            LiveValidator.validate(request, subscriptions: [lapsed], usedRequestReferenceIds: []).errors.isEmpty,
            "an initial create beside a lapsed subscription")
        // Beside an active one too: the request names neither the generic product (an app may
        // have one per group) nor the environment, so only Apple can tell it is a second one.
        var running = lapsed
        running.isActive = true
        #expect(
            LiveValidator.validate(request, subscriptions: [lapsed, running], usedRequestReferenceIds: []).errors.isEmpty,
            "an initial create beside an active subscription")
        request.previousTransactionId = "12345"
        let checked = LiveValidator.validate(request, subscriptions: [lapsed], usedRequestReferenceIds: [])
        #expect(checked.errors.isEmpty)
        #expect(checked.request.requestInfo?.consistencyToken == "t")
        var active = lapsed
        active.isActive = true
        #expect(
            LiveValidator.validate(request, subscriptions: [active], usedRequestReferenceIds: []).errors.map(\.code)
                == [4_030_011])
        let unknown = LiveValidator.validate(request, subscriptions: [], usedRequestReferenceIds: []).errors
        #expect(unknown.map(\.code) == [4_040_010])
        #expect(unknown.first?.field == "previousTransactionId")
    }

    /// The storefront and currency are the customer's now, which Apple knows and RevenueDot
    /// may not: neither is held against the last transaction's. Without a currency, a modify's
    /// prices are in the subscription's, and its decimals apply.
    @Test func storefrontAndCurrencyAreTheCustomersNow() throws {
        let live = LiveSubscription(
            transactionIds: ["12345"], items: ["ANNES_GOLD_TIER_1M"], consistencyToken: nil, isActive: true, currency: "USD")
        func codes(_ edit: (inout SubscriptionModifyInAppRequest) -> Void) throws -> [String] {
            var request = try Self.modify(AppleExamples.modifyAddItem)
            edit(&request)
            return LiveValidator.validate(request, subscriptions: [live], usedRequestReferenceIds: []).errors.map {
                "\($0.name) \($0.code) \($0.field)"
            }
        }
        #expect(try codes { ($0.storefront, $0.currency) = ("USA", "USD") } == [])
        #expect(try codes { ($0.storefront, $0.currency) = (nil, nil) } == [])
        // A customer who moved App Store country: the request names their storefront and
        // currency now, which Apple asks for, not the last transaction's.
        #expect(try codes { ($0.storefront, $0.currency) = ("FRA", "EUR") } == [])
        // Without a currency, prices are the subscription's dollars: a tenth of a cent is refused.
        #expect(
            try codes {
                $0.currency = nil
                $0.addItems![0].price = 9995
                $0.addItems![0].proratedPrice = 1005
            } == ["InvalidAmountError 4000132 addItems[0].price", "InvalidProratedPriceError 4000151 addItems[0].proratedPrice"])
        #expect(try codes { ($0.currency, $0.addItems![0].price) = (nil, 9990) } == [])
        var reactivate = try ReactivateLiveValidationTests.request()
        reactivate.storefront = "FRA"
        let cancelled = LiveSubscription(
            transactionIds: ["12345"], items: ["LIVE_SPORTS"], consistencyToken: nil, isActive: true, autoRenews: false)
        #expect(LiveValidator.validate(reactivate, subscriptions: [cancelled], usedRequestReferenceIds: []).errors.isEmpty)
    }
}

@Suite struct ReactivateLiveValidationTests {
    static func request() throws -> SubscriptionReactivateInAppRequest {
        var request = try AppleExamples.decode(AppleExamples.subscriptionReactivate, as: SubscriptionReactivateInAppRequest.self)
        request.transactionId = "12345"
        return request
    }

    static func live(active: Bool, autoRenews: Bool, items: [String] = ["LIVE_SPORTS"]) -> LiveSubscription {
        LiveSubscription(transactionIds: ["12345"], items: items, consistencyToken: "t", isActive: active, autoRenews: autoRenews)
    }

    static func codes(_ subscriptions: [LiveSubscription]) throws -> [Int] {
        LiveValidator.validate(try request(), subscriptions: subscriptions, usedRequestReferenceIds: []).errors.map(\.code)
    }

    /// Apple: "reactivate a subscription that has automatic renewal turned off".
    @Test func anActiveSubscriptionWhoseAutoRenewIsOffCanBeReactivated() throws {
        let cancelled = Self.live(active: true, autoRenews: false)
        let checked = LiveValidator.validate(try Self.request(), subscriptions: [cancelled], usedRequestReferenceIds: [])
        #expect(checked.errors == [])
        #expect(checked.request.requestInfo?.consistencyToken == "t")
    }

    @Test func aRenewingLapsedOrUnknownSubscriptionCannot() throws {
        #expect(try Self.codes([Self.live(active: true, autoRenews: true)]) == [4_030_011], "it renews anyway")
        // A lapsed subscription comes back with a create request naming previousTransactionId.
        #expect(try Self.codes([Self.live(active: false, autoRenews: false)]) == [4_030_015])
        #expect(try Self.codes([]) == [4_040_010])
    }

    /// With a downgrade scheduled, the renewal info's items are the ones set to renew.
    @Test func itemsAreTheOnesSetToRenew() throws {
        var scheduled = Self.live(active: true, autoRenews: false, items: ["NEWS_CHANNELS"])
        scheduled.renewingItems = ["LIVE_SPORTS"]
        #expect(LiveValidator.validate(try Self.request(), subscriptions: [scheduled], usedRequestReferenceIds: []).errors == [])
        scheduled.renewingItems = ["NEWS_HEADLINES"]
        let refused = LiveValidator.validate(try Self.request(), subscriptions: [scheduled], usedRequestReferenceIds: [])
        #expect(refused.errors.map(\.code) == [4_000_220])
        #expect(refused.errors.first?.message.contains("NEWS_HEADLINES are") == true, "\(refused.errors)")
    }

    /// Only the purchaser may change, reactivate or buy again a subscription: a family member's
    /// access is ProductNotOwnedError for every request naming one of its transactions.
    @Test func aFamilyMembersSubscriptionIsNotTheirsToChange() throws {
        var shared = Self.live(active: true, autoRenews: false)
        shared.isPurchased = false
        #expect(try Self.codes([shared]) == [4_030_013])
        let modify = LiveValidator.validate(
            try LiveValidationTests.modify(AppleExamples.modifyAddItem),
            subscriptions: [
                LiveSubscription(
                    transactionIds: ["12345"], items: ["ANNES_GOLD_TIER_1M"], consistencyToken: nil, isActive: true,
                    isPurchased: false)
            ],
            usedRequestReferenceIds: [])
        #expect(modify.errors.map { "\($0.code) \($0.field)" } == ["4030013 transactionId"])
        var lapsed = shared
        lapsed.isActive = false
        var resubscribe = try AppleExamples.decode(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
        resubscribe.previousTransactionId = "12345"
        let checked = LiveValidator.validate(resubscribe, subscriptions: [lapsed], usedRequestReferenceIds: [])
        #expect(checked.errors.map { "\($0.code) \($0.field)" } == ["4030013 previousTransactionId"])
    }

    @Test func itemsMustBeTheSubscriptionsOwn() throws {
        let other = Self.live(active: true, autoRenews: false, items: ["NEWS_CHANNELS"])
        let checked = LiveValidator.validate(try Self.request(), subscriptions: [other], usedRequestReferenceIds: [])
        #expect(checked.errors.map(\.code) == [4_000_220])
        #expect(checked.errors.first?.field == "items[0].SKU")
    }
}
