import Foundation

/// The per-app settings the reducer needs: app id, entitlement map, the tracking switch and the
/// restore behaviour.
///
/// Entitlements are computed here rather than left to the shell, so an event is complete when
/// the reducer returns it; a changed map applies to events produced after the change.
public struct LedgerConfiguration: Codable, Hashable, Sendable {
    /// RevenueCat's `app_id`, copied into every event.
    public var appId: String?
    /// Entitlement id → the product ids that grant it.
    public var entitlements: [String: [String]]
    /// When on, a notification for a purchase no one claimed is applied at once to a new
    /// anonymous customer; when off, its events wait until the purchase is linked.
    public var trackNewPurchasesFromServerNotifications: Bool
    /// How a purchase another identified customer owns moves when someone else posts it.
    public var restoreBehavior: RestoreBehavior
    /// Whether the developer is in Apple's Small Business Program (15% commission on everything).
    public var smallBusinessProgram = false
    /// Which customers non-production purchases give entitlements to.
    public var sandboxAccess = SandboxAccess.everyone
    /// Units of each currency per US dollar, for events' `price` (the operator's rates).
    public var usdExchangeRates: [String: Decimal] = [:]
    /// How tracking writes the ids of the anonymous customers it makes: the database's choice,
    /// which the store sets.
    public var anonymousIds = AnonymousIds.revenueDot

    /// A configuration; by default no app id, no entitlements, tracking off, transfers.
    public init(
        appId: String? = nil, entitlements: [String: [String]] = [:],
        trackNewPurchasesFromServerNotifications: Bool = false, restoreBehavior: RestoreBehavior = .transfer
    ) {
        self.appId = appId
        self.entitlements = entitlements
        self.trackNewPurchasesFromServerNotifications = trackNewPurchasesFromServerNotifications
        self.restoreBehavior = restoreBehavior
    }

    /// The entitlements a product grants, sorted; nil when it grants none (as RevenueCat sends).
    public func entitlementIds(for productId: String?) -> [String]? {
        guard let productId else { return nil }
        let ids = entitlements.filter { $0.value.contains(productId) }.keys.sorted()
        return ids.isEmpty ? nil : ids
    }
}
