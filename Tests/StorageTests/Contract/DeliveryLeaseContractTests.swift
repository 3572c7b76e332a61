import Foundation
import Testing
import Threads

@_spi(StoreSQL) @testable import Storage

/// Deliveries claimed by one node at a time (`Deliveries.claimDue`): what several nodes on one
/// database rely on, the same on every engine.
@Suite("Storage contract: delivery leases")
struct DeliveryLeaseContractTests {
    typealias S = StoreUnderTest
    static let lease: Int64 = 60_000

    /// `node` claims what is due at `nowMs`, with the worker's default hold (300 s: the events
    /// here are older, so only the rule for events not yet failed holds their customers).
    static func claim(_ under: StoreUnderTest, node: String, at nowMs: Int64) throws -> [DueDelivery] {
        let claimed = Locked<[DueDelivery]>([])
        try under.write { transaction in
            let due = try Deliveries.claimDue(
                appId: S.appId, node: node, nowMs: nowMs, leaseMs: lease, limit: 10, holdMs: 300_000, inFlight: [],
                in: transaction)
            claimed.withLock { $0 = due }
        }
        return claimed.value
    }

    /// Two events of customer 1 (a purchase, then its renewal) and one of customer 2.
    static func outbox(_ engine: ContractEngine) throws -> StoreUnderTest {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100")
        try under.subscribe(2, original: "200")
        let at = S.t0 + 30 * S.day
        let renewal = S.transaction("100-1", original: "100", purchase: at, expires: at + 30 * S.day, customer: S.customer(1))
        _ = try under.store.store(S.record(.didRenew, uuid: "renew-100-1", at: at, transaction: renewal))
        return under
    }

    @Test(arguments: ContractEngine.allCases)
    func aClaimedEventGoesToOneNodeAndHoldsItsCustomersNextOne(_ engine: ContractEngine) throws {
        let under = try Self.outbox(engine)
        let now = S.t0 + 31 * S.day
        let a = try Self.claim(under, node: "a", at: now)
        // The earliest event of each customer; the renewal waits behind customer 1's first.
        #expect(Set(a.map(\.customer)) == [S.customer(1), S.customer(2)])
        #expect(try Self.claim(under, node: "b", at: now).isEmpty)
        // Node a delivers customer 1's first event: b may take the renewal; a's other claim holds.
        let first = try #require(a.first { $0.customer == S.customer(1) })
        try under.write { transaction in
            _ = try Deliveries.record(.delivered(status: 200), of: first, retryDelaysSeconds: [10], at: now, in: transaction)
        }
        let b = try Self.claim(under, node: "b", at: now + 1)
        #expect(b.map(\.customer) == [S.customer(1)])
        #expect(b.first?.eventId != first.eventId)
    }

    /// An operator's resend of an event a node is sending right now leaves that attempt alone:
    /// no other node may take it meanwhile. Once the claim has lapsed, or for an event not
    /// claimed, it is due again at once.
    @Test(arguments: ContractEngine.allCases)
    func aResendLeavesAnAttemptInFlightToItsNode(_ engine: ContractEngine) throws {
        let under = try Self.outbox(engine)
        let now = S.t0 + 31 * S.day
        let a = try Self.claim(under, node: "a", at: now)
        let sending = try #require(a.first { $0.customer == S.customer(1) })
        func resend(_ id: String, at nowMs: Int64) throws -> Deliveries.Resent {
            let outcome = Locked(Deliveries.Resent.noEvent)
            try under.write { transaction in
                let resent = try Deliveries.resend(eventId: id, webhooks: S.app.webhooks, at: nowMs, in: transaction)
                outcome.withLock { $0 = resent }
            }
            return outcome.value
        }
        #expect(try resend(sending.eventId, at: now + 1) == .sending(webhooks: [""]))
        #expect(try Self.claim(under, node: "b", at: now + 2).isEmpty)
        // Node a's attempt still records its outcome.
        try under.write { transaction in
            _ = try Deliveries.record(
                .failed(status: 500, reason: "HTTP 500"), of: sending, retryDelaysSeconds: [3600], at: now + 3,
                in: transaction)
        }
        // Its claim gone, a resend makes it due at once: node b takes it.
        #expect(try resend(sending.eventId, at: now + 4) == .due)
        #expect(try Self.claim(under, node: "b", at: now + 5).map(\.eventId).contains(sending.eventId))
        // A claim that lapsed (its node died) is taken back by a resend too.
        #expect(try resend(sending.eventId, at: now + 5 + Self.lease + 1) == .due)
        #expect(try resend("no-such-event", at: now) == .noEvent)
    }

    /// A node that dies holding claims leaves them to the others once the lease is over: the
    /// event goes again, with the same id (at least once).
    @Test(arguments: ContractEngine.allCases)
    func claimsOfANodeThatStoppedPassToAnotherAfterTheLease(_ engine: ContractEngine) throws {
        let under = try Self.outbox(engine)
        let now = S.t0 + 31 * S.day
        let a = try Self.claim(under, node: "a", at: now)
        #expect(a.count == 2)
        #expect(try Self.claim(under, node: "b", at: now + Self.lease - 1).isEmpty)
        let b = try Self.claim(under, node: "b", at: now + Self.lease + 1)
        #expect(Set(b.map(\.eventId)) == Set(a.map(\.eventId)))
        // The node that claimed them last holds them now.
        #expect(try Self.claim(under, node: "a", at: now + Self.lease + 2).isEmpty)
    }

    /// A node whose lease ran out while it sent records nothing once another node has claimed
    /// the delivery: the other node's attempt decides, and its claim is not cut short (a failure
    /// recorded over it would have freed the event for a third send; a dead letter would have
    /// stood over a delivery that succeeded).
    @Test(arguments: ContractEngine.allCases)
    func anOutcomeOfALapsedClaimDoesNotOverrideTheNextNodes(_ engine: ContractEngine) throws {
        let under = try Self.outbox(engine)
        let now = S.t0 + 31 * S.day
        let a = try #require(try Self.claim(under, node: "a", at: now).first { $0.customer == S.customer(2) })
        #expect(a.claimedBy == "a")
        let later = now + Self.lease + 1
        let b = try #require(try Self.claim(under, node: "b", at: later).first { $0.eventId == a.eventId })
        try under.write { transaction in
            try Deliveries.record(
                .dead(attempts: 1, atMs: later, status: 500, reason: "lapsed"), of: a, in: transaction)
        }
        // Still b's: nobody else claims it, and b's outcome is the one kept.
        #expect(try Self.claim(under, node: "c", at: later + 1).allSatisfy { $0.eventId != a.eventId })
        try under.write { transaction in
            _ = try Deliveries.record(.delivered(status: 200), of: b, retryDelaysSeconds: [10], at: later, in: transaction)
        }
        #expect(try Self.status(under, a.eventId) == "delivered")
    }

    /// A 2xx is a fact whoever holds the claim: a node whose lease ran out before its delivery
    /// was committed still records it, and the attempt of the node that took over records
    /// nothing after it, so no third node sends the event again.
    @Test(arguments: ContractEngine.allCases)
    func aDeliveryIsRecordedEvenAfterItsClaimLapsed(_ engine: ContractEngine) throws {
        let under = try Self.outbox(engine)
        let now = S.t0 + 31 * S.day
        let a = try #require(try Self.claim(under, node: "a", at: now).first { $0.customer == S.customer(2) })
        let later = now + Self.lease + 1
        let b = try #require(try Self.claim(under, node: "b", at: later).first { $0.eventId == a.eventId })
        try under.write { transaction in
            _ = try Deliveries.record(.delivered(status: 200), of: a, retryDelaysSeconds: [10], at: later, in: transaction)
        }
        try under.write { transaction in
            _ = try Deliveries.record(
                .failed(status: 500, reason: "late"), of: b, retryDelaysSeconds: [0], at: later, in: transaction)
        }
        #expect(try Self.status(under, a.eventId) == "delivered")
        #expect(try Self.claim(under, node: "c", at: later + 2 * Self.lease).allSatisfy { $0.eventId != a.eventId })
    }

    static func status(_ under: StoreUnderTest, _ eventId: String) throws -> String? {
        try under.store.read { (rows) throws(StoreError) in
            try rows.query("SELECT status FROM deliveries WHERE event_id = ?", [.text(eventId)]).first?.first?.textValue
        }
    }

    /// Nodes judge leases on one clock, the database server's, read inside the claim; SQLite has
    /// one node, whose clock it is.
    @Test(arguments: ContractEngine.allCases)
    func leasesAreOnTheDatabasesClock(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let read = Locked<Int64?>(nil)
        try under.write { transaction in
            let clock = try transaction.databaseClockMs()
            read.withLock { $0 = clock }
        }
        let here = Int64(Date().timeIntervalSince1970 * 1000)
        switch engine {
        case .sqlite: #expect(read.value == nil)
        case .postgres:
            let clock = try #require(read.value)
            #expect(abs(clock - here) < 5_000, "the cluster runs on this machine: \(clock - here) ms apart")
        }
    }
}
