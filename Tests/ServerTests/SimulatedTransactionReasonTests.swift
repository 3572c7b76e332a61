import JSON
import Testing

@testable import Tools

/// The simulator's `transactionReason`, as Apple sets it: `PURCHASE` for what the customer did
/// (buying, resubscribing, changing plan), `RENEWAL` for the App Store's automatic renewals.
@Suite("simulate: transaction reasons")
struct SimulatedTransactionReasonTests {
    @Test func customerActionsArePurchasesAndRenewalsAreRenewals() {
        var subscription = SimulatedSubscription(
            productId: "pro.monthly", transactionId: "100", fixedPeriodMs: nil, nowMs: 1_000, user: "alice",
            environment: "Sandbox", bundleId: "com.example.app", trial: false)
        func reason() -> JSONValue? { subscription.transactionJSON(signedMs: 2_000)["transactionReason"] }
        #expect(reason() == .string("PURCHASE"))
        subscription.nextPeriod(productId: "pro.monthly", transactionId: "101", startMs: 3_000, renewal: true)
        #expect(reason() == .string("RENEWAL"))
        subscription.nextPeriod(productId: "pro.yearly", transactionId: "102", startMs: 4_000, renewal: false)
        #expect(reason() == .string("PURCHASE"))
        // A story saved before the reason was kept: every transaction after the first renews.
        subscription.renewedByTheStore = nil
        #expect(reason() == .string("RENEWAL"))
    }
}
