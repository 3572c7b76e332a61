import AppStore

extension SubscriptionState: SortedJSONWritable {
    /// Written member by member: a purchase's state is encoded on every notification it gets.
    /// Registers that are rarely set go through `JSONValueEncoder`; `SortedJSONStateTests` holds
    /// the whole equal to `Codable`.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.object("accessRestorations", accessRestorations) { writer, value in writer.string(value) }
        writer.optional("autoRenewEnabled", autoRenewEnabled)
        writer.optional("autoRenewProductId", autoRenewProductId)
        try writer.encoded("billingIssue", billingIssue)
        try writer.encoded("expiredNotice", expiredNotice)
        writer.key("journal")
        try journal.writeSortedJSON(into: &writer)
        writer.optional("newestSignedDateMs", newestSignedDateMs)
        writer.member("originalTransactionId", originalTransactionId)
        try writer.encoded("priceIncrease", priceIncrease)
        try writer.encoded("redeemedOffer", redeemedOffer)
        try writer.object("refunds", refunds) { writer, value in try writer.encoded(value) }
        try writer.optional("renewalInfo", renewalInfo)
        try writer.encoded("revocation", revocation)
        try writer.object("transactions", transactions) { writer, value in try value.writeSortedJSON(into: &writer) }
        writer.optional("unsubscribeDetectedAtMs", unsubscribeDetectedAtMs)
        writer.endObject()
    }
}
