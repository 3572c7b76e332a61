import AppStore

/// The filters of Get Transaction History (version 2), sent as query parameters.
///
/// https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
public struct TransactionHistoryRequest: Hashable, Sendable {
    /// UNIX ms: transactions purchased at or after it.
    public var startDate: Int64?
    /// UNIX ms: transactions purchased before it.
    public var endDate: Int64?
    public var productIds: [String]
    public var productTypes: [HistoryProductType]
    public var sort: HistorySortOrder?
    public var subscriptionGroupIdentifiers: [String]
    public var inAppOwnershipType: InAppOwnershipType?
    /// Only refunded or revoked transactions (true), or only the others (false).
    public var revoked: Bool?

    public init(
        startDate: Int64? = nil, endDate: Int64? = nil, productIds: [String] = [], productTypes: [HistoryProductType] = [],
        sort: HistorySortOrder? = nil, subscriptionGroupIdentifiers: [String] = [],
        inAppOwnershipType: InAppOwnershipType? = nil, revoked: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query parameters, repeated ones once per value, in Apple's documentation order.
    public var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate))) }
        if let endDate { items.append(("endDate", String(endDate))) }
        items += productIds.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0.rawValue) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
