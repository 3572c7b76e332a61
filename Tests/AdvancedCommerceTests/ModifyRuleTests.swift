import AdvancedCommerce
import Testing

/// Fields and cross-field rules of SubscriptionModifyInAppRequest that need only the request.
@Suite struct ModifyRuleTests {
    static let offer = Offer(period: .oneMonth, periodCount: 1, price: 990, reason: .retention)

    static func change(_ change: (inout SubscriptionModifyChangeItem) -> Void) -> SubscriptionModifyInAppRequest {
        with(Valid.downgrade) { change(&$0.changeItems![0]) }
    }

    static func add(_ change: (inout SubscriptionModifyAddItem) -> Void) -> SubscriptionModifyInAppRequest {
        with(Valid.addItem) { change(&$0.addItems![0]) }
    }

    static let fields: [RuleCase] = [
        RuleCase(
            "taxCode of a one-time charge", with(Valid.addItem) { $0.taxCode = "C003-00-2" }, "InvalidTaxProductCodeError",
            4000127, at: "taxCode"),
        RuleCase(
            "transactionId missing", with(Valid.addItem) { $0.transactionId = nil }, "NullTransactionIdError", 4000085,
            at: "transactionId"),
        RuleCase(
            "transactionId empty", with(Valid.addItem) { $0.transactionId = "" }, "InvalidTransactionIdError", 4000006,
            at: "transactionId"),
        RuleCase(
            "retainBillingCycle missing", with(Valid.addItem) { $0.retainBillingCycle = nil }, "NullRetainBillingCycleError",
            4000110, at: "retainBillingCycle"),
        RuleCase(
            "currency unknown", with(Valid.addItem) { $0.currency = "usd" }, "InvalidCurrencyError", 4000053, at: "currency"),
        RuleCase(
            "storefront unknown", with(Valid.addItem) { $0.storefront = "UK" }, "InvalidStorefrontError", 4000028,
            at: "storefront"),
        RuleCase(
            "descriptors.effective missing", with(Valid.addItem) { $0.descriptors?.effective = nil }, "NullEffectiveError",
            4000111, at: "descriptors.effective"),
        RuleCase(
            "descriptors.effective unknown", with(Valid.addItem) { $0.descriptors?.effective = .unknown("LATER") },
            "MalformedPayloadError", 4000173, at: "descriptors.effective"),
        RuleCase(
            "descriptors with neither name nor description",
            with(Valid.addItem) { $0.descriptors = SubscriptionModifyDescriptors(effective: .immediately) },
            "AtLeastOneOfDisplayNameOrDescriptionError", 4000165, at: "descriptors"),
        RuleCase(
            "descriptors.displayName 31", with(Valid.addItem) { $0.descriptors?.displayName = text(31) },
            "DisplayNameLengthExceededError", 4000089, at: "descriptors.displayName"),
        RuleCase(
            "periodChange.effective missing", with(Valid.upgrade) { $0.periodChange?.effective = nil }, "NullEffectiveError",
            4000111, at: "periodChange.effective"),
        RuleCase(
            "periodChange.period missing", with(Valid.upgrade) { $0.periodChange?.period = nil }, "NullPeriodError", 4000104,
            at: "periodChange.period"),
        RuleCase(
            "periodChange.period P9M", with(Valid.upgrade) { $0.periodChange?.period = .unknown("P9M") },
            "InvalidRenewalPeriodError", 4000130, at: "periodChange.period"),
        RuleCase("add SKU missing", add { $0.sku = nil }, "NullSKUError", 4000105, at: "addItems[0].SKU"),
        RuleCase("add price missing", add { $0.price = nil }, "NullPriceError", 4000109, at: "addItems[0].price"),
        RuleCase("add price 4.995", add { $0.price = 4995 }, "InvalidAmountError", 4000132, at: "addItems[0].price"),
        RuleCase(
            "add offer above price", add { $0.offer = with(offer) { $0.price = 5000 } }, "InvalidOfferPriceError", 4000152,
            at: "addItems[0].offer.price"),
        RuleCase(
            "currentSKU missing", change { $0.currentSKU = nil }, "NullCurrentSKUError", 4000169, at: "changeItems[0].currentSKU"),
        RuleCase(
            "currentSKU 129", change { $0.currentSKU = text(129) }, "CurrentSKULengthExceededError", 4000170,
            at: "changeItems[0].currentSKU"),
        RuleCase("change SKU missing", change { $0.sku = nil }, "NullNewSKUError", 4000112, at: "changeItems[0].SKU"),
        RuleCase("change SKU 129", change { $0.sku = text(129) }, "SKULengthExceededError", 4000087, at: "changeItems[0].SKU"),
        RuleCase(
            "change displayName missing", change { $0.displayName = nil }, "NullDisplayNameError", 4000106,
            at: "changeItems[0].displayName"),
        RuleCase(
            "change description 46", change { $0.description = text(46) }, "DescriptionLengthExceededError", 4000088,
            at: "changeItems[0].description"),
        RuleCase(
            "change effective missing", change { $0.effective = nil }, "NullEffectiveError", 4000111,
            at: "changeItems[0].effective"),
        RuleCase(
            "change effective unknown", change { $0.effective = .unknown("TOMORROW") }, "MalformedPayloadError", 4000173,
            at: "changeItems[0].effective"),
        RuleCase("change price negative", change { $0.price = -1 }, "NegativePriceError", 4000086, at: "changeItems[0].price"),
        RuleCase("change reason missing", change { $0.reason = nil }, "NullReasonError", 4000095, at: "changeItems[0].reason"),
        RuleCase(
            "change reason unknown", change { $0.reason = .unknown("SIDEGRADE") }, "InvalidChangeReasonError", 4000125,
            at: "changeItems[0].reason"),
        RuleCase(
            "change offer periodCount 13", change { $0.offer = with(offer) { $0.periodCount = 13 } },
            "InvalidOfferPeriodCountError", 4000129, at: "changeItems[0].offer.periodCount"),
        RuleCase(
            "remove SKU missing", with(Valid.addItem) { $0.removeItems = [.init()] }, "NullSKUError", 4000105,
            at: "removeItems[0].SKU"),
        RuleCase(
            "remove SKU 129", with(Valid.addItem) { $0.removeItems = [.init(sku: text(129))] }, "SKULengthExceededError",
            4000087, at: "removeItems[0].SKU"),
    ]

    static let prices: [RuleCase] = [
        RuleCase(
            "add prorated negative", add { $0.proratedPrice = -1 }, "NegativeProratedPriceError", 4000091,
            at: "addItems[0].proratedPrice"),
        RuleCase(
            "add prorated 1.995", add { $0.proratedPrice = 1995 }, "InvalidProratedPriceError", 4000151,
            at: "addItems[0].proratedPrice"),
        RuleCase(
            "add prorated with offer", add { ($0.proratedPrice, $0.offer) = (1990, offer) }, "MultiplePricesError", 4000150,
            at: "addItems[0].proratedPrice"),
        RuleCase(
            "change prorated with offer",
            with(Valid.upgrade) { ($0.changeItems![0].proratedPrice, $0.changeItems![0].offer) = (1990, offer) },
            "MultiplePricesError", 4000150, at: "changeItems[0].proratedPrice"),
        RuleCase(
            "add prorated over the price", add { $0.proratedPrice = 4991 }, "InvalidProratedPriceError", 4000151,
            at: "addItems[0].proratedPrice"),
        RuleCase(
            "change prorated over the price",
            with(Valid.upgrade) { $0.changeItems![0].proratedPrice = 99991 }, "InvalidProratedPriceError", 4000151,
            at: "changeItems[0].proratedPrice"),
        RuleCase(
            "change prorated effective later", change { $0.proratedPrice = 1990 },
            "InvalidProratedPriceForChangeItemWithEffectiveLaterError", 4000222, at: "changeItems[0].proratedPrice"),
    ]

    static let crossField: [RuleCase] = [
        RuleCase(
            "no change at all",
            with(Valid.addItem) { ($0.descriptors, $0.addItems) = (nil, nil) }, "OneItemNeededInModifyError", 4000063, at: ""),
        RuleCase("addItems empty", with(Valid.addItem) { $0.addItems = [] }, "EmptyAddChangeItemsError", 4000139, at: "addItems"),
        RuleCase(
            "changeItems empty", with(Valid.addItem) { $0.changeItems = [] }, "EmptyAddChangeItemsError", 4000139,
            at: "changeItems"),
        RuleCase(
            "removeItems empty", with(Valid.addItem) { $0.removeItems = [] }, "AtLeastOneItemError", 4000160, at: "removeItems"),
        RuleCase(
            "add and remove one SKU", with(Valid.addItem) { $0.removeItems = [.init(sku: "NEWS_CHANNELS")] },
            "MultipleOperationsOnSingleSKUError", 4000143, at: "removeItems[0].SKU"),
        RuleCase(
            "change and remove one SKU", with(Valid.downgrade) { $0.removeItems = [.init(sku: "ANNES_PLATINUM_TIER_1M")] },
            "MultipleOperationsOnSingleSKUError", 4000143, at: "removeItems[0].SKU"),
        RuleCase(
            "add the new SKU of a change",
            with(Valid.downgrade) { $0.addItems = [with(Valid.addItem.addItems![0]) { $0.sku = "ANNES_GOLD_TIER_1M" }] },
            "MultipleOperationsOnSingleSKUError", 4000143, at: "changeItems[0].SKU"),
        RuleCase(
            "two changes of one item",
            with(Valid.downgrade) { $0.changeItems! += [with(Valid.downgrade.changeItems![0]) { $0.sku = "X" }] },
            "ItemCannotBeSpecifiedMultipleTimesError", 4000194, at: "changeItems[1].currentSKU"),
        RuleCase(
            "one SKU removed twice",
            with(Valid.addItem) { ($0.addItems, $0.removeItems) = (nil, [.init(sku: "A"), .init(sku: "A")]) },
            "ItemCannotBeSpecifiedMultipleTimesError", 4000194, at: "removeItems[1].SKU"),
        RuleCase(
            "period change retaining cycle", with(Valid.upgrade) { $0.retainBillingCycle = true },
            "PeriodResetWithRetainBillingCycleError", 4000141, at: "retainBillingCycle"),
        RuleCase(
            "period change without changeItems", with(Valid.upgrade) { $0.changeItems = nil },
            "MissingUpdatedItemsWithPeriodChangeError", 4000140, at: "changeItems"),
        RuleCase(
            "cycle reset with change later", with(Valid.downgrade) { $0.retainBillingCycle = false },
            "BillingCycleResetWithEffectiveLaterError", 4000148, at: "changeItems[0].effective"),
        RuleCase(
            "cycle reset with descriptors later", with(Valid.downgrade) { $0.retainBillingCycle = false },
            "BillingCycleResetWithEffectiveLaterError", 4000148, at: "descriptors.effective"),
        RuleCase(
            "immediate period change, later item", with(Valid.upgrade) { $0.changeItems![0].effective = .nextBillCycle },
            "PeriodChangeImmediateWithEffectiveAtNextBillingCycleError", 4000149, at: "changeItems[0].effective"),
        RuleCase(
            "later period change, added item",
            with(Valid.upgrade) {
                $0.periodChange?.effective = .nextBillCycle
                $0.addItems = Valid.addItem.addItems
            },
            "PeriodChangeEffectiveConflictError", 4000142, at: "addItems[0]"),
        RuleCase(
            "later period change, immediate change", with(Valid.upgrade) { $0.periodChange?.effective = .nextBillCycle },
            "PeriodChangeEffectiveConflictError", 4000142, at: "changeItems[0].effective"),
    ]

    @Test(arguments: fields + prices + crossField)
    func reportsAppleError(_ rule: RuleCase) {
        #expect(rule.isReported, "got \(rule.errors)")
    }

    @Test func validVariantsPass() {
        let valid = [
            Self.add { $0.proratedPrice = 1990 },
            Self.add { $0.offer = Self.offer },
            with(Valid.upgrade) { $0.changeItems![0].proratedPrice = 50_000 },
            // A period change at the next bill cycle keeps the current cycle to its end.
            with(Valid.upgrade) {
                $0.retainBillingCycle = true
                $0.periodChange?.effective = .nextBillCycle
                $0.descriptors?.effective = .nextBillCycle
                $0.changeItems![0].effective = .nextBillCycle
            },
            Self.change { ($0.sku, $0.reason, $0.offer) = ("ANNES_PLATINUM_TIER_1M", .applyOffer, Self.offer) },
            with(Valid.addItem) { $0.currency = nil },
            with(Valid.addItem) { ($0.descriptors, $0.addItems) = (.init(effective: .immediately, displayName: "Pass"), nil) },
        ]
        for request in valid {
            #expect(AdvancedCommerceValidator.validate(request) == [], "\(request)")
        }
    }

    /// Alone, a request without a currency cannot be checked for decimals (`LiveValidator`
    /// checks them in the subscription's currency); a prorated price equal to the price passes.
    @Test func withoutCurrencyDecimalsAreNotChecked() {
        let request = with(Valid.addItem) {
            $0.currency = nil
            $0.addItems![0].price = 4995
        }
        #expect(AdvancedCommerceValidator.validate(request) == [])
        #expect(AdvancedCommerceValidator.validate(with(Valid.addItem) { $0.addItems![0].proratedPrice = 4990 }) == [])
    }
}
