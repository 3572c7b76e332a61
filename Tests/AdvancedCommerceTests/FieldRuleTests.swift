import AdvancedCommerce
import Testing

/// Required fields, lengths, codes and enumerations of the create and reactivate requests.
@Suite struct FieldRuleTests {
    static let oneTime: [RuleCase] = [
        RuleCase("currency missing", with(Valid.oneTime) { $0.currency = nil }, "NullCurrencyError", 4000098, at: "currency"),
        RuleCase(
            "currency unknown", with(Valid.oneTime) { $0.currency = "USX" }, "InvalidCurrencyError", 4000053, at: "currency"),
        RuleCase("taxCode missing", with(Valid.oneTime) { $0.taxCode = nil }, "NullTaxCodeError", 4000099, at: "taxCode"),
        RuleCase("taxCode empty", with(Valid.oneTime) { $0.taxCode = "" }, "InvalidTaxProductCodeError", 4000127, at: "taxCode"),
        RuleCase(
            "taxCode not of Apple's form", with(Valid.oneTime) { $0.taxCode = "garbage tax code" },
            "InvalidTaxProductCodeError", 4000127, at: "taxCode"),
        RuleCase(
            "taxCode of a subscription", with(Valid.oneTime) { $0.taxCode = "C003-00-1" }, "InvalidTaxProductCodeError",
            4000127, at: "taxCode"),
        RuleCase(
            "storefront alpha-2", with(Valid.oneTime) { $0.storefront = "US" }, "InvalidStorefrontError", 4000028,
            at: "storefront"),
        RuleCase("item missing", with(Valid.oneTime) { $0.item = nil }, "NullItemError", 4000102, at: "item"),
        RuleCase("SKU missing", with(Valid.oneTime) { $0.item?.sku = nil }, "NullSKUError", 4000105, at: "item.SKU"),
        RuleCase("SKU empty", with(Valid.oneTime) { $0.item?.sku = "" }, "InvalidSKUError", 4000122, at: "item.SKU"),
        RuleCase("SKU 129", with(Valid.oneTime) { $0.item?.sku = text(129) }, "SKULengthExceededError", 4000087, at: "item.SKU"),
        RuleCase(
            "displayName missing", with(Valid.oneTime) { $0.item?.displayName = nil }, "NullDisplayNameError", 4000106,
            at: "item.displayName"),
        RuleCase(
            "displayName empty", with(Valid.oneTime) { $0.item?.displayName = "" }, "InvalidDisplayNameError", 4000118,
            at: "item.displayName"),
        RuleCase(
            "displayName 31", with(Valid.oneTime) { $0.item?.displayName = text(31) }, "DisplayNameLengthExceededError",
            4000089, at: "item.displayName"),
        RuleCase(
            "displayName of 8 flags: 8 characters, 32 UTF-16 units",
            with(Valid.oneTime) { $0.item?.displayName = String(repeating: "\u{1F1FA}\u{1F1F8}", count: 8) },
            "DisplayNameLengthExceededError", 4000089, at: "item.displayName"),
        RuleCase(
            "description missing", with(Valid.oneTime) { $0.item?.description = nil }, "NullDescriptionError", 4000107,
            at: "item.description"),
        RuleCase(
            "description empty", with(Valid.oneTime) { $0.item?.description = "" }, "InvalidDescriptionError", 4000119,
            at: "item.description"),
        RuleCase(
            "description 46", with(Valid.oneTime) { $0.item?.description = text(46) }, "DescriptionLengthExceededError",
            4000088, at: "item.description"),
        RuleCase("price missing", with(Valid.oneTime) { $0.item?.price = nil }, "NullPriceError", 4000109, at: "item.price"),
        RuleCase("price negative", with(Valid.oneTime) { $0.item?.price = -10 }, "NegativePriceError", 4000086, at: "item.price"),
        RuleCase(
            "displayName with NUL", with(Valid.oneTime) { $0.item?.displayName = "Book\u{0}" }, "InvalidDisplayNameError",
            4000118, at: "item.displayName"),
        RuleCase(
            "description with a C1 control", with(Valid.oneTime) { $0.item?.description = "a\u{85}b" },
            "InvalidDescriptionError", 4000119, at: "item.description"),
        RuleCase(
            "SKU with a tab", with(Valid.oneTime) { $0.item?.sku = "BOOK\t1" }, "InvalidSKUError", 4000122, at: "item.SKU"),
        RuleCase(
            "consistencyToken on a one-time charge", with(Valid.oneTime) { $0.requestInfo?.consistencyToken = "1.2.3" },
            "InvalidConsistencyTokenError", 4000082, at: "requestInfo.consistencyToken"),
    ]

    static let create: [RuleCase] = [
        RuleCase(
            "descriptors missing", with(Valid.create) { $0.descriptors = nil }, "NullDescriptorsError", 4000103, at: "descriptors"
        ),
        RuleCase(
            "descriptors.displayName missing", with(Valid.create) { $0.descriptors?.displayName = nil }, "NullDisplayNameError",
            4000106, at: "descriptors.displayName"),
        RuleCase(
            "descriptors.description 46", with(Valid.create) { $0.descriptors?.description = text(46) },
            "DescriptionLengthExceededError", 4000088, at: "descriptors.description"),
        RuleCase("period missing", with(Valid.create) { $0.period = nil }, "NullPeriodError", 4000104, at: "period"),
        RuleCase(
            "taxCode of a one-time charge", with(Valid.create) { $0.taxCode = "C003-00-2" }, "InvalidTaxProductCodeError",
            4000127, at: "taxCode"),
        RuleCase(
            "period offer-only value", with(Valid.create) { $0.period = .unknown("P3D") }, "InvalidRenewalPeriodError", 4000130,
            at: "period"),
        RuleCase("items missing", with(Valid.create) { $0.items = nil }, "NullItemsError", 4000101, at: "items"),
        RuleCase("items empty", with(Valid.create) { $0.items = [] }, "AtLeastOneItemError", 4000160, at: "items"),
        RuleCase(
            "same SKU twice", with(Valid.create) { $0.items?[1].sku = "LIVE_SPORTS" }, "ItemCannotBeSpecifiedMultipleTimesError",
            4000194, at: "items[1].SKU"),
        RuleCase(
            "item SKU 129", with(Valid.create) { $0.items?[0].sku = text(129) }, "SKULengthExceededError", 4000087,
            at: "items[0].SKU"),
        RuleCase(
            "previousTransactionId not digits", with(Valid.create) { $0.previousTransactionId = "abc" },
            "InvalidPreviousTransactionIDError", 4000096, at: "previousTransactionId"),
        RuleCase(
            "item named as the subscription", with(Valid.create) { $0.items?[1].displayName = "Streaming Pass" },
            "InvalidDisplayNameError", 4000118, at: "items[1].displayName"),
        RuleCase(
            "consistencyToken on a new subscription", with(Valid.create) { $0.requestInfo?.consistencyToken = "1.2.3" },
            "InvalidConsistencyTokenError", 4000082, at: "requestInfo.consistencyToken"),
    ]

    static let reactivate: [RuleCase] = [
        RuleCase(
            "transactionId missing", with(Valid.reactivate) { $0.transactionId = nil }, "NullTransactionIdError", 4000085,
            at: "transactionId"),
        RuleCase(
            "transactionId not digits", with(Valid.reactivate) { $0.transactionId = "tx-1" }, "InvalidTransactionIdError",
            4000006, at: "transactionId"),
        RuleCase("items empty", with(Valid.reactivate) { $0.items = [] }, "AtLeastOneItemError", 4000160, at: "items"),
        RuleCase(
            "item SKU missing", with(Valid.reactivate) { $0.items?[0].sku = nil }, "NullSKUError", 4000105, at: "items[0].SKU"),
        RuleCase(
            "item SKU 129", with(Valid.reactivate) { $0.items?[0].sku = text(129) }, "SKULengthExceededError", 4000087,
            at: "items[0].SKU"),
        RuleCase(
            "same SKU twice", with(Valid.reactivate) { $0.items = [.init(sku: "A"), .init(sku: "A")] },
            "ItemCannotBeSpecifiedMultipleTimesError", 4000194, at: "items[1].SKU"),
        RuleCase(
            "storefront unknown", with(Valid.reactivate) { $0.storefront = "XXX" }, "InvalidStorefrontError", 4000028,
            at: "storefront"),
    ]

    @Test(arguments: oneTime + create + reactivate)
    func reportsAppleError(_ rule: RuleCase) {
        #expect(rule.isReported, "got \(rule.errors)")
    }

    /// Limits count UTF-16 code units, the strictest count among Apple's libraries: 128/30/45
    /// precomposed letters pass; the same Characters spelled with a combining accent (two units
    /// each) are over from half the limit on.
    @Test func limitsCountUTF16CodeUnits() {
        let precomposed: Character = "\u{E9}"
        let atLimit = with(Valid.oneTime) {
            $0.item = OneTimeChargeItem(
                sku: text(128, precomposed), displayName: text(30, precomposed), description: text(45, precomposed),
                price: 4990)
        }
        #expect(AdvancedCommerceValidator.validate(atLimit) == [])
        let combining = with(Valid.oneTime) { $0.item?.displayName = text(16, "e\u{301}") }
        #expect(text(16, "e\u{301}").count == 16)
        #expect(AdvancedCommerceValidator.validate(combining).map(\.code) == [4_000_089])
    }

    /// A resubscription sends the consistency token Apple gave the lapsed subscription.
    @Test func aResubscriptionMaySendItsConsistencyToken() {
        let resubscribe = with(Valid.create) {
            $0.previousTransactionId = "12345"
            $0.requestInfo?.consistencyToken = "1.12345.932c6903"
        }
        #expect(AdvancedCommerceValidator.validate(resubscribe) == [])
    }

    /// Codes of Apple's table not in its examples pass, as does Kosovo's storefront.
    @Test func anyCodeOfApplesFormAndKosovoPass() {
        #expect(AdvancedCommerceValidator.validate(with(Valid.create) { $0.taxCode = "S021-08-1" }) == [])
        // An attribute's codes have a longer middle part (Apple's table: live TV, audiobooks, books).
        for code in ["S021-0308-1", "S001-03050614-1"] {
            #expect(AdvancedCommerceValidator.validate(with(Valid.create) { $0.taxCode = code }) == [], "\(code)")
        }
        #expect(AdvancedCommerceValidator.validate(with(Valid.oneTime) { $0.taxCode = "S007-010409-2" }) == [])
        #expect(AdvancedCommerceValidator.validate(with(Valid.create) { $0.taxCode = "S021-030-1" }) != [])
        #expect(AdvancedCommerceValidator.validate(with(Valid.oneTime) { $0.taxCode = "C025-00-2" }) == [])
        #expect(AdvancedCommerceValidator.validate(with(Valid.oneTime) { $0.storefront = "XKS" }) == [])
    }

    @Test func reactivateWithoutItemsIsValid() {
        #expect(AdvancedCommerceValidator.validate(with(Valid.reactivate) { $0.items = nil }) == [])
    }
}
