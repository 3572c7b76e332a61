import Foundation
import Subscriptions
import Testing
import Threads

@testable import Storage

/// The outbox's delivery rows on both engines: each event gets one per webhook that takes it,
/// when the event is inserted; an event made again (the same id) gets none from that insert,
/// even for a webhook it has none for, as when the delivery read the position the insert returned.
@Suite struct OutboxContractTests {
    typealias S = StoreUnderTest

    /// The events pending delivery to `webhook`, in order.
    static func pending(_ under: S, to webhook: String) throws -> [String] {
        let due = try under.store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(
                    appId: S.appId, webhook: webhook, nowMs: .max, limit: 100, inFlight: [], from: rows)
            } catch let error as StoreError { throw error } catch { throw StoreError(.corrupt, "\(error)") }
        }
        // The customer is the event row's, copied into the delivery.
        for delivery in due { #expect(delivery.customer == "c-\(delivery.eventId)") }
        return due.map(\.eventId)
    }

    static func insert(_ ids: [String], webhooks: [String], at nowMs: Int64, into under: S) throws {
        try under.write { transaction in
            for id in ids {
                var event = Event(type: .renewal, id: id, eventTimestampMs: nowMs)
                event.appUserId = "c-\(id)"
                try Outbox.insert(
                    event, appId: S.appId, at: nowMs, webhooks: webhooks.map { WebhookRoute(id: $0) }, in: transaction)
            }
        }
    }

    @Test(arguments: ContractEngine.allCases)
    func anEventGetsADeliveryPerWebhookOnlyWhenInserted(_ engine: ContractEngine) throws {
        let under = try S(engine)
        try Self.insert(["e1"], webhooks: ["a"], at: 1000, into: under)
        #expect(try Self.pending(under, to: "a") == ["e1"])
        // Made again later, now with webhook b: stored once, and b gets nothing for it.
        try Self.insert(["e1"], webhooks: ["a", "b"], at: 2000, into: under)
        #expect(try Self.pending(under, to: "a") == ["e1"])
        #expect(try Self.pending(under, to: "b").isEmpty)
        // In one transaction: a new event, then an old one made again at the same time, then the
        // new one again: the new one's deliveries once each, none for the old one.
        try Self.insert(["e2", "e1", "e2"], webhooks: ["a", "b"], at: 3000, into: under)
        #expect(try Self.pending(under, to: "a") == ["e1", "e2"])
        #expect(try Self.pending(under, to: "b") == ["e2"])
        // Made again at the same time as it was first, while no longer the newest: nothing for c.
        try Self.insert(["e3", "e4"], webhooks: ["a"], at: 4000, into: under)
        try Self.insert(["e3"], webhooks: ["c"], at: 4000, into: under)
        #expect(try Self.pending(under, to: "c").isEmpty)
        let events = try under.store.read { (rows) throws(StoreError) in
            try EventRows.page(appId: S.appId, after: 0, limit: 10, from: rows)
        }
        #expect(events.map(\.position) == [1, 2, 3, 4])
        #expect(events.map { $0.json?.contains("\"id\":\"e\($0.position)\"") } == [true, true, true, true])
    }

    /// A renamed webhook's deliveries become its successor's as they stood (pending, delivered),
    /// but for events the successor has already or its filters refuse: those are dropped, as
    /// are all of a removed webhook's. Retired again, nothing changes.
    @Test(arguments: ContractEngine.allCases)
    func aRetiredWebhooksDeliveriesMoveOrAreDropped(_ engine: ContractEngine) throws {
        let under = try S(engine)
        // Today, as the claim clock PostgreSQL's moves take is.
        let now = UnixTime.nowMs
        try Self.insert(["e1", "e2"], webhooks: ["old"], at: 1000, into: under)
        try Self.insert(["e3"], webhooks: ["old", "new"], at: 2000, into: under)
        try Self.insert(["e4"], webhooks: ["gone"], at: 3000, into: under)
        try under.write { transaction in
            var refused = Event(type: .cancellation, id: "e5", eventTimestampMs: 4000)
            refused.appUserId = "c-e5"
            try Outbox.insert(refused, appId: S.appId, at: 4000, webhooks: [WebhookRoute(id: "old")], in: transaction)
            let sent = DueDelivery(
                eventId: "e2", appId: S.appId, webhook: "old", customer: "c-e2", attempts: 0, eventJSON: "{}",
                createdAtMs: 1000)
            try Deliveries.record(.delivered(status: 200), of: sent, retryDelaysSeconds: [10], at: 1500, in: transaction)
            var failing = sent
            failing.eventId = "e1"
            failing.customer = "c-e1"
            let failed = DeliveryOutcome.failed(status: 500, reason: "down")
            try Deliveries.record(failed, of: failing, retryDelaysSeconds: [3600], at: now, in: transaction)
        }
        let successor = WebhookRoute(id: "new", eventTypes: ["RENEWAL"])
        let retired = [
            RetiredWebhook(appId: S.appId, name: "old", successor: successor),
            RetiredWebhook(appId: S.appId, name: "gone", successor: nil),
        ]
        #expect(
            try under.store.retireWebhooks(retired, nowMs: now) == [
                Deliveries.Retirement(moved: 2, dropped: 2), Deliveries.Retirement(moved: 0, dropped: 1),
            ])
        let deliveries = try under.events().filter { $0.webhook != nil }.map {
            "\($0.id) \($0.webhook ?? "") \($0.deliveryStatus ?? "")"
        }
        #expect(Set(deliveries) == ["e1 new pending", "e2 new delivered", "e3 new pending"], "\(deliveries)")
        #expect(try Self.pending(under, to: "new") == ["e1", "e3"])
        // The successor never tried e1: due at once, not an hour after the old name's failure.
        let due = try under.store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(
                    appId: S.appId, webhook: "new", nowMs: now + 60_000, limit: 10, inFlight: [], from: rows)
            } catch let error as StoreError { throw error } catch { throw StoreError(.corrupt, "\(error)") }
        }
        #expect(due.map(\.eventId) == ["e1", "e3"])
        #expect(due.first?.attempts == 0)
        #expect(
            try under.store.retireWebhooks(retired, nowMs: now) == [Deliveries.Retirement(moved: 0, dropped: 0)] + [
                .init(moved: 0, dropped: 0)
            ])
    }
}
