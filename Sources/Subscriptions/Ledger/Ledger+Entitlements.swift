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
        /// When access ends, grace period excluded; for a one-time purchase nil (lifetime) unless a
        /// refund or revocation ended it. A refund or revocation of a subscription ends it too.
        public var expiresDateMs: Int64?
        /// The end of a grace period of the current period (see `gracePeriodAccessEndsAtMs`).
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
        let candidates =
            customer.originalTransactionIds.compactMap { subscriptions[$0] }.map { subscription in
                Entitlement(
                    entitlementId: "", productId: subscription.productId,
                    expiresDateMs: subscription.accessEndsAtMs.map { min($0, subscription.expiresDateMs ?? $0) },
                    gracePeriodExpiresDateMs: subscription.gracePeriodAccessEndsAtMs,
                    purchaseDateMs: subscription.purchaseDateMs, isActive: subscription.hasAccess(atMs: nowMs))
            }
            + customer.oneTimeTransactionIds.compactMap { oneTimePurchases[$0] }.map { purchase in
                Entitlement(
                    entitlementId: "", productId: purchase.productId, expiresDateMs: purchase.accessEndsAtMs,
                    gracePeriodExpiresDateMs: nil, purchaseDateMs: purchase.purchaseDateMs,
                    isActive: purchase.hasAccess(atMs: nowMs))
            }
        return configuration.entitlements.keys.sorted().compactMap { entitlementId in
            let products = configuration.entitlements[entitlementId] ?? []
            let granting = candidates.filter { $0.productId.map(products.contains) ?? false }
            guard var best = granting.max(by: Self.grantsLess) else { return nil }
            best.entitlementId = entitlementId
            return best
        }
    }

    /// Active before inactive; then the later end, lifetime (nil) last of all.
    private static func grantsLess(_ lhs: Entitlement, _ rhs: Entitlement) -> Bool {
        if lhs.isActive != rhs.isActive { return !lhs.isActive }
        let lhsEnd = lhs.gracePeriodExpiresDateMs ?? lhs.expiresDateMs ?? .max
        let rhsEnd = rhs.gracePeriodExpiresDateMs ?? rhs.expiresDateMs ?? .max
        return (lhsEnd, lhs.productId ?? "") < (rhsEnd, rhs.productId ?? "")
    }
}
