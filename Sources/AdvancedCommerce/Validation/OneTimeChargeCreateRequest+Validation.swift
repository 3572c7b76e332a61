extension OneTimeChargeCreateRequest {
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        let currency = report.checkCreateFields(
            version: version, operation: operation, expected: Self.expectedOperation, requestInfo: requestInfo,
            currency: currency, taxCode: taxCode, storefront: storefront)
        if let token = requestInfo?.consistencyToken, !token.isEmpty {  // empty: said by checkRequestInfo
            report.fail(.invalidConsistencyToken, "requestInfo.consistencyToken", "A one-time charge has none: omit it.")
        }
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
