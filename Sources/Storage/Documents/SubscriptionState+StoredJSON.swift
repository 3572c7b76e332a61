import AppStore
import JSON
import Subscriptions

extension SubscriptionState: SortedJSONWritable {
    /// Written member by member: a purchase's state is encoded on every notification it gets.
    /// Registers that are rarely set go through `JSONValueEncoder`; `StoredDocumentTests` holds
    /// the whole equal to `Codable`.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.object("accessRestorations", accessRestorations) { writer, value in writer.string(value) }
        writer.optional("autoRenewEnabled", autoRenewEnabled)
        writer.optional("autoRenewProductId", autoRenewProductId)
        try writer.encoded("billingIssue", billingIssue)
        if let earlierPeriods {
            try writer.object("earlierPeriods", earlierPeriods) { writer, value in try value.writeSortedJSON(into: &writer) }
        }
        if let endedGracePeriods {
            writer.object("endedGracePeriods", endedGracePeriods) { writer, value in writer.integer(value) }
        }
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

extension SubscriptionState: JSONValueReadable {
    /// Read member by member: a purchase's state is read back on every notification it gets.
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            originalTransactionId: try fields.string("originalTransactionId"),
            journal: try PurchaseJournal(json: fields.value("journal")))
        transactions = try fields.object("transactions", JWSTransactionDecodedPayload.init(json:))
        if fields.present("earlierPeriods") != nil {
            earlierPeriods = try fields.object("earlierPeriods", EarlierPeriod.init(json:))
        }
        renewalInfo = try fields.present("renewalInfo").map(JWSRenewalInfoDecodedPayload.init(json:))
        autoRenewEnabled = try fields.optionalBool("autoRenewEnabled")
        autoRenewProductId = try fields.optionalString("autoRenewProductId")
        unsubscribeDetectedAtMs = try fields.optionalInt64("unsubscribeDetectedAtMs")
        billingIssue = try fields.optionalDecoded("billingIssue", BillingIssue.self)
        expiredNotice = try fields.optionalDecoded("expiredNotice", ExpiredNotice.self)
        if fields.present("endedGracePeriods") != nil {
            endedGracePeriods = try fields.object("endedGracePeriods") { try JSONValueDecoder().decode(Int64.self, from: $0) }
        }
        priceIncrease = try fields.optionalDecoded("priceIncrease", PriceIncrease.self)
        refunds = try fields.object("refunds") { try JSONValueDecoder().decode(Revocation.self, from: $0) }
        revocation = try fields.optionalDecoded("revocation", Revocation.self)
        accessRestorations = try fields.object("accessRestorations") { try JSONValueDecoder().decode(String.self, from: $0) }
        redeemedOffer = try fields.optionalDecoded("redeemedOffer", Offer.self)
        newestSignedDateMs = try fields.optionalInt64("newestSignedDateMs")
    }
}
