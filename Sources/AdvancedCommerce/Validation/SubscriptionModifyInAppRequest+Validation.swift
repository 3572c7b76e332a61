import AppStore

extension SubscriptionModifyInAppRequest {
    /// Checks each field, then the rules that relate fields to each other (see `checkModifyRules`).
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        report.checkEnvelope(version: version, operation: operation, expected: Self.expectedOperation)
        report.checkRequestInfo(requestInfo)
        report.checkTransactionId(
            transactionId, field: "transactionId", null: .nullTransactionId, invalid: .invalidTransactionId)
        if retainBillingCycle == nil { report.fail(.nullRetainBillingCycle, "retainBillingCycle") }
        let currency = report.checkCurrency(currency, required: false)
        report.checkStorefront(storefront)
        report.checkTaxCode(taxCode, required: false, forSubscription: true)
        if let descriptors {
            report.checkEffective(descriptors.effective, field: "descriptors.effective")
            report.checkDisplayName(descriptors.displayName, field: "descriptors.displayName", required: false)
            report.checkDescription(descriptors.description, field: "descriptors.description", required: false)
            if descriptors.displayName == nil, descriptors.description == nil {
                report.fail(.atLeastOneOfDisplayNameOrDescription, "descriptors")
            }
        }
        if let periodChange {
            report.checkEffective(periodChange.effective, field: "periodChange.effective")
            report.checkPeriod(periodChange.period, field: "periodChange.period")
        }
        checkItemLists(&report, currency: currency)
        checkModifyRules(&report)
        return report.errors
    }

    // MARK: - Item lists

    private func checkItemLists(_ report: inout ValidationReport, currency: String?) {
        if let addItems {
            if addItems.isEmpty { report.fail(.emptyAddChangeItems, "addItems") }
            for (index, item) in addItems.enumerated() {
                report.checkAddItem(item, field: path("addItems", index), currency: currency)
            }
            report.checkDuplicateSKUs(addItems.map(\.sku), list: "addItems")
        }
        if let changeItems {
            if changeItems.isEmpty { report.fail(.emptyAddChangeItems, "changeItems") }
            for (index, item) in changeItems.enumerated() {
                report.checkChangeItem(item, field: path("changeItems", index), currency: currency)
            }
            report.checkDuplicateSKUs(changeItems.map(\.currentSKU), list: "changeItems", key: "currentSKU")
            report.checkDuplicateSKUs(changeItems.map(\.sku), list: "changeItems")
        }
        if let removeItems {
            // EmptyAddChangeItemsError names only addItems and changeItems; AtLeastOneItemError
            // ("When included, provide at least one item") is Apple's generic error for an empty list.
            if removeItems.isEmpty { report.fail(.atLeastOneItem, "removeItems") }
            for (index, item) in removeItems.enumerated() {
                report.checkSKU(item.sku, field: path(path("removeItems", index), "SKU"))
            }
            report.checkDuplicateSKUs(removeItems.map(\.sku), list: "removeItems")
        }
    }
}

// MARK: - Items

extension ValidationReport {
    mutating func checkAddItem(_ item: SubscriptionModifyAddItem, field: String, currency: String?) {
        checkOfferedItem(item, field: field, currency: currency)
        checkProratedPrice(item.proratedPrice, field: path(field, "proratedPrice"), currency: currency, price: item.price)
        if item.offer != nil, item.proratedPrice != nil {
            fail(.multiplePrices, path(field, "proratedPrice"))
        }
    }

    mutating func checkChangeItem(_ item: SubscriptionModifyChangeItem, field: String, currency: String?) {
        checkSKU(
            item.currentSKU, field: path(field, "currentSKU"), null: .nullCurrentSKU, tooLong: .currentSKULengthExceeded)
        checkSKU(item.sku, field: path(field, "SKU"), null: .nullNewSKU)
        checkDisplayName(item.displayName, field: path(field, "displayName"))
        checkDescription(item.description, field: path(field, "description"))
        checkEffective(item.effective, field: path(field, "effective"))
        checkPrice(item.price, field: path(field, "price"), currency: currency)
        checkOpenEnum(item.reason, field: path(field, "reason"), null: .nullReason, invalid: .invalidChangeReason)
        checkOffer(item.offer, field: path(field, "offer"), itemPrice: item.price, currency: currency)
        checkProratedPrice(item.proratedPrice, field: path(field, "proratedPrice"), currency: currency, price: item.price)
        if item.offer != nil, item.proratedPrice != nil {
            fail(.multiplePrices, path(field, "proratedPrice"))
        }
        // Nothing is charged now for a change that starts at the next cycle, so there is nothing to prorate.
        if item.proratedPrice != nil, item.effective == .nextBillCycle {
            fail(.invalidProratedPriceForChangeItemWithEffectiveLater, path(field, "proratedPrice"))
        }
    }
}
