import AppStore
import JSON
import Subscriptions

extension EarlierPeriod: SortedJSONWritable {
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("currency", currency)
        writer.optional("expiresDate", expiresDate)
        writer.member("periodType", periodType.rawValue)
        writer.optional("price", price)
        writer.optional("productId", productId)
        writer.optional("purchaseDate", purchaseDate)
        writer.optional("signedDate", signedDate)
        writer.optional("transactionId", transactionId)
        writer.endObject()
    }
}

extension EarlierPeriod: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            transactionId: try fields.optionalString("transactionId"), purchaseDate: try fields.optionalInt64("purchaseDate"),
            expiresDate: try fields.optionalInt64("expiresDate"), signedDate: try fields.optionalInt64("signedDate"),
            periodType: try fields.closed("periodType", PeriodType.self), productId: try fields.optionalString("productId"),
            price: try fields.optionalInt64("price"), currency: try fields.optionalString("currency"))
    }
}

extension EarlierProduct: SortedJSONWritable {
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("currency", currency)
        writer.optional("expiresDateMs", expiresDateMs)
        writer.optional("gracePeriodEndedMs", gracePeriodEndedMs)
        writer.member("periodType", periodType.rawValue)
        writer.optional("priceMilliunits", priceMilliunits)
        writer.member("productId", productId)
        writer.optional("purchaseDateMs", purchaseDateMs)
        writer.optional("refundedAtMs", refundedAtMs)
        writer.optional("transactionId", transactionId)
        writer.endObject()
    }
}
