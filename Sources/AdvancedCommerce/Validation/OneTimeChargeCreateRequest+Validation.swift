extension OneTimeChargeCreateRequest {
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        report.checkEnvelope(version: version, operation: operation, expected: Self.expectedOperation)
        report.checkRequestInfo(requestInfo)
        let currency = report.checkCurrency(currency, required: true)
        report.checkTaxCode(taxCode, required: true)
        report.checkStorefront(storefront)
        if let item {
            report.checkSKU(item.sku, field: "item.SKU")
            report.checkDisplayName(item.displayName, field: "item.displayName")
            report.checkDescription(item.description, field: "item.description")
            report.checkPrice(item.price, field: "item.price", currency: currency)
        } else {
            report.fail(.nullItem, "item")
        }
        return report.errors
    }
}
