import AppStore

extension PurchaseJournal: SortedJSONWritable {
    /// Written member by member: the journal is encoded on every notification its purchase gets.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.array("emittedEventIds", emittedEventIds) { writer, id in writer.string(id) }
        try writer.array("facts", facts) { writer, fact in try fact.writeSortedJSON(into: &writer) }
        try writer.array("heldEvents", heldEvents) { writer, event in try event.writeSortedJSON(into: &writer) }
        writer.optional("ownerAppUserId", ownerAppUserId)
        writer.member("transferCount", Int64(transferCount))
        writer.endObject()
    }
}

extension PurchaseFact: SortedJSONWritable {
    /// `source` as synthesized `Codable` writes an enum: `{"notification":{"subtype":…,"type":…}}`
    /// or `{"transactionPosted":{}}`.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("id", id)
        try writer.optional("renewalInfo", renewalInfo)
        writer.member("signedDateMs", signedDateMs)
        writer.key("source")
        writer.beginObject()
        switch source {
        case .notification(let type, let subtype):
            writer.key("notification")
            writer.beginObject()
            writer.optional("subtype", subtype?.rawValue)
            writer.member("type", type.rawValue)
            writer.endObject()
        case .transactionPosted:
            writer.key("transactionPosted")
            writer.beginObject()
            writer.endObject()
        }
        writer.endObject()
        try writer.optional("transaction", transaction)
        writer.endObject()
    }
}
