/// How many ids one customer may be known by, and whether joining two ids stays within it.
///
/// RevenueCat documents no limit. RevenueDot keeps one because every id is in the customer's
/// stored document and in every event sent for it, and the public key, which ships inside every
/// copy of the app, may join ids (`POST /v1/subscribers/{id}/alias`): without a limit, one
/// client could make a customer's every write and webhook as large as it liked. A customer
/// reaches it only by being joined to a thousand others.
public enum CustomerIdCap {
    /// Ids a customer may be known by, its own included.
    public static let maximumIds = 1_000

    /// Whether making `named` and `otherNamed` one customer would leave it known by more than
    /// `maximumIds` ids, given the customers each names as stored (nil: none yet, the name
    /// alone). Two names of one customer already join nothing, whatever it holds.
    public static func refusesJoining(
        _ customer: CustomerState?, named: String, _ other: CustomerState?, otherNamed: String
    ) -> Bool {
        if let customer, customer.appUserId == other?.appUserId { return false }
        let ids = Set((customer?.aliases ?? []) + (other?.aliases ?? []) + [named, otherNamed])
        return ids.count > maximumIds
    }
}
