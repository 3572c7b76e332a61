import Foundation
import Subscriptions
import Testing

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
}
