import Foundation
import Testing
import Threads

@testable import Storage

/// Which commits say they changed an app's outbox (`CommittedBatch.outboxApps`), the signal
/// that wakes that app's webhook workers: new deliveries, outcomes and resends do; claims alone do not, or a
/// worker would wake itself with every claim and claim again at once.
@Suite("Storage contract: commits that wake the webhook workers")
struct OutboxWakeContractTests {
    typealias S = StoreUnderTest

    /// The commits seen so far, and a store that reports them.
    final class Commits: Sendable {
        let seen = Locked<[CommittedBatch]>([])
        /// The commits since the last call.
        func take() -> [CommittedBatch] {
            seen.withLock { seen in
                defer { seen = [] }; return seen
            }
        }
    }

    @Test(arguments: ContractEngine.allCases)
    func deliveriesOutcomesAndResendsWakeClaimsDoNot(_ engine: ContractEngine) throws {
        let commits = Commits()
        let under = try StoreUnderTest(engine) { batch in commits.seen.withLock { $0.append(batch) } }
        // A purchase with a webhook: an event and its delivery.
        try under.subscribe(1, original: "100")
        #expect(commits.take() == [CommittedBatch(items: 1, outboxApps: [S.appId])])

        let now = S.t0 + S.day
        let claimed = Locked<[DueDelivery]>([])
        try under.write { transaction in
            let due = try Deliveries.claimDue(
                appId: S.appId, node: "a", nowMs: now, leaseMs: 60_000, limit: 10, inFlight: [], in: transaction)
            claimed.withLock { $0 = due }
        }
        #expect(claimed.value.count == 1)
        #expect(commits.take() == [CommittedBatch(items: 1)])
        // Nothing due: the claim that finds nothing does not wake either.
        try under.write { transaction in
            _ = try Deliveries.claimDue(
                appId: S.appId, node: "a", nowMs: now, leaseMs: 60_000, limit: 10, inFlight: [], in: transaction)
        }
        #expect(commits.take() == [CommittedBatch(items: 1)])

        let delivery = try #require(claimed.value.first)
        try under.write { transaction in
            _ = try Deliveries.record(.delivered(status: 200), of: delivery, retryDelaysSeconds: [10], at: now, in: transaction)
        }
        #expect(commits.take() == [CommittedBatch(items: 1, outboxApps: [S.appId])])

        try under.write { transaction in
            _ = try Deliveries.resend(eventId: delivery.eventId, webhooks: S.app.webhooks, at: now, in: transaction)
        }
        #expect(commits.take() == [CommittedBatch(items: 1, outboxApps: [S.appId])])
    }
}
