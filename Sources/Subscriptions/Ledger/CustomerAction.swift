/// What the app's backend or the app did to a customer through the API: reducer inputs of their
/// own (`Ledger.Input.customerAction`), kept so `replay` applies them again.
public enum CustomerAction: Codable, Hashable, Sendable {
    /// The API was asked about the customer (`GET /v1/subscribers/{id}`): created if unknown, as
    /// RevenueCat creates it.
    case seen(appUserId: String)
    /// Two ids are one customer (`POST /v1/subscribers/{id}/alias`): merged, without TRANSFER.
    case aliased(appUserId: String, newAppUserId: String)
    /// The app logged its user in (`POST /v1/subscribers/identify`, the SDK's `logIn`): from
    /// `appUserId` to `newAppUserId`, merged only as RevenueCat's `logIn` merges (`Ledger.logIn`).
    case loggedIn(appUserId: String, newAppUserId: String)
    /// The app or its backend set attributes (`POST /v1/subscribers/{id}/attributes`), already
    /// checked; a null or empty value deletes.
    case attributesSet(appUserId: String, [String: SubscriberAttribute])
    /// The app posted its verified AppTransaction: the app's first version and download date
    /// (RevenueCat's `original_application_version` and `original_purchase_date`).
    case appTransactionPosted(appUserId: String, originalApplicationVersion: String?, originalPurchaseDateMs: Int64?)
    /// The app's backend granted an entitlement for a time (`POST .../entitlements/{id}/promotional`).
    case promotionalGranted(appUserId: String, PromotionalGrant)
    /// The app's backend took back every grant of an entitlement (`.../revoke_promotionals`).
    case promotionalsRevoked(appUserId: String, entitlementId: String)
    /// A data-deletion request (`DELETE /v1/subscribers/{id}`): the customer's identity is
    /// erased and its purchases are left with no owner.
    case deleted(appUserId: String)
    /// The app's backend chose the customer's current offering
    /// (`POST /v1/subscribers/{id}/offerings/{offering}/override`), or, nil, removed its choice
    /// (`DELETE .../offerings/override`).
    case offeringOverridden(appUserId: String, offeringId: String?)

    /// The ids the action names, to load (with the purchases they own).
    public var customerIds: [String] {
        switch self {
        case .seen(let id), .deleted(let id), .attributesSet(let id, _), .appTransactionPosted(let id, _, _),
            .promotionalGranted(let id, _), .promotionalsRevoked(let id, _), .offeringOverridden(let id, _):
            [id]
        case .aliased(let id, let other), .loggedIn(let id, let other): [id, other]
        }
    }
}

/// How a purchase moves between identified customers when another customer posts it
/// (RevenueCat's restore behaviour, app key `restoreBehavior`). A purchase an anonymous customer
/// owns is always merged into the one who posts it, whatever the mode.
public enum RestoreBehavior: String, Codable, Hashable, Sendable, CaseIterable {
    /// To the customer who posted it, with a TRANSFER (the default).
    case transfer
    /// It stays with its owner; the post is refused (RevenueCat's "keep with original").
    case keepWithOriginal
    /// To the customer who posted it only when it gives its owner no access now.
    case transferIfNoActive
}
