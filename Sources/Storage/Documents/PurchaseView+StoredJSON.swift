import AppStore
import JSON
import Subscriptions

extension PurchaseView: SortedJSONWritable {
    /// Written member by member: a purchase's view is stored on every notification it gets.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("accessEndsAtMs", accessEndsAtMs)
        try writer.encoded("advancedCommerce", advancedCommerce)
        writer.optional("billingIssueDetectedAtMs", billingIssueDetectedAtMs)
        writer.optional("currency", currency)
        if let earlierProducts {
            try writer.array("earlierProducts", earlierProducts) { writer, product in try product.writeSortedJSON(into: &writer) }
        }
        writer.optional("environment", environment?.rawValue)
        writer.optional("expiresDateMs", expiresDateMs)
        writer.optional("gracePeriodAccessEndsAtMs", gracePeriodAccessEndsAtMs)
        writer.member("id", id)
        writer.member("kind", kind.rawValue)
        writer.optional("lastGracePeriodAccessEndsAtMs", lastGracePeriodAccessEndsAtMs)
        writer.optional("originalPurchaseDateMs", originalPurchaseDateMs)
        writer.optional("ownershipType", ownershipType?.rawValue)
        writer.optional("periodType", periodType?.rawValue)
        writer.optional("priceMilliunits", priceMilliunits)
        writer.optional("productId", productId)
        writer.optional("purchaseDateMs", purchaseDateMs)
        writer.optional("refundedAtMs", refundedAtMs)
        writer.optional("store", store)
        writer.optional("transactionId", transactionId)
        writer.optional("unsubscribeDetectedAtMs", unsubscribeDetectedAtMs)
        writer.endObject()
    }
}
