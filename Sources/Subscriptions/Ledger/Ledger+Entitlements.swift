/// Entitlements from configuration: which of a customer's purchases grant what, at a moment.
extension Ledger {
    /// One configured entitlement as a customer holds it.
    ///
    /// Shaped for RevenueCat's v1 `subscriber.entitlements` (expired ones stay listed).
    public struct Entitlement: Codable, Hashable, Sendable {
        /// The configured entitlement id.
        public var entitlementId: String
        /// The granting product: the active one lasting longest, else the one that ended last.
        public var productId: String?
        /// When access ends, grace period included (RevenueCat's clients decide access from this
        /// date alone, and RevenueCat moves it to the end of a grace period); for a one-time
        /// purchase nil (lifetime) unless a refund or revocation ended it. A refund or revocation
        /// of a subscription ends it too.
        public var expiresDateMs: Int64?
        /// RevenueCat's `grace_period_expires_date`: the end of the granting purchase's current
        /// grace period, else of its last one (`lastGracePeriodAccessEndsAtMs`).
        public var gracePeriodExpiresDateMs: Int64?
        /// When the granting period (or purchase) started.
        public var purchaseDateMs: Int64?
        /// Whether a linked purchase of one of its products gives access: not expired (grace
        /// counted), not refunded, not revoked.
        public var isActive: Bool
    }

    /// The configured entitlements `appUserId` holds or held at `nowMs`, sorted by id; those no
    /// purchase of the customer ever granted are left out.
    public func entitlements(of appUserId: String, atMs nowMs: Int64) -> [Entitlement] {
        guard let customer = customers[appUserId] else { return [] }
        return Self.entitlements(
            configuration.entitlements, from: views(of: appUserId), atMs: nowMs,
            sandboxGrants: configuration.sandboxAccess.grants(customer, appUserId: appUserId))
    }

    /// The entitlements (`entitlement id → product ids`) that `purchases`, one customer's, grant or
    /// granted at `nowMs`, sorted by id; non-production purchases count only when `sandboxGrants`.
    public static func entitlements(
        _ configured: [String: [String]], from purchases: [PurchaseView], atMs nowMs: Int64, sandboxGrants: Bool = true
    ) -> [Entitlement] {
        let granting = sandboxGrants ? purchases : purchases.filter { $0.environment == .production }
        let candidates = granting.map { purchase in
            Entitlement(
                entitlementId: "", productId: purchase.productId,
                // An entitlement ends with its purchase's access, grace included; a one-time
                // purchase's only when a refund or revocation ended it.
                expiresDateMs: purchase.accessEndsAtMs,
                gracePeriodExpiresDateMs: purchase.lastGracePeriodAccessEndsAtMs,
                purchaseDateMs: purchase.purchaseDateMs, isActive: purchase.hasAccess(atMs: nowMs))
        }
        return configured.keys.sorted().compactMap { entitlementId in
            let products = configured[entitlementId] ?? []
            let granting = candidates.filter { $0.productId.map(products.contains) ?? false }
            guard var best = granting.max(by: grantsLess) else { return nil }
            best.entitlementId = entitlementId
            return best
        }
    }

    /// The views of the purchases `appUserId` owns: its subscriptions, then its one-time purchases.
    public func views(of appUserId: String) -> [PurchaseView] {
        guard let customer = customers[appUserId] else { return [] }
        return customer.originalTransactionIds.compactMap { subscriptions[$0]?.view }
            + customer.oneTimeTransactionIds.compactMap { oneTimePurchases[$0]?.view }
    }

    /// Active before inactive; then the later end, lifetime (nil) last of all.
    private static func grantsLess(_ lhs: Entitlement, _ rhs: Entitlement) -> Bool {
        if lhs.isActive != rhs.isActive { return !lhs.isActive }
        // `expiresDateMs` holds the access end, grace included.
        let lhsEnd = lhs.expiresDateMs ?? .max
        let rhsEnd = rhs.expiresDateMs ?? .max
        return (lhsEnd, lhs.productId ?? "") < (rhsEnd, rhs.productId ?? "")
    }
}
