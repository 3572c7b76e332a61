extension SubscriptionReactivateInAppRequest {
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        report.checkEnvelope(version: version, operation: operation, expected: Self.expectedOperation)
        report.checkRequestInfo(requestInfo)
        report.checkTransactionId(
            transactionId, field: "transactionId", null: .nullTransactionId, invalid: .invalidTransactionId)
        report.checkStorefront(storefront)
        if let items {
            // Optional, but Apple's libraries reject an empty list when it is present.
            if items.isEmpty { report.fail(.atLeastOneItem, "items") }
            for (index, item) in items.enumerated() {
                report.checkSKU(item.sku, field: path(path("items", index), "SKU"))
            }
            report.checkDuplicateSKUs(items.map(\.sku), list: "items")
        }
        return report.errors
    }
}
