import AppStore
import Foundation
import JSON
import Threads

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

    /// `body(for:customer:purchases:entitlements:at:)` as a `JSONValue`.
    public static func json(
        for appUserId: String, customer: CustomerState?, purchases: [PurchaseView], entitlements: [String: [String]],
        at now: Date
    ) -> JSONValue {
        let bytes = body(for: appUserId, customer: customer, purchases: purchases, entitlements: entitlements, at: now)
        guard let value = try? JSONValue(parsing: Data(bytes)) else {
            preconditionFailure("SubscriberInfo wrote JSON that does not parse: \(String(decoding: bytes, as: UTF8.self))")
        }
        return value
    }

    /// The v1 response body from stored views, as compact JSON with sorted keys: `purchases` are
    /// the customer's (see `PurchaseView`), `entitlements` the app's configuration (entitlement
    /// id → product ids).
    ///
    /// Written straight to bytes (it answers every `GET /v1/subscribers`); members appear in
    /// UTF-8 byte order of their keys, so the text equals `JSONValue.serialized()` of the same value.
    ///
    /// `lastSeenMs`: when the app last contacted RevenueDot about the customer (its first sighting
    /// when never). `sandboxGrants`: whether non-production purchases give entitlements
    /// (`SandboxAccess`); they are listed either way. `showsAttributes`: whether `subscriber_attributes` is there (only for the secret
    /// key: RevenueCat leaves the member out of other answers).
    public static func body(
        for appUserId: String, customer: CustomerState?, purchases: [PurchaseView], entitlements: [String: [String]],
        displayNames: [String: String] = [:], lastSeenMs: Int64? = nil, showsAttributes: Bool = false,
        sandboxGrants: Bool = true, at now: Date
    ) -> [UInt8] {
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded())
        var out = JSONWriter(capacity: 512 + 768 * purchases.count)
        out.beginObject()
        out.member("request_date", date(nowMs))
        out.key("request_date_ms")
        out.integer(nowMs)
        out.key("subscriber")
        subscriber(
            appUserId, customer: customer, purchases: purchases, entitlements: entitlements, displayNames: displayNames,
            lastSeenMs: lastSeenMs ?? customer?.firstSeenMs ?? nowMs,
            attributes: showsAttributes ? SubscriberAttribute.shown(customer?.attributes) : nil, sandboxGrants: sandboxGrants,
            nowMs: nowMs, into: &out)
        out.endObject()
        return out.bytes
    }

    // MARK: - Subscriber

    static func subscriber(
        _ appUserId: String, customer: CustomerState?, purchases: [PurchaseView], entitlements: [String: [String]],
        displayNames: [String: String], lastSeenMs: Int64, attributes: [String: SubscriberAttribute]?, sandboxGrants: Bool,
        nowMs: Int64,
        into out: inout JSONWriter
    ) {
        // Promotional grants: subscriptions of store `promotional` granting their entitlement.
        let grants = customer?.promotionalGrants ?? []
        var entitlements = entitlements
        for grant in grants { entitlements[grant.entitlementId, default: []].append(grant.productId) }
        let purchases = purchases + grants.map(\.view)
        let subscriptions = purchases.filter { $0.kind == .subscription }
        // Products of earlier periods stay listed, as RevenueCat lists them, with the
        // entitlements they gave shown expired.
        let everyProduct = purchases.flatMap(\.withEarlierProducts)
        let held = Ledger.entitlements(entitlements, from: everyProduct, atMs: nowMs, sandboxGrants: sandboxGrants)
        // The App Store manages only what it sold: a promotional grant gives no management URL.
        let hasActiveSubscription = subscriptions.contains { $0.store == nil && $0.hasAccess(atMs: nowMs) }
        out.beginObject()
        out.key("entitlements")
        out.beginObject()
        for entitlement in held.sorted(by: { JSONValue.precedesInUTF8($0.entitlementId, $1.entitlementId) }) {
            out.key(text: entitlement.entitlementId)
            write(entitlement, into: &out)
        }
        out.endObject()
        out.member("first_seen", date(customer?.firstSeenMs ?? nowMs))
        out.member("last_seen", date(lastSeenMs))
        out.member("management_url", hasActiveSubscription ? managementURL : nil)
        out.key("non_subscriptions")
        writeNonSubscriptions(purchases.filter { $0.kind == .oneTime }, displayNames: displayNames, into: &out)
        out.member("original_app_user_id", customer?.firstAppUserId ?? appUserId)
        // The app's first version and download date: from an AppTransaction the app posted.
        out.member("original_application_version", customer?.originalApplicationVersion)
        out.member("original_purchase_date", date(customer?.originalPurchaseDateMs))
        out.key("other_purchases")
        out.beginObject()
        out.endObject()
        if let attributes {
            out.key("subscriber_attributes")
            SubscriberAttribute.write(attributes, into: &out)
        }
        out.key("subscriptions")
        out.beginObject()
        let listed = latestPerProduct(everyProduct.filter { $0.kind == .subscription })
        for (productId, subscription) in listed.sorted(by: { JSONValue.precedesInUTF8($0.key, $1.key) }) {
            out.key(text: productId)
            write(subscription: subscription, displayName: displayNames[productId], into: &out)
        }
        out.endObject()
        out.endObject()
    }

    // MARK: - Entitlements

    static func write(_ entitlement: Ledger.Entitlement, into out: inout JSONWriter) {
        out.beginObject()
        out.member("expires_date", date(entitlement.expiresDateMs))
        out.member("grace_period_expires_date", date(entitlement.gracePeriodExpiresDateMs))
        out.member("product_identifier", entitlement.productId)
        out.member("purchase_date", date(entitlement.purchaseDateMs))
        out.endObject()
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

    /// `expires_date` is the current period's end as Apple sent it, or its refund or Family
    /// Sharing revocation when earlier (RevenueCat's `subscriptions[]`), with `refunded_at`.
    /// While Apple grants a grace period it is the grace period's end, as RevenueCat serves it:
    /// its SDKs count a product as active (`activeSubscriptions`) by this date alone.
    static func write(subscription: PurchaseView, displayName: String?, into out: inout JSONWriter) {
        out.beginObject()
        if let advancedCommerce = subscription.advancedCommerce {
            out.key("advanced_commerce")
            out.value(advancedCommerce)
        }
        out.member("auto_resume_date", nil)
        out.member("billing_issues_detected_at", date(subscription.billingIssueDetectedAtMs))
        out.member("display_name", displayName)
        let expires =
            subscription.gracePeriodAccessEndsAtMs
            ?? [subscription.expiresDateMs, subscription.refundedAtMs].compactMap { $0 }.min()
        out.member("expires_date", date(expires))
        out.member("grace_period_expires_date", date(subscription.lastGracePeriodAccessEndsAtMs))
        out.key("is_sandbox")
        out.bool(isSandbox(subscription.environment))
        // Where the customer manages it: the App Store's page for what it sold, none for a grant.
        out.member("management_url", subscription.store == nil ? managementURL : nil)
        out.member("original_purchase_date", date(subscription.originalPurchaseDateMs))
        out.member("ownership_type", ownership(subscription.ownershipType))
        out.member("period_type", subscription.periodType.map { $0.rawValue.lowercased() })
        out.key("price")
        out.value(price(subscription.priceMilliunits, subscription.currency))
        out.member("purchase_date", date(subscription.purchaseDateMs))
        out.member("refunded_at", date(subscription.refundedAtMs))
        out.member("store", subscription.store ?? "app_store")
        out.member("store_transaction_id", subscription.transactionId)
        out.member("unsubscribe_detected_at", date(subscription.unsubscribeDetectedAtMs))
        out.endObject()
    }

    // MARK: - Non-subscriptions

    /// Product id → its one-time purchases, oldest first.
    static func writeNonSubscriptions(
        _ purchases: [PurchaseView], displayNames: [String: String], into out: inout JSONWriter
    ) {
        let ordered = purchases.sorted { ($0.purchaseDateMs ?? .min, $0.id) < ($1.purchaseDateMs ?? .min, $1.id) }
        var byProduct: [String: [PurchaseView]] = [:]
        for purchase in ordered {
            guard let productId = purchase.productId else { continue }
            byProduct[productId, default: []].append(purchase)
        }
        out.beginObject()
        for (productId, bought) in byProduct.sorted(by: { JSONValue.precedesInUTF8($0.key, $1.key) }) {
            out.array(text: productId, bought) { out, purchase in
                write(oneTime: purchase, displayName: displayNames[productId], into: &out)
            }
        }
        out.endObject()
    }

    /// `id` is the `transactionId`: stable, and unique among the customer's purchases.
    static func write(oneTime purchase: PurchaseView, displayName: String?, into out: inout JSONWriter) {
        out.beginObject()
        out.member("display_name", displayName)
        out.member("id", purchase.id)
        out.key("is_sandbox")
        out.bool(isSandbox(purchase.environment))
        // RevenueCat's Android SDK reads it as a string wherever an entitlement comes from a
        // one-time purchase, and fails the whole CustomerInfo without it.
        out.member("original_purchase_date", date(purchase.originalPurchaseDateMs ?? purchase.purchaseDateMs))
        out.key("price")
        out.value(price(purchase.priceMilliunits, purchase.currency))
        out.member("purchase_date", date(purchase.purchaseDateMs))
        out.member("store", "app_store")
        out.member("store_transaction_id", purchase.id)
        out.endObject()
    }

    // MARK: - Values

    static func date(_ milliseconds: Int64?) -> String? {
        milliseconds.map(ISO8601UTC.string(fromMilliseconds:))
    }

    /// Sandbox, Xcode and LocalTesting are all sandbox; an unknown environment counts as production.
    static func isSandbox(_ environment: AppStoreEnvironment?) -> Bool {
        environment.map { $0 != .production } ?? false
    }

    static func ownership(_ type: InAppOwnershipType?) -> String {
        (type ?? .purchased).rawValue
    }

    static func price(_ milliunits: Int64?, _ currency: String?) -> JSONValue {
        guard let milliunits, let currency else { return .null }
        return PriceAmount.json(milliunits: milliunits, currency: currency)
    }
}
