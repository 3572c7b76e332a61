import AppStore
import Foundation
import Server
import Subscriptions
import Threads

/// What the reducer did with a catalog example: the events it emitted, the timer it set, and
/// the subscription's (or purchase's) state afterwards, as short lines for people and tools.
struct CatalogOutcome: Equatable, Sendable {
    /// One line per event: its type and the fields that tell it apart.
    var events: [String]
    /// One line per state fact after the notification.
    var state: [String]
    /// Events the scheduler records right after, when the notification leaves an expiration check already due.
    var timerEvents: [String] = []

    init(events: [String], state: [String], timerEvents: [String] = []) {
        self.events = events
        self.state = state
        self.timerEvents = timerEvents
    }

    init(effects: [Ledger.Effect], ledger: Ledger, atMs: Int64) {
        var events: [String] = []
        var timers: [String] = []
        for effect in effects {
            switch effect {
            case .emit(let event): events.append(Self.describe(event))
            case .schedule(let timer): timers.append("Expiration check scheduled for \(UnixTime.iso8601(timer.fireAtMs)).")
            case .linkRefused: break
            }
        }
        self.events = events
        self.state = Self.describeState(ledger, atMs: atMs) + timers
    }

    static func describe(_ event: Event) -> String {
        var details: [String] = []
        if let product = event.productId { details.append("product_id \(product)") }
        if let product = event.newProductId { details.append("new_product_id \(product)") }
        if let reason = event.cancelReason { details.append("cancel_reason \(reason.rawValue)") }
        if let reason = event.expirationReason { details.append("expiration_reason \(reason.rawValue)") }
        if event.isTrialConversion == true { details.append("is_trial_conversion true") }
        if let price = event.priceInPurchasedCurrency, price != 0 {
            details.append("price_in_purchased_currency \(price) \(event.currency ?? "")")
        }
        if let ends = event.gracePeriodExpirationAtMs { details.append("grace_period_expiration_at \(UnixTime.iso8601(ends))") }
        return details.isEmpty ? event.type.rawValue : "\(event.type.rawValue) (\(details.joined(separator: ", ")))"
    }

    private static func describeState(_ ledger: Ledger, atMs nowMs: Int64) -> [String] {
        if let subscription = ledger.subscriptions[CatalogScenario.originalTransactionId] {
            var lines: [String] = []
            if subscription.hasAccess(atMs: nowMs) {
                let ends = subscription.accessEndsAtMs.map { " until \(UnixTime.iso8601($0))" } ?? ""
                lines.append("Access: yes, \(subscription.productId ?? "?")\(ends).")
            } else {
                lines.append("Access: no.")
            }
            if let owner = subscription.journal.ownerAppUserId {
                let active = ledger.entitlements(of: owner, atMs: nowMs).filter(\.isActive).map(\.entitlementId)
                lines.append("Entitlements active: \(active.isEmpty ? "none" : active.sorted().joined(separator: ", ")).")
            }
            if let renews = subscription.autoRenewEnabled {
                var line = "Auto-renew: \(renews ? "on" : "off")"
                if renews, let next = subscription.autoRenewProductId, next != subscription.productId {
                    line += ", renews as \(next)"
                }
                lines.append(line + ".")
            }
            if let detected = subscription.billingIssueDetectedAtMs {
                let grace = subscription.gracePeriodExpiresDateMs.map { ", grace period until \(UnixTime.iso8601($0))" } ?? ""
                lines.append("Billing issue since \(UnixTime.iso8601(detected))\(grace).")
            }
            if let refunded = subscription.refundedAtMs { lines.append("Refunded at \(UnixTime.iso8601(refunded)).") }
            if let revoked = subscription.revokedAtMs, subscription.refundedAtMs == nil {
                lines.append("Revoked at \(UnixTime.iso8601(revoked)).")
            }
            return lines
        }
        if let purchase = ledger.oneTimePurchases.values.first {
            let access = purchase.hasAccess(atMs: nowMs) ? "yes" : "no"
            return ["One-time purchase recorded: \(purchase.productId ?? "?"), access \(access)."]
        }
        return ["Stored; no purchase state changes."]
    }

}
