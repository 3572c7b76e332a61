import AppStore
import JSON
import Subscriptions

extension PurchaseJournal: SortedJSONWritable {
    /// Written member by member: the journal is encoded on every notification its purchase gets.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.array("emittedEventIds", emittedEventIds) { writer, id in writer.string(id) }
        try writer.array("facts", facts) { writer, fact in try fact.writeSortedJSON(into: &writer) }
        try writer.array("heldEvents", heldEvents) { writer, event in try event.writeSortedJSON(into: &writer) }
        writer.optional("ownerAppUserId", ownerAppUserId)
        writer.optional("presentedOfferingId", presentedOfferingId)
        writer.optional("storedHeldEventCount", storedHeldEventCount.map(Int64.init))
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
        case .appleAPI:
            writer.key("appleAPI")
            writer.beginObject()
            writer.endObject()
        }
        writer.endObject()
        try writer.optional("transaction", transaction)
        writer.endObject()
    }
}

extension PurchaseJournal: JSONValueReadable {
    /// Read member by member: the journal is read back on every notification its purchase gets.
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(ownerAppUserId: try fields.optionalString("ownerAppUserId"))
        facts = try fields.array("facts", PurchaseFact.init(json:))
        emittedEventIds = try fields.strings("emittedEventIds")
        heldEvents = try fields.array("heldEvents", Event.init(json:))
        storedHeldEventCount = try fields.optionalInt("storedHeldEventCount")
        transferCount = try fields.int("transferCount")
        presentedOfferingId = try fields.optionalString("presentedOfferingId")
    }
}

extension PurchaseFact: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            id: try fields.string("id"), source: try Source(json: fields.value("source")),
            signedDateMs: try fields.int64("signedDateMs"),
            transaction: try fields.present("transaction").map(JWSTransactionDecodedPayload.init(json:)),
            renewalInfo: try fields.present("renewalInfo").map(JWSRenewalInfoDecodedPayload.init(json:)))
    }
}

extension PurchaseFact.Source {
    /// As synthesized `Decodable` reads an enum: an object with exactly one member that names a
    /// case (members naming none are ignored).
    init(json: JSONValue) throws {
        guard case .object(let all) = json else { throw Self.notOneCase }
        let cases = all.filter { $0.key == "notification" || $0.key == "transactionPosted" || $0.key == "appleAPI" }
        guard cases.count == 1, let (name, payload) = cases.first else { throw Self.notOneCase }
        let fields = try JSONFields(payload, of: Self.self)
        switch name {
        case "notification":
            self = .notification(
                type: NotificationTypeV2.resolve(try fields.string("type")),
                subtype: try fields.optional("subtype", Subtype.self))
        case "appleAPI":
            self = .appleAPI
        default:
            self = .transactionPosted
        }
    }

    private static let notOneCase = DecodingError.typeMismatch(
        Self.self, DecodingError.Context(codingPath: [], debugDescription: "Invalid number of keys found, expected one."))
}
