/// Entitlements the app's backend grants (RevenueCat's promotional entitlements): granted with
/// a NON_RENEWING_PURCHASE, taken back with a CANCELLATION and an EXPIRATION at once, or ended
/// by the scheduler with an EXPIRATION, all of store PROMOTIONAL and period type PROMOTIONAL.
/// Both reasons are DEVELOPER_INITIATED, the only one RevenueCat gives promotional grants.
extension Ledger {
    mutating func grantPromotional(_ grant: PromotionalGrant, to customer: String, nowMs: Int64) -> [Effect] {
        ensureCustomer(customer, nowMs: nowMs)
        guard customers[customer]?.promotionalGrants?.contains(where: { $0.id == grant.id }) != true else { return [] }
        let granted = (customers[customer]?.promotionalGrants ?? []) + [grant]
        customers[customer]?.promotionalGrants = granted
        var purchase = grant.event(.nonRenewingPurchase, cause: "GRANT")
        purchase.entitlementIds = [grant.entitlementId]
        return [.emit(stamp(purchase, for: customer, nowMs: nowMs)), .schedule(grant.timer(customer: customer))]
    }

    mutating func revokePromotionals(_ entitlementId: String, of customer: String, nowMs: Int64) -> [Effect] {
        var effects: [Effect] = []
        for (index, grant) in (customers[customer]?.promotionalGrants ?? []).enumerated()
        where grant.entitlementId == entitlementId && grant.accessEndsAtMs > nowMs {
            customers[customer]?.promotionalGrants?[index].revokedAtMs = nowMs
            var cancellation = grant.event(.cancellation, cause: "REVOKE")
            cancellation.expirationAtMs = nowMs
            cancellation.cancelReason = .developerInitiated
            cancellation.entitlementIds = [entitlementId]
            // Access ends now: the EXPIRATION a consumer removes access on comes with it, under
            // the id the scheduler would have given it (which no longer fires for this grant).
            var expiration = grant.event(.expiration, cause: "EXPIRATION")
            expiration.expirationAtMs = nowMs
            expiration.expirationReason = .developerInitiated
            expiration.entitlementIds = [entitlementId]
            effects.append(.emit(stamp(cancellation, for: customer, nowMs: nowMs)))
            effects.append(.emit(stamp(expiration, for: customer, nowMs: nowMs)))
        }
        return effects
    }

    /// A grant's timer: its EXPIRATION once its end has come, unless it was revoked or recorded.
    mutating func expirePromotional(grantId: String, of customer: String, nowMs: Int64) -> [Effect] {
        guard let index = customers[customer]?.promotionalGrants?.firstIndex(where: { $0.id == grantId }),
            let grant = customers[customer]?.promotionalGrants?[index]
        else { return [] }
        guard grant.revokedAtMs == nil, grant.expired != true else { return [] }
        guard grant.endMs <= nowMs else { return [.schedule(grant.timer(customer: customer))] }
        customers[customer]?.promotionalGrants?[index].expired = true
        var expiration = grant.event(.expiration, cause: "EXPIRATION")
        expiration.expirationReason = .developerInitiated
        expiration.entitlementIds = [grant.entitlementId]
        return [.emit(stamp(expiration, for: customer, nowMs: nowMs))]
    }
}
