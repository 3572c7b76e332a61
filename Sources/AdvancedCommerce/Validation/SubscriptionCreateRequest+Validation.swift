extension SubscriptionCreateRequest {
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        report.checkEnvelope(version: version, operation: operation, expected: Self.expectedOperation)
        report.checkRequestInfo(requestInfo)
        let currency = report.checkCurrency(currency, required: true)
        report.checkTaxCode(taxCode, required: true)
        report.checkStorefront(storefront)
        if let descriptors {
            report.checkDisplayName(descriptors.displayName, field: "descriptors.displayName")
            report.checkDescription(descriptors.description, field: "descriptors.description")
        } else {
            report.fail(.nullDescriptors, "descriptors")
        }
        report.checkPeriod(period, field: "period")
        report.checkTransactionId(
            previousTransactionId, field: "previousTransactionId", null: nil, invalid: .invalidPreviousTransactionID)
        switch items {
        case nil: report.fail(.nullItems, "items")
        case let items? where items.isEmpty: report.fail(.atLeastOneItem, "items")
        case let items?:
            for (index, item) in items.enumerated() {
                report.checkCreateItem(item, field: path("items", index), currency: currency)
            }
            report.checkDuplicateSKUs(items.map(\.sku), list: "items")
        }
        return report.errors
    }
}

extension ValidationReport {
    mutating func checkCreateItem(_ item: SubscriptionCreateItem, field: String, currency: String?) {
        checkSKU(item.sku, field: path(field, "SKU"))
        checkDisplayName(item.displayName, field: path(field, "displayName"))
        checkDescription(item.description, field: path(field, "description"))
        checkPrice(item.price, field: path(field, "price"), currency: currency)
        checkOffer(item.offer, field: path(field, "offer"), itemPrice: item.price, currency: currency)
    }
}
