import Foundation
import Subscriptions
import Testing

@_spi(StoreSQL) @testable import Storage

/// A `/v1/events` consumer may hold any position an event was given as its cursor. A replay
/// that makes the newest event no more must not give its position to the next event: the
/// consumer, past it already, would never read that event.
@Suite struct ReplayPositionContractTests {
    typealias S = StoreUnderTest

    /// customer(1)'s INITIAL_PURCHASE (1), then an event this build does not make (2), newest.
    static func withNewestGone(_ engine: ContractEngine) throws -> StoreUnderTest {
        let under = try S(engine)
        try under.subscribe(1, original: "100")
        try under.write { transaction in
            var gone = Event(type: .cancellation, id: "gone", eventTimestampMs: S.t0 + 1)
            gone.appUserId = S.customer(1)
            try Outbox.insert(gone, appId: S.appId, at: S.t0 + 1, webhooks: [], in: transaction)
        }
        #expect(try positions(under) == ["INITIAL_PURCHASE 1", "CANCELLATION 2"])
        var expected = Replay.Replayed(inputs: 1)
        (expected.eventsAsBefore, expected.eventsGone) = (1, 1)
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store) == expected)
        return under
    }

    /// Each event as `TYPE position`, in position order.
    static func positions(_ under: StoreUnderTest) throws -> [String] {
        try under.events().sorted { $0.position < $1.position }.map { "\($0.type) \($0.position)" }
    }

    static func highest(_ under: StoreUnderTest) throws -> Int64 {
        try under.store.read { (rows) throws(StoreError) in try EventRows.highestPosition(from: rows) }
    }

    @Test(arguments: ContractEngine.allCases)
    func theNextEventComesAfterTheGoneOne(_ engine: ContractEngine) throws {
        let under = try Self.withNewestGone(engine)
        #expect(try Self.positions(under) == ["INITIAL_PURCHASE 1"])
        #expect(try Self.highest(under) == 2)
        try under.subscribe(2, original: "200")
        #expect(try Self.positions(under) == ["INITIAL_PURCHASE 1", "INITIAL_PURCHASE 3"])
        #expect(try Self.highest(under) == 3)
    }

    /// A later replay keeps the floor the first one left, and places an event new to it (here
    /// one an older build did not make) after it.
    @Test(arguments: ContractEngine.allCases)
    func aLaterReplayKeepsTheFloor(_ engine: ContractEngine) throws {
        let under = try Self.withNewestGone(engine)
        try under.write { transaction in try transaction.execute("DELETE FROM events") }
        var expected = Replay.Replayed(inputs: 1)
        expected.eventsNew = 1
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store) == expected)
        #expect(try Self.positions(under) == ["INITIAL_PURCHASE 3"])
        #expect(try Self.highest(under) == 3)
    }

    /// Before any event, and with nothing gone, the highest position is the newest event's.
    @Test(arguments: ContractEngine.allCases)
    func withNothingGoneTheHighestIsTheNewestEvents(_ engine: ContractEngine) throws {
        let under = try S(engine)
        #expect(try Self.highest(under) == 0)
        try under.subscribe(1, original: "100")
        try under.subscribe(2, original: "200")
        #expect(try Self.highest(under) == 2)
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store).eventsAsBefore == 2)
        #expect(try Self.highest(under) == 2)
    }
}
