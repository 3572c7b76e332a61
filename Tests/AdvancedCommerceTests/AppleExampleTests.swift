import AdvancedCommerce
import Testing

@Suite struct AppleExampleTests {
    @Test(arguments: [
        AppleExamples.modifyUpgradeWithPeriodChange, AppleExamples.modifyAddItem,
        AppleExamples.modifyRemoveItem, AppleExamples.modifyDowngrade,
    ])
    func modifyExamplesDecodeAndValidateClean(json: String) throws {
        let request = try AppleExamples.decode(json, as: SubscriptionModifyInAppRequest.self)
        #expect(request.operation == .modifySubscription)
        #expect(AdvancedCommerceValidator.validate(request) == [])
    }

    @Test func upgradeExampleDecodesEveryField() throws {
        let request = try AppleExamples.decode(
            AppleExamples.modifyUpgradeWithPeriodChange, as: SubscriptionModifyInAppRequest.self)
        #expect(request.version == "1")
        #expect(request.retainBillingCycle == false)
        #expect(request.periodChange == SubscriptionModifyPeriodChange(effective: .immediately, period: .oneYear))
        let item = try #require(request.changeItems?.first)
        #expect(item.currentSKU == "ANNES_GOLD_TIER_1M")
        #expect(item.sku == "ANNES_PLATINUM_TIER_1Y")
        #expect(item.price == 99990)
        #expect(item.reason == .upgrade)
    }

    /// Apple's example removes an item with nothing else, although `RemoveItemsWithoutAddOrChangeItemsError`
    /// suggests that is invalid; the published example wins.
    @Test func removeOnlyIsValid() throws {
        let request = try AppleExamples.decode(AppleExamples.modifyRemoveItem, as: SubscriptionModifyInAppRequest.self)
        #expect(!AdvancedCommerceValidator.validate(request).contains { $0.code == 4000144 })
        #expect(request.removeItems == [SubscriptionModifyRemoveItem(sku: "LIVE_SPORTS")])
    }

    @Test func oneTimeChargeExampleIsValid() throws {
        let request = try AppleExamples.decode(AppleExamples.oneTimeCharge, as: OneTimeChargeCreateRequest.self)
        #expect(request.item?.sku == "BOOK_SHERLOCK_HOLMES")
        #expect(AdvancedCommerceValidator.validate(request) == [])
    }

    @Test func subscriptionCreateExampleIsValid() throws {
        let request = try AppleExamples.decode(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
        #expect(request.items?.last?.offer == Offer(period: .oneMonth, periodCount: 3, price: 2990, reason: .acquisition))
        #expect(AdvancedCommerceValidator.validate(request) == [])
    }

    @Test func subscriptionReactivateExampleIsValid() throws {
        let request = try AppleExamples.decode(
            AppleExamples.subscriptionReactivate, as: SubscriptionReactivateInAppRequest.self)
        #expect(request.items == [SubscriptionReactivateItem(sku: "LIVE_SPORTS")])
        #expect(AdvancedCommerceValidator.validate(request) == [])
    }

    @Test func checkThrowsTheFirstError() throws {
        var request = try AppleExamples.decode(AppleExamples.modifyAddItem, as: SubscriptionModifyInAppRequest.self)
        #expect(throws: Never.self) { try AdvancedCommerceValidator.check(request) }
        request.version = nil
        #expect(throws: ValidationError(.nullVersion, field: "version")) {
            try AdvancedCommerceValidator.check(request)
        }
    }
}
