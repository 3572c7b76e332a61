import AppStore
import Foundation

/// What a customer has now, in RevenueCat's REST v1 shape (`GET /v1/subscribers/{app_user_id}`).
///
/// A pure rendering of a customer, the views of the purchases it owns (`PurchaseView`) and the
/// configured entitlements. Access, grace and refunds in a view come from the same logic the
/// reducer uses for events and timers (`SubscriptionState+Access`), and entitlements from
/// `Ledger.entitlements(_:from:atMs:)`, so the API and the webhooks agree. Dates are ISO 8601 UTC to the second (`2019-07-26T17:40:10Z`).
/// https://www.revenuecat.com/docs/api-v1
public enum SubscriberInfo {
    /// Where an App Store customer manages subscriptions; sent while one gives access.
    public static let managementURL = "https://apps.apple.com/account/subscriptions"

    /// The v1 response body for `appUserId` at `now`, from a ledger slice that holds the customer
    /// and its purchases.
    ///
    /// A customer the ledger does not hold gets an empty subscriber first seen now, as RevenueCat,
    /// which creates it; persisting that customer is the caller's business.
    public static func json(for appUserId: String, in ledger: Ledger, at now: Date) -> JSONValue {
        json(
            for: appUserId, customer: ledger.customers[appUserId], purchases: ledger.views(of: appUserId),
            entitlements: ledger.configuration.entitlements, at: now)
    }

    /// The v1 response body from stored views: `purchases` are the customer's (see `PurchaseView`),
    /// `entitlements` the app's configuration (entitlement id → product ids).
    public static func json(
        for appUserId: String, customer: CustomerState?, purchases: [PurchaseView], entitlements: [String: [String]],
        at now: Date
    ) -> JSONValue {
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded())
        return .object([
            "request_date": date(nowMs),
            "request_date_ms": .integer(nowMs),
            "subscriber": subscriber(
                appUserId, customer: customer, purchases: purchases, entitlements: entitlements, nowMs: nowMs),
        ])
    }

    // MARK: - Subscriber

    static func subscriber(
        _ appUserId: String, customer: CustomerState?, purchases: [PurchaseView], entitlements: [String: [String]],
        nowMs: Int64
    ) -> JSONValue {
        let subscriptions = purchases.filter { $0.kind == .subscription }
        let held = Ledger.entitlements(entitlements, from: purchases, atMs: nowMs)
        let hasActiveSubscription = subscriptions.contains { $0.hasAccess(atMs: nowMs) }
        return .object([
            "original_app_user_id": .string(customer?.appUserId ?? appUserId),
            "first_seen": date(customer?.firstSeenMs ?? nowMs),
            // RevenueDot does not track when the app last asked; the request is the latest sighting.
            "last_seen": date(nowMs),
            "management_url": hasActiveSubscription ? .string(managementURL) : .null,
            // The app's first version and download date come from the app receipt, never seen here.
            "original_application_version": .null,
            "original_purchase_date": .null,
            "entitlements": .object(Dictionary(uniqueKeysWithValues: held.map { ($0.entitlementId, json($0)) })),
            "subscriptions": .object(latestPerProduct(subscriptions).mapValues(subscriptionJSON)),
            "non_subscriptions": .object(nonSubscriptions(purchases.filter { $0.kind == .oneTime })),
            "other_purchases": .object([:]),
            "subscriber_attributes": .object([:]),
        ])
    }

    // MARK: - Entitlements

    static func json(_ entitlement: Ledger.Entitlement) -> JSONValue {
        .object([
            "expires_date": date(entitlement.expiresDateMs),
            "grace_period_expires_date": date(entitlement.gracePeriodExpiresDateMs),
            "product_identifier": entitlement.productId.map(JSONValue.string) ?? .null,
            "purchase_date": date(entitlement.purchaseDateMs),
        ])
    }

    // MARK: - Subscriptions

    /// One subscription per product: after a resubscription under a new `originalTransactionId`,
    /// the one that expires last (then the one bought last).
    static func latestPerProduct(_ subscriptions: [PurchaseView]) -> [String: PurchaseView] {
        var latest: [String: PurchaseView] = [:]
        for subscription in subscriptions {
            guard let productId = subscription.productId else { continue }
            if let known = latest[productId], !expiresBefore(known, subscription) { continue }
            latest[productId] = subscription
        }
        return latest
    }

    private static func expiresBefore(_ lhs: PurchaseView, _ rhs: PurchaseView) -> Bool {
        (lhs.expiresDateMs ?? .min, lhs.purchaseDateMs ?? .min, lhs.id) < (
            rhs.expiresDateMs ?? .min, rhs.purchaseDateMs ?? .min, rhs.id
        )
    }

    /// `expires_date` is the current period's end as Apple sent it; a refund or revocation shows
    /// in `refunded_at` and in the entitlement, whose access it ends.
    static func subscriptionJSON(_ subscription: PurchaseView) -> JSONValue {
        var object: [String: JSONValue] = [
            "store": .string("app_store"),
            "is_sandbox": .bool(isSandbox(subscription.environment)),
            "purchase_date": date(subscription.purchaseDateMs),
            "original_purchase_date": date(subscription.originalPurchaseDateMs),
            "expires_date": date(subscription.expiresDateMs),
            "period_type": subscription.periodType.map { .string($0.rawValue.lowercased()) } ?? .null,
            "unsubscribe_detected_at": date(subscription.unsubscribeDetectedAtMs),
            "billing_issues_detected_at": date(subscription.billingIssueDetectedAtMs),
            "grace_period_expires_date": date(subscription.gracePeriodAccessEndsAtMs),
            "refunded_at": date(subscription.refundedAtMs),
            "auto_resume_date": .null,
            "ownership_type": ownership(subscription.ownershipType),
            "store_transaction_id": subscription.transactionId.map(JSONValue.string) ?? .null,
            "price": price(subscription.priceMilliunits, subscription.currency),
            "display_name": .null,
        ]
        object["advanced_commerce"] = subscription.advancedCommerce
        return .object(object)
    }

    // MARK: - Non-subscriptions

    /// Product id → its one-time purchases, oldest first.
    static func nonSubscriptions(_ purchases: [PurchaseView]) -> [String: JSONValue] {
        let ordered = purchases.sorted { ($0.purchaseDateMs ?? .min, $0.id) < ($1.purchaseDateMs ?? .min, $1.id) }
        var byProduct: [String: [JSONValue]] = [:]
        for purchase in ordered {
            guard let productId = purchase.productId else { continue }
            byProduct[productId, default: []].append(oneTimeJSON(purchase))
        }
        return byProduct.mapValues(JSONValue.array)
    }

    /// `id` is the `transactionId`: stable, and unique among the customer's purchases.
    static func oneTimeJSON(_ purchase: PurchaseView) -> JSONValue {
        .object([
            "id": .string(purchase.id),
            "is_sandbox": .bool(isSandbox(purchase.environment)),
            "purchase_date": date(purchase.purchaseDateMs),
            "store": .string("app_store"),
            "store_transaction_id": .string(purchase.id),
            "price": price(purchase.priceMilliunits, purchase.currency),
            "display_name": .null,
        ])
    }

    // MARK: - Values

    static func date(_ milliseconds: Int64?) -> JSONValue {
        milliseconds.map { .string(ISO8601UTC.string(fromMilliseconds: $0)) } ?? .null
    }

    /// Sandbox, Xcode and LocalTesting are all sandbox; an unknown environment counts as production.
    static func isSandbox(_ environment: AppStoreEnvironment?) -> Bool {
        environment.map { $0 != .production } ?? false
    }

    static func ownership(_ type: InAppOwnershipType?) -> JSONValue {
        .string((type ?? .purchased).rawValue)
    }

    static func price(_ milliunits: Int64?, _ currency: String?) -> JSONValue {
        guard let milliunits, let currency else { return .null }
        return PriceAmount.json(milliunits: milliunits, currency: currency)
    }
}
