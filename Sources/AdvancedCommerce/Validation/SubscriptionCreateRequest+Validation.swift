extension SubscriptionCreateRequest {
    public func validationErrors() -> [ValidationError] {
        var report = ValidationReport()
        let currency = report.checkCreateFields(
            version: version, operation: operation, expected: Self.expectedOperation, requestInfo: requestInfo,
            currency: currency, taxCode: taxCode, storefront: storefront)
        if let descriptors {
            report.checkDisplayName(descriptors.displayName, field: "descriptors.displayName")
            report.checkDescription(descriptors.description, field: "descriptors.description")
        } else {
            report.fail(.nullDescriptors, "descriptors")
        }
        report.checkPeriod(period, field: "period")
        if previousTransactionId == nil, let token = requestInfo?.consistencyToken, !token.isEmpty {
            report.fail(
                .invalidConsistencyToken, "requestInfo.consistencyToken",
                "Send it only when resubscribing (with previousTransactionId); omit it for a new subscription.")
        }
        report.checkTransactionId(
            previousTransactionId, field: "previousTransactionId", null: nil, invalid: .invalidPreviousTransactionID)
        switch items {
        case nil: report.fail(.nullItems, "items")
        case let items? where items.isEmpty: report.fail(.atLeastOneItem, "items")
        case let items?:
            for (index, item) in items.enumerated() {
                report.checkOfferedItem(item, field: path("items", index), currency: currency)
                // The sheet shows the subscription's name over each item's (tier or add-on).
                if let name = item.displayName, !name.isEmpty, name == descriptors?.displayName {
                    report.fail(
                        .invalidDisplayName, path(path("items", index), "displayName"),
                        "Must differ from descriptors.displayName, the subscription's name.")
                }
            }
            report.checkDuplicateSKUs(items.map(\.sku), list: "items")
        }
        return report.errors
    }
}

/// An item sold with a price and an optional offer: what a created subscription and an added
/// item have in common, and are checked alike.
protocol OfferedItem {
    var sku: String? { get }
    var displayName: String? { get }
    var description: String? { get }
    var price: Int64? { get }
    var offer: Offer? { get }
}

extension SubscriptionCreateItem: OfferedItem {}
extension SubscriptionModifyAddItem: OfferedItem {}

extension ValidationReport {
    mutating func checkOfferedItem(_ item: some OfferedItem, field: String, currency: String?) {
        checkSKU(item.sku, field: path(field, "SKU"))
        checkDisplayName(item.displayName, field: path(field, "displayName"))
        checkDescription(item.description, field: path(field, "description"))
        checkPrice(item.price, field: path(field, "price"), currency: currency)
        checkOffer(item.offer, field: path(field, "offer"), itemPrice: item.price, currency: currency)
    }
}
